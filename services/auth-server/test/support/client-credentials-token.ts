import { basic, postForm } from './oauth-helpers';
import type { RunningAuthServer } from './start-auth-server';

/** An access token for scope search.read from /token with client_credentials, the client authenticated by Basic. */
export async function clientCredentialsToken(
  server: RunningAuthServer,
  client: { clientId: string; secret?: string },
): Promise<string> {
  const issued = await postForm(
    `${server.url}/token`,
    { grant_type: 'client_credentials', scope: 'search.read' },
    { authorization: basic(client.clientId, client.secret!) },
  );
  return issued.body.access_token as string;
}
