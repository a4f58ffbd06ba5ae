import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface DemoSeed {
  user: { username: string; password: string };
  webClient: { clientId: string; clientSecret: string; redirectUri: string };
  spaClient: { clientId: string; redirectUri: string };
  /** A confidential client allowed client_credentials with search scopes: Basic credentials for search-store. */
  serviceAccount: { clientId: string; clientSecret: string };
  resourceServer: { id: string; secret: string; audience: string };
}

interface DemoSecrets {
  userPassword: string;
  webClientSecret: string;
  searchStoreSecret: string;
}

/**
 * Seeds the demo once (auth-server's own idempotent seed, run through its CLI against the same
 * database): the secrets are generated here the first time and kept in dataDir/demo-secrets.json
 * (mode 0600), so every later start re-applies the same values and the printed credentials stay valid.
 */
export async function seedDemo(options: {
  repoRoot: string;
  dataDir: string;
  env: Record<string, string>;
  webRedirectUri: string;
  spaRedirectUri: string;
}): Promise<DemoSeed> {
  const secretsPath = join(options.dataDir, 'demo-secrets.json');
  const secrets: DemoSecrets = existsSync(secretsPath)
    ? (JSON.parse(readFileSync(secretsPath, 'utf8')) as DemoSecrets)
    : {
        userPassword: randomBytes(9).toString('base64url'),
        webClientSecret: randomBytes(32).toString('base64url'),
        searchStoreSecret: randomBytes(32).toString('base64url'),
      };
  if (!existsSync(secretsPath)) writeFileSync(secretsPath, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  await run(process.execPath, [join(options.repoRoot, 'services/auth-server/dist/cli/seed-demo.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      ...options.env,
      DEMO_WEB_REDIRECT_URI: options.webRedirectUri,
      DEMO_SPA_REDIRECT_URI: options.spaRedirectUri,
      DEMO_WEB_CLIENT_SECRET: secrets.webClientSecret,
      DEMO_SEARCH_STORE_SECRET: secrets.searchStoreSecret,
      DEMO_USER_PASSWORD: secrets.userPassword,
    },
  });
  return {
    user: { username: 'demo', password: secrets.userPassword },
    webClient: {
      clientId: 'demo-web',
      clientSecret: secrets.webClientSecret,
      redirectUri: options.webRedirectUri,
    },
    spaClient: { clientId: 'demo-spa', redirectUri: options.spaRedirectUri },
    serviceAccount: { clientId: 'demo-web', clientSecret: secrets.webClientSecret },
    resourceServer: { id: 'search-store', secret: secrets.searchStoreSecret, audience: 'search-store' },
  };
}
