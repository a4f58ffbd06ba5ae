import jwt from 'jsonwebtoken';
import { newDictionary, OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import { algsForKey, publicKeyOf, type ClientJwk } from '../clients/client-jwks';
import { AuthorizeError } from './authorization-flow';

/** RFC 9101 §10.2 / RFC 8725 §3.1: the request object algorithms, fixed and asymmetric (never `none`). */
export const REQUEST_OBJECT_ALGS = ['RS256', 'PS256', 'ES256'] as const;
const MAX_REQUEST_OBJECT_LENGTH = 16 * 1024;
const CLOCK_TOLERANCE_SECONDS = 30;
/** JWT claims of the object itself, not authorization parameters. */
const JWT_CLAIMS = new Set(['iss', 'aud', 'exp', 'nbf', 'iat', 'jti']);

/**
 * RFC 9101 (JAR): a `request` parameter is a JWT signed by the client's registered key (`jwks`, the key
 * named by `kid` or its only one), `iss` = client_id, `aud` = our issuer, `exp` required, `nbf` checked.
 * §6.3: only the object's parameters are used; the query's `client_id` must be present and match. Until
 * the object is verified no redirect_uri can be trusted, so its errors are an error page (§6.3, RFC 9700 §4.1).
 * Returns the parameters to parse and whether they came signed.
 */
export async function resolveRequestObject(
  ctx: AuthContext,
  raw: Record<string, unknown>,
): Promise<{ params: Record<string, unknown>; signed: boolean }> {
  if (raw.request === undefined) return { params: raw, signed: false };
  const refuse = (description: string) =>
    new AuthorizeError(new OAuthError('invalid_request_object', description), false);
  const { request, client_id: clientId } = raw;
  if (typeof request !== 'string' || typeof clientId !== 'string')
    throw new AuthorizeError(
      new OAuthError('invalid_request', 'request and client_id must each appear once'),
      false,
    );
  if (raw.request_uri !== undefined)
    throw new AuthorizeError(
      new OAuthError('invalid_request', 'request and request_uri are exclusive'),
      false,
    );
  const client = await ctx.repos.clients.findById(clientId);
  if (!client) throw new AuthorizeError(new OAuthError('invalid_request', 'unknown client_id'), false);
  if (request.length > MAX_REQUEST_OBJECT_LENGTH) throw refuse('request object too large');
  const decoded = jwt.decode(request, { complete: true });
  if (!decoded || typeof decoded.payload !== 'object') throw refuse('request is not a signed JWT');
  const keys: ClientJwk[] = client.jwks?.keys ?? [];
  const kid = decoded.header.kid;
  const jwk = kid === undefined ? (keys.length === 1 ? keys[0] : undefined) : keys.find((k) => k.kid === kid);
  if (!jwk) throw refuse('no registered jwks key for this request object');
  const algorithms = algsForKey(jwk).filter((alg) =>
    (REQUEST_OBJECT_ALGS as readonly string[]).includes(alg),
  );
  let claims: jwt.JwtPayload;
  try {
    claims = jwt.verify(request, publicKeyOf(jwk), {
      algorithms,
      issuer: clientId,
      audience: ctx.config.ISSUER,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    }) as jwt.JwtPayload;
  } catch {
    throw refuse('request object signature or claims are invalid');
  }
  if (typeof claims.exp !== 'number') throw refuse('request object must expire (exp)');
  if (claims.client_id !== undefined && claims.client_id !== clientId)
    throw refuse('client_id in the request object does not match');
  const params = newDictionary<unknown>();
  let count = 0;
  for (const [name, value] of Object.entries(claims)) {
    if (JWT_CLAIMS.has(name)) continue;
    if (++count > 100) throw refuse('too many parameters in the request object');
    if (name === 'request' || name === 'request_uri') throw refuse(`${name} inside a request object`);
    const ok =
      typeof value === 'string' ||
      (name === 'resource' && Array.isArray(value) && value.every((v) => typeof v === 'string'));
    if (!ok) throw refuse(`parameter ${name} must be a string`);
    params[name] = value;
  }
  params.client_id = clientId;
  return { params, signed: true };
}
