import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { MALLOC_ENV } from '@acme/common';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevstack, type Devstack } from '../src/devstack';

const repoRoot = join(__dirname, '..', '..', '..');

/** npm start as a function, on a temp data dir: the built services, a local Postgres, the demo seed. */
describe('npm start (devstack)', () => {
  let dataDir: string;
  let stack: Devstack | undefined;

  beforeAll(() => {
    for (const service of ['auth-server', 'search-store']) {
      if (!existsSync(join(repoRoot, 'services', service, 'dist', 'main.js')))
        throw new Error(`services/${service}/dist is missing: run tsc -b first (npm test does)`);
    }
    dataDir = mkdtempSync(join(tmpdir(), 'acme-devstack-test-'));
    chmodSync(dataDir, 0o755); // Postgres runs as an unprivileged user when we are root: it must traverse this
  });
  afterAll(async () => {
    await stack?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps users, clients and secrets across a stop and a start', async () => {
    stack = await startDevstack({ repoRoot, dataDir, quiet: true });
    const admin = { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' };
    const created = await fetch(`${stack.authUrl}/admin/users`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ username: 'kept-user', password: 'kept-password-1' }),
    });
    expect(created.status).toBe(201);
    const { user_id: userId } = (await created.json()) as { user_id: string };
    const firstSeed = stack.seed;
    const basic = Buffer.from(
      `${firstSeed.serviceAccount.clientId}:${firstSeed.serviceAccount.clientSecret}`,
    );
    const search = { authorization: `Basic ${basic.toString('base64')}`, 'content-type': 'application/json' };
    const indexed = await fetch(`${stack.searchUrl}/kept/_doc/1?refresh=true`, {
      method: 'PUT',
      headers: search,
      body: JSON.stringify({ title: 'kept across restarts' }),
    });
    expect(indexed.status).toBe(201);
    await stack.stop();
    stack = undefined;

    stack = await startDevstack({ repoRoot, dataDir, quiet: true });
    expect(stack.seed).toEqual(firstSeed);
    const again = await fetch(`${stack.authUrl}/admin/users/${userId}`, { headers: admin });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ user_id: userId, username: 'kept-user' });

    // The demo service account still gets tokens with the secret printed on the first start.
    const token = await fetch(`${stack.authUrl}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${basic.toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials&scope=search.read',
    });
    expect(token.status).toBe(200);
    expect(await token.json()).toMatchObject({ token_type: 'Bearer', scope: 'search.read' });
  }, 120_000);

  it("starts search-store with glibc's allocator settings, which an exported variable overrides", async () => {
    await stack?.stop();
    stack = await startDevstack({ repoRoot, dataDir, quiet: true });
    expect(environOfServiceOn(stack.searchUrl).get('MALLOC_MMAP_THRESHOLD_')).toBe(
      MALLOC_ENV.MALLOC_MMAP_THRESHOLD_,
    );
    await stack.stop();
    stack = await startDevstack({
      repoRoot,
      dataDir,
      quiet: true,
      passThroughEnv: { MALLOC_MMAP_THRESHOLD_: '262144' },
    });
    expect(environOfServiceOn(stack.searchUrl).get('MALLOC_MMAP_THRESHOLD_')).toBe('262144');
  }, 120_000);
});

/** The environment of the `node …/dist/main.js` process listening on `url`'s port (Linux /proc). */
function environOfServiceOn(url: string): Map<string, string> {
  const port = new URL(url).port;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let cmdline: string;
    let environ: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
    } catch {
      continue; // exited, or not ours to read
    }
    if (!cmdline.includes('dist/main.js')) continue;
    const env = new Map(
      environ
        .split('\0')
        .filter(Boolean)
        .map(
          (pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)] as [string, string],
        ),
    );
    if (env.get('PORT') === port) return env;
  }
  throw new Error(`no service process listens on port ${port}`);
}
