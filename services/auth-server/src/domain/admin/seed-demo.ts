import type { AuthContext } from '../auth-context';
import { registerClient } from '../clients/register-client';
import { createResourceServerSecretEncryption } from '../crypto/key-encryption';
import { generateSecret } from '../crypto/secret-hasher';
import { DEVICE_CODE_GRANT_TYPE } from '../device/device-authorization';
import { TOKEN_EXCHANGE_GRANT_TYPE } from '../token-exchange/token-exchange';
import { registerResourceServer } from './register-resource-server';
import { createUser } from './create-user';

export interface DemoSeedOptions {
  /** Where the demo web app receives codes (registered as given: a trusted operator input). */
  webRedirectUri: string;
  spaRedirectUri: string;
  /** Fixed secrets make `npm start` reproducible; missing ones are generated and returned once. */
  webClientSecret?: string;
  searchStoreSecret?: string;
  searchStoreAudience?: string;
  username?: string;
  password?: string;
}

export interface DemoSeed {
  webClient: { clientId: string; clientSecret?: string };
  spaClient: { clientId: string };
  searchStore: { id: string; audience: string; secret?: string };
  user: { userId: string; username: string; password?: string };
  /** What this call created (empty on a second run). */
  created: string[];
}

const SEARCH_SCOPES = ['search.read', 'search.write', 'search.admin'];
const OIDC_SCOPES = ['openid', 'profile', 'email', 'offline_access'];

/**
 * Idempotent demo data for local runs: a confidential web client, a public SPA client, the search-store
 * resource server and one user. Re-running changes nothing, except that secrets given here are
 * (re)applied so the configured values always work.
 */
export async function seedDemo(ctx: AuthContext, options: DemoSeedOptions): Promise<DemoSeed> {
  const created: string[] = [];
  const { clients, resourceServers, users } = ctx.repos;
  const audience = options.searchStoreAudience ?? 'search-store';

  let webSecret = options.webClientSecret;
  if (!(await clients.findById('demo-web'))) {
    const result = await registerClient(
      ctx,
      {
        name: 'Demo web app',
        client_type: 'confidential',
        redirect_uris: [options.webRedirectUri],
        // The device grant and token exchange too, for the README's RFC 8628 and RFC 8693 examples.
        grant_types: [
          'authorization_code',
          'refresh_token',
          'client_credentials',
          DEVICE_CODE_GRANT_TYPE,
          TOKEN_EXCHANGE_GRANT_TYPE,
        ],
        scopes: [...OIDC_SCOPES, ...SEARCH_SCOPES],
      },
      { clientId: 'demo-web', secret: webSecret, skipRedirectChecks: true },
    );
    webSecret = result.clientSecret;
    created.push('client demo-web');
  } else if (webSecret) await clients.updateSecretHash('demo-web', ctx.hasher.hash(webSecret));

  if (!(await clients.findById('demo-spa'))) {
    await registerClient(
      ctx,
      {
        name: 'Demo single-page app',
        client_type: 'public',
        redirect_uris: [options.spaRedirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        scopes: [...OIDC_SCOPES, 'search.read'],
        refresh_idle_ttl_seconds: 86_400,
      },
      { clientId: 'demo-spa', skipRedirectChecks: true },
    );
    created.push('client demo-spa');
  }

  let rsSecret = options.searchStoreSecret;
  if (!(await resourceServers.findById('search-store'))) {
    rsSecret = (
      await registerResourceServer(
        ctx,
        { id: 'search-store', audience, scopes: SEARCH_SCOPES },
        rsSecret ?? generateSecret(),
      )
    ).secret;
    created.push('resource server search-store');
  } else if (rsSecret)
    await resourceServers.updateSecret(
      'search-store',
      ctx.hasher.hash(rsSecret),
      createResourceServerSecretEncryption(ctx.config.TOKEN_SIGNING_SECRET).encrypt(rsSecret),
    );

  const username = options.username ?? 'demo';
  let password = options.password;
  let user = await users.findByUsername(username);
  if (!user) {
    password ??= generateSecret(12);
    user = await createUser(ctx, {
      username,
      password,
      claims: { name: 'Demo User', email: `${username}@example.com`, email_verified: true },
    });
    created.push(`user ${username}`);
  }
  return {
    webClient: { clientId: 'demo-web', ...(webSecret ? { clientSecret: webSecret } : {}) },
    spaClient: { clientId: 'demo-spa' },
    searchStore: { id: 'search-store', audience, ...(rsSecret ? { secret: rsSecret } : {}) },
    user: { userId: user.userId, username, ...(password ? { password } : {}) },
    created,
  };
}
