// (d) The peer: node-oidc-provider's RFC 7662 introspection (POST /token/introspection, client_secret_basic),
// with its in-memory store (ADAPTER=memory) or the minimal Postgres adapter beside this file (ADAPTER=postgres).
// Tokens are client_credentials access tokens, issued by its own /token endpoint.
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import Provider from 'oidc-provider';
import { createPostgresAdapter } from './postgres-adapter.mjs';

const { PORT, ADAPTER, DATABASE_URL, CLIENT_ID, CLIENT_SECRET, RS_ID, RS_SECRET } = process.env;
const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
const adapter = ADAPTER === 'postgres' ? createPostgresAdapter(DATABASE_URL).PostgresAdapter : undefined;

const provider = new Provider(`http://127.0.0.1:${PORT}`, {
  ...(adapter ? { adapter } : {}),
  clients: [
    {
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
    },
    // The resource server: a confidential client that only introspects.
    {
      client_id: RS_ID,
      client_secret: RS_SECRET,
      grant_types: [],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  scopes: ['bench.read'],
  features: {
    introspection: { enabled: true },
    clientCredentials: { enabled: true },
    devInteractions: { enabled: false },
  },
  jwks: { keys: [{ ...signingKey, kid: 'bench', use: 'sig' }] },
  cookies: { keys: ['bench-cookie-key-0123456789abcdef0123'] },
  ttl: { ClientCredentials: 3600 },
});
provider.on('server_error', (_ctx, error) =>
  process.stderr.write(`oidc-provider server_error: ${error.message}\n`),
);

const server = createServer(provider.callback());
server.listen(Number(PORT), '127.0.0.1', () => process.stdout.write(`listening ${PORT}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
