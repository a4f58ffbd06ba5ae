import { createHash } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { newDictionary, OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import { algsForKey, publicKeyOf } from '../clients/client-jwks';
import { findClientKey } from '../clients/find-client-key';
import type { ClientAssertionDeps } from '../clients/verify-client-assertion';
import { AuthorizeError, type RequestObjectJti } from './authorization-flow';

/** RFC 9101 §10.2 / RFC 8725 §3.1: the request object algorithms, fixed and asymmetric (never `none`). */
export const REQUEST_OBJECT_ALGS = ['RS256', 'PS256', 'ES256'] as const;
const MAX_REQUEST_OBJECT_LENGTH = 16 * 1024;
const CLOCK_TOLERANCE_SECONDS = 30;
/**
 * The longest life (exp − now) a request object may claim: its `jti` is remembered that long, so an unbounded
 * `exp` would be unbounded memory. An hour, FAPI 1.0 Advanced §5.2.2 item 13's bound on `exp` − `nbf`.
 */
export const MAX_REQUEST_OBJECT_LIFETIME_SECONDS = 3600;

/** JWT claims of the object itself, not authorization parameters. */
const JWT_CLAIMS = new Set(['iss', 'aud', 'exp', 'nbf', 'iat', 'jti']);

/**
 * RFC 9101 (JAR): a `request` parameter is a JWT signed by the client's registered key (`jwks`, or the set
 * at its `jwks_uri` through the private_key_jwt fetcher: the key named by `kid` or its only one), `iss` =
 * client_id, `aud` = our issuer, `exp` required and at most an hour ahead, `nbf` checked. §6.3: only the
 * object's parameters are used; the query's `client_id` must be present and match. Until the object is
 * verified no redirect_uri can be trusted, so its errors are an error page (§6.3, RFC 9700 §4.1).
 * A `jti` makes the object single use (RFC 9101 §10.10 replay; RFC 7519 §4.1.7): one already used is refused
 * here; the caller claims it when the object is used up (`claimRequestObjectJti`: at /par on the push, at
 * /authorize when the authorization completes, since the login and consent pages load it again first).
 * `pushed`: loaded from a pushed request, whose jti the push already claimed (the request_uri is single use).
 * Returns the parameters to parse, whether they came signed, and the jti to claim.
 */
export async function resolveRequestObject(
  ctx: AuthContext,
  deps: ClientAssertionDeps,
  raw: Record<string, unknown>,
  options: { pushed?: boolean } = {},
): Promise<{ params: Record<string, unknown>; signed: boolean; jti?: RequestObjectJti }> {
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
  const jwk = await findClientKey(
    deps.remoteJwks,
    { jwks: client.jwks ?? null, jwksUri: client.jwksUri ?? null },
    decoded.header.kid,
  );
  if (jwk === 'unavailable') throw refuse("the client's jwks_uri could not be fetched");
  if (!jwk) throw refuse('no registered key for this request object');
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
  const now = Math.floor(Date.now() / 1000);
  if (claims.exp - now > MAX_REQUEST_OBJECT_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS)
    throw refuse('request object lives too long (exp more than an hour ahead)');
  let jti: RequestObjectJti | undefined;
  if (claims.jti !== undefined) {
    if (typeof claims.jti !== 'string' || claims.jti.length === 0 || claims.jti.length > 200)
      throw refuse('jti must be a short string');
    jti = {
      // Per client, apart from client assertions' jtis (the key is hashed: jti is the client's text).
      key: createHash('sha256')
        .update(`request-object\u0000${clientId}\u0000${claims.jti}`)
        .digest('base64url'),
      ttlSeconds: Math.max(1, claims.exp - now + CLOCK_TOLERANCE_SECONDS),
    };
    if (!options.pushed && (await deps.jtis.used(jti.key))) throw refuse('request object already used (jti)');
  }
  if (claims.client_id !== undefined && claims.client_id !== clientId)
    throw refuse('client_id in the request object does not match');
  const params = newDictionary<unknown>();
  let count = 0;
  for (const [name, value] of Object.entries(claims)) {
    if (JWT_CLAIMS.has(name)) continue;
    if (++count > 100) throw refuse('too many parameters in the request object');
    if (name === 'request' || name === 'request_uri') throw refuse(`${name} inside a request object`);
    // OIDC Core §6.1: `claims` is a JSON object inside a request object; as its JSON text it is parsed
    // (and size-bounded) by the same code as the query's (claims-request.ts).
    if (name === 'claims' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      params[name] = JSON.stringify(value);
      continue;
    }
    const ok =
      typeof value === 'string' ||
      (name === 'resource' && Array.isArray(value) && value.every((v) => typeof v === 'string'));
    if (!ok) throw refuse(`parameter ${name} must be a string`);
    params[name] = value;
  }
  params.client_id = clientId;
  return { params, signed: true, ...(jti && !options.pushed ? { jti } : {}) };
}

/** Uses up a request object's jti; a second use (a replay, or a race of two uses) is refused. */
export async function claimRequestObjectJti(deps: ClientAssertionDeps, jti: RequestObjectJti): Promise<void> {
  if (!(await deps.jtis.claim(jti.key, jti.ttlSeconds)))
    throw new AuthorizeError(
      new OAuthError('invalid_request_object', 'request object already used (jti)'),
      false,
    );
}
