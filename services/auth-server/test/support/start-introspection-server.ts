import { PassThrough } from 'node:stream';
import { createLogger } from '@acme/common';
import { clientCredentialsToken } from './client-credentials-token';
import { createClient, createResourceServer } from './oauth-helpers';
import { startAuthServer, type RunningAuthServer } from './start-auth-server';

export interface IntrospectionServer {
  server: RunningAuthServer;
  /** A resource server allowed to introspect, for search.read. */
  rs: { id: string; secret: string; audience: string };
  /** An active client-credentials access token for search.read. */
  token: string;
  /** The server's log lines, parsed, as they arrive (only with `logLines`). */
  lines: Record<string, unknown>[];
}

/** An auth server for the /token_info tests: a client, a resource server and one token to ask about. */
export async function startIntrospectionServer(
  options: { logLines?: boolean } = {},
): Promise<IntrospectionServer> {
  const lines: Record<string, unknown>[] = [];
  let logger;
  if (options.logLines) {
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
    });
    logger = createLogger({ service: 'auth-server', level: 'info', stream });
  }
  const server = await startAuthServer({}, logger ? { logger } : {});
  const client = await createClient(server);
  const rs = await createResourceServer(server, ['search.read']);
  return { server, rs, token: await clientCredentialsToken(server, client), lines };
}
