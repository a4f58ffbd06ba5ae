import { join } from 'node:path';
import { chooseDataDir } from './data-dir';
import { startDevstack } from './devstack';

/** `npm start`: runs both services on an embedded default and prints where to go. */
async function main(): Promise<void> {
  const repoRoot = join(__dirname, '..', '..', '..');
  const runningAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const dataDir = process.env.DEVSTACK_DATA_DIR ?? chooseDataDir(repoRoot, runningAsRoot);
  const stack = await startDevstack({
    repoRoot,
    dataDir,
    databaseUrl: process.env.DATABASE_URL,
    redisUrl: process.env.REDIS_URL,
    authPort: Number(process.env.AUTH_PORT ?? 4000),
    searchPort: Number(process.env.SEARCH_PORT ?? 9200),
    passThroughEnv: process.env,
  });
  const { seed } = stack;
  process.stdout.write(
    [
      '',
      `auth-server   ${stack.authUrl}   (discovery: ${stack.authUrl}/.well-known/openid-configuration)`,
      `search-store  ${stack.searchUrl}`,
      `data          ${dataDir}`,
      '',
      `demo user          ${seed.user.username} / ${seed.user.password}`,
      `web client         ${seed.webClient.clientId} / ${seed.webClient.clientSecret}  redirect ${seed.webClient.redirectUri}`,
      `spa client         ${seed.spaClient.clientId} (public, PKCE)  redirect ${seed.spaClient.redirectUri}`,
      `service account    ${seed.serviceAccount.clientId} / ${seed.serviceAccount.clientSecret}  (Basic on search-store)`,
      `admin token        ${stack.adminToken}`,
      '',
      "The README's examples use these names; paste them into your shell:",
      '',
      `export WEB_SECRET=${seed.webClient.clientSecret}`,
      `export SEARCH_STORE_SECRET=${seed.resourceServer.secret}`,
      `export ADMIN_TOKEN=${stack.adminToken}`,
      `export AUTH_ADMIN_URL=${stack.authUrl}`,
      '',
      `try: curl -u ${seed.serviceAccount.clientId}:$WEB_SECRET ${stack.searchUrl}/`,
      '',
      'Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('stopping…\n');
    void stack.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

void main().catch((error: unknown) => {
  process.stderr.write(`npm start failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
