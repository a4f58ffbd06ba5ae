import nock from 'nock';

/**
 * Stubs auth-server's /token_info at `authServerUrl` (outbound HTTP, so nock) answering by token: a token
 * named in `scopes` is active with those scopes for ten more minutes, its username `username` or else the
 * token itself (RFC 7662 §2.2); any other token is inactive. Persists until nock.cleanAll().
 */
export function stubTokenScopes(
  authServerUrl: string,
  scopes: ReadonlyMap<string, string>,
  username?: string,
): void {
  nock(authServerUrl)
    .post('/token_info')
    .reply((_uri, body) => {
      const token = new URLSearchParams(String(body)).get('token') ?? '';
      const scope = scopes.get(token);
      const exp = Math.floor(Date.now() / 1000) + 600;
      return [
        200,
        scope === undefined ? { active: false } : { active: true, scope, username: username ?? token, exp },
      ];
    })
    .persist();
}
