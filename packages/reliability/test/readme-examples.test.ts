import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, BrowserContext } from 'playwright-core';
import { createTestDatabase, findFreePort } from '@acme/testkit';
import { launchChromium } from '../src/browser-code-flow';
import { basic, call } from '../src/http';
import { repoRoot } from '../src/stack';

const run = promisify(execFile);
const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

/** The README's fenced blocks, in order, with their info string. */
function fencedBlocks(markdown: string): { lang: string; body: string }[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, body: m[2]! }));
}

/** `sh` blocks this test does not run, each with the reason and the test that covers it instead. */
const NOT_RUN = new Map([
  [
    'npm install && npm start\n',
    'this suite starts npm start itself (its script, after the build npm test runs)',
  ],
  ['bash infra/install-deps.sh && npm install && npm test\n', 'the test run itself'],
  ['docker compose up --build\n', 'no engine here: docker-compose-config and compose-bootstrap tests'],
]);

const shBlocks = fencedBlocks(readme).filter((block) => block.lang === 'sh');
const links = [...readme.matchAll(/<(http:\/\/127\.0\.0\.1:[^>\s]+)>/g)].map((m) => m[1]!);

/**
 * Every example of the README, as written, against `npm start` (node packages/devstack/dist/start.js,
 * what `npm start` runs after `tsc -b`) on free ports. The only substitutions are the ones a user
 * makes: the ports (4000 and 9200 may be taken here), the variables npm start prints, and the code
 * read from the address bar after signing in and consenting in the browser.
 */
describe('README examples run as written against npm start', () => {
  let dataDir: string;
  let child: ChildProcess | undefined;
  let stdout = '';
  let authPort: number;
  let searchPort: number;
  let printed: Record<string, string>;
  let demoPassword: string;
  let browser: Browser | undefined;
  let context: BrowserContext;
  let code: string | undefined;

  const local = (text: string) =>
    text
      .replaceAll('127.0.0.1:4000', `127.0.0.1:${authPort}`)
      .replaceAll('127.0.0.1:9200', `127.0.0.1:${searchPort}`);

  beforeAll(async () => {
    for (const script of ['packages/devstack/dist/start.js', 'services/auth-server/dist/main.js'])
      if (!existsSync(join(repoRoot, script)))
        throw new Error(`${script} is missing: run tsc -b first (npm test does)`);
    dataDir = mkdtempSync(join(tmpdir(), 'acme-readme-'));
    chmodSync(dataDir, 0o755);
    [authPort, searchPort] = [await findFreePort(), await findFreePort()];
    child = spawn(process.execPath, [join(repoRoot, 'packages/devstack/dist/start.js')], {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? dataDir,
        DEVSTACK_DATA_DIR: dataDir,
        AUTH_PORT: String(authPort),
        SEARCH_PORT: String(searchPort),
        DATABASE_URL: await createTestDatabase('readme_examples'),
        // Documented variables npm start must hand to the services (checked below).
        LOG_LEVEL: 'debug',
        CLUSTER_NAME: 'readme-cluster',
        ID_TOKEN_TTL_SECONDS: '600',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const deadline = Date.now() + 90_000;
    while (!stdout.includes('Ctrl-C stops everything')) {
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`npm start did not come up: ${stderr.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    printed = Object.fromEntries([...stdout.matchAll(/^export (\w+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
    demoPassword = /^demo user\s+demo \/ (\S+)/m.exec(stdout)?.[1] ?? '';
    browser = await launchChromium();
    context = await browser.newContext();
    // Nothing listens on the demo client's callback (port 3000): the user reads the code from the address bar.
    await context.route('http://localhost:3000/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>nothing listens here</h1>' }),
    );
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('npm start prints every variable the examples use, under the names they use', () => {
    const assigned = new Set(shBlocks.flatMap((b) => [...b.body.matchAll(/^(\w+)=/gm)].map((m) => m[1]!)));
    const used = new Set(shBlocks.flatMap((b) => [...b.body.matchAll(/\$([A-Z_]+)/g)].map((m) => m[1]!)));
    const needed = [...used].filter((name) => !assigned.has(name));
    expect(needed.sort()).toEqual(['SEARCH_STORE_SECRET', 'WEB_SECRET']);
    for (const name of [...needed, 'ADMIN_TOKEN', 'AUTH_ADMIN_URL'])
      expect([name, printed[name]]).toEqual([name, expect.stringMatching(/^\S{20,}$/)]);
    expect(demoPassword).not.toBe('');
  });

  it('npm start hands documented variables to the services (LOG_LEVEL, CLUSTER_NAME)', async () => {
    expect(stdout).toMatch(/^\[auth-server\] .*"level":"debug"/m);
    expect(stdout).toMatch(/^\[search-store\] .*"level":"debug"/m);
    const info = await call(`http://127.0.0.1:${searchPort}/`, {
      headers: { authorization: basic('demo-web', printed.WEB_SECRET!) },
    });
    expect(info.status).toBe(200);
    expect(info.json).toMatchObject({ cluster_name: 'readme-cluster' });
  });

  it('lists only blocks that exist among the ones it does not run', () => {
    const bodies = new Set(shBlocks.map((b) => b.body));
    for (const body of NOT_RUN.keys()) expect([body, bodies.has(body)]).toEqual([body, true]);
  });

  it('every link answers: discovery, authorize (sign in, consent, code), account', async () => {
    expect(links.map((link) => new URL(link).pathname)).toEqual([
      '/.well-known/openid-configuration',
      '/authorize',
      '/account',
    ]);
    const discovery = await call(local(links[0]!));
    expect(discovery.status).toBe(200);
    expect(discovery.json).toMatchObject({ issuer: `http://127.0.0.1:${authPort}` });

    const page = await context.newPage();
    await page.goto(local(links[1]!));
    await page.getByLabel('Username').fill('demo');
    await page.getByLabel('Password').fill(demoPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL('http://localhost:3000/callback?**');
    const callback = new URL(page.url());
    expect(callback.searchParams.get('state')).toBe('xyz');
    code = callback.searchParams.get('code') ?? undefined;
    expect(code).toEqual(expect.any(String));

    const account = await page.goto(local(links[2]!));
    expect(account?.status()).toBe(200);
    expect(await page.content()).toContain('Demo web app');
    await page.close();
  }, 60_000);

  // One `it` per block, named by its first line, run in README order.
  for (const block of shBlocks) {
    const title = block.body.split('\n')[0]!;
    if (NOT_RUN.has(block.body)) continue;
    it(`runs \`${title}\``, async () => {
      // curl -s exits 0 on an HTTP error: the user would see the error body; the test fails on it.
      let script = `set -euo pipefail\ncurl() { command curl --fail-with-body --max-time 20 "$@"; }\n${local(block.body)}`;
      if (/^CODE=…/m.test(script)) {
        expect(code).toEqual(expect.any(String)); // from the browser step above
        script = script.replace(/^CODE=….*$/m, `CODE=${code!}`);
      }
      const { stdout: out } = await run('bash', ['-c', script], {
        cwd: repoRoot,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dataDir, ...printed },
        timeout: 60_000,
      }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(
          `README block failed: ${title}\n${error.message}\n${error.stdout ?? ''}${error.stderr ?? ''}`,
        );
      });
      if (block.body.includes('grant_type=authorization_code')) {
        const tokens = JSON.parse(out) as { access_token: string; id_token: string; scope: string };
        expect(tokens.scope).toBe('openid profile search.read');
        const claims = JSON.parse(Buffer.from(tokens.id_token.split('.')[1]!, 'base64url').toString()) as {
          exp: number;
          iat: number;
        };
        expect(claims.exp - claims.iat).toBe(600); // ID_TOKEN_TTL_SECONDS reached auth-server through npm start
      }
      if (block.body.includes('/token_info')) expect(JSON.parse(out)).toMatchObject({ active: true });
      if (block.body.includes('_search')) expect(out).toMatch(/"title"\s*:\s*"The quick brown fox"/);
      if (block.body.includes('npm run admin')) {
        expect(out).toContain('usage: npm run admin');
        expect(out).toContain('client_id: demo-web');
      }
    }, 90_000);
  }
});
