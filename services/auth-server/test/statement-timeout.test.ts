import { Client } from 'pg';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { basic, createClient, createResourceServer, postForm } from './support/oauth-helpers';

describe('PG_STATEMENT_TIMEOUT_MS (issue 17: no request holds a Postgres backend for minutes)', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret?: string };
  beforeAll(async () => {
    server = await startAuthServer({ PG_STATEMENT_TIMEOUT_MS: '300' });
    client = await createClient(server);
    await createResourceServer(server, ['search.read']);
  });
  afterAll(async () => {
    await server.stop();
  });

  const token = () =>
    postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials', scope: 'search.read' },
      { authorization: basic(client.clientId, client.secret!) },
    );

  it('answers 503 temporarily_unavailable when a statement runs past the timeout, then recovers', async () => {
    // Another session holds the tables the token endpoint reads and writes, so its statements wait.
    const holder = new Client({ connectionString: server.config.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE clients, tokens IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      const response = await token();
      expect(Date.now() - started).toBeLessThan(5000);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(response.body).toEqual({
        error: 'temporarily_unavailable',
        error_description: 'the server is temporarily unable to handle the request',
      });
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    const after = await token();
    expect(after.status).toBe(200);
  });
});
