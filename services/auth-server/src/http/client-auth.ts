import type { Request } from 'express';
import { OAuthError, parseForwardedFor, RELAY_AUTHORIZATION_HEADER } from '@acme/common';
import type { AuthContext } from '../domain/auth-context';
import { authenticateClient } from '../domain/clients/authenticate-client';
import type { Client } from '../domain/clients/client';
import type { ClientAssertionDeps } from '../domain/clients/verify-client-assertion';
import { parseBasicAuth } from './parse-params';
import type { FailureLimiter } from './rate-limit';
import type { ResourceServerAuth } from './resource-server-auth';

export interface ClientAuth {
  ctx: AuthContext;
  limiter: FailureLimiter;
  /** Resource servers that may name the end user's address when they relay credentials. */
  relays: ResourceServerAuth;
  /** private_key_jwt: used assertion ids (RFC 7523 §3 item 7) and the jwks_uri fetcher. */
  assertions: ClientAssertionDeps;
}

/**
 * Client authentication for /token and /revoke. The credentials are checked first, so correct ones
 * always pass; a failure counts against its source address (rate-limit.ts), which is 429 once that
 * source is past its budget.
 */
export async function authenticateRequestClient(
  auth: ClientAuth,
  req: Request,
  params: Record<string, string>,
): Promise<Client> {
  const header = req.headers.authorization;
  const basic = parseBasicAuth(header);
  try {
    if (header && /^basic /i.test(header) && !basic)
      throw new OAuthError('invalid_client', 'malformed Basic credentials', {
        'WWW-Authenticate': 'Basic realm="auth-server", charset="UTF-8"',
      });
    return await authenticateClient(
      auth.ctx,
      {
        basic,
        clientId: params.client_id,
        clientSecret: params.client_secret,
        clientAssertionType: params.client_assertion_type,
        clientAssertion: params.client_assertion,
      },
      auth.assertions,
    );
  } catch (error) {
    if (error instanceof OAuthError && error.code === 'invalid_client')
      await auth.limiter.fail(await failingAddress(auth, req));
    throw error;
  }
}

/**
 * The address a failure counts against. A resource server that relays its users' credentials (search-store)
 * would otherwise collect every user's failures as its own; when it authenticates in
 * RELAY_AUTHORIZATION_HEADER, the `Forwarded: for=` address it names is used instead. Anyone else's
 * `Forwarded` header changes nothing, and a relay whose credentials fail is counted as it is.
 */
async function failingAddress(auth: ClientAuth, req: Request): Promise<string> {
  const own = req.ip ?? 'unknown';
  const relay = req.headers[RELAY_AUTHORIZATION_HEADER];
  const endUser = parseForwardedFor(req.headers.forwarded);
  if (typeof relay !== 'string' || endUser === undefined) return own;
  const credentials = parseBasicAuth(relay);
  const rs = credentials && (await auth.relays.verify(credentials.id, credentials.secret));
  if (!rs) {
    auth.ctx.audit('resource_server_auth_failure', { ip: own, resource_server: credentials?.id });
    return own;
  }
  return endUser;
}
