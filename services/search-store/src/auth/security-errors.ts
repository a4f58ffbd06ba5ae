import { EsError } from '@acme/common';

/**
 * Elasticsearch's security_exception bodies and challenges (x-pack security, 8.x). A 401 lists the
 * challenges twice, as Elasticsearch does: inside the error as `header:{"WWW-Authenticate":[…]}` and as real
 * `WWW-Authenticate` response headers. We offer Basic (service accounts) and Bearer (access tokens).
 */
const BASIC_CHALLENGE = 'Basic realm="security", charset="UTF-8"';
const BEARER_CHALLENGE = 'Bearer realm="security"';
/** RFC 6750 §3.1, as Elasticsearch adds it after a failed bearer token. */
const BEARER_INVALID_CHALLENGE = 'Bearer realm="security", error="invalid_token"';

function unauthenticated(reason: string, challenges: string[]): EsError {
  return new EsError('security_exception', reason, {
    status: 401,
    metadata: { header: { 'WWW-Authenticate': challenges } },
    headers: { 'WWW-Authenticate': challenges },
  });
}

export function missingCredentials(uri: string): EsError {
  return unauthenticated(`missing authentication credentials for REST request [${uri}]`, [
    BASIC_CHALLENGE,
    BEARER_CHALLENGE,
  ]);
}

export function unableToAuthenticateUser(username: string, uri: string): EsError {
  return unauthenticated(`unable to authenticate user [${username}] for REST request [${uri}]`, [
    BASIC_CHALLENGE,
    BEARER_CHALLENGE,
  ]);
}

/** A bearer token that is not active, or credentials we cannot read: no user name is known. */
export function unableToAuthenticate(bearerFailed: boolean): EsError {
  return unauthenticated(
    'unable to authenticate with provided credentials and anonymous access is not allowed for this request',
    [BASIC_CHALLENGE, bearerFailed ? BEARER_INVALID_CHALLENGE : BEARER_CHALLENGE],
  );
}

/**
 * RFC 9449 §7.1/§7.2: a DPoP-bound token sent as Bearer, or a DPoP request whose proof fails. Elasticsearch
 * has no DPoP; the body is its usual failed-credentials one, the challenges add the DPoP one (with `algs`).
 */
export function dpopRefused(dpopChallenge: string, nonce?: string): EsError {
  const error = unauthenticated(
    'unable to authenticate with provided credentials and anonymous access is not allowed for this request',
    [BASIC_CHALLENGE, BEARER_CHALLENGE, dpopChallenge],
  );
  // RFC 9449 §9: `use_dpop_nonce` comes with the nonce to retry with.
  return nonce === undefined ? error : error.with({ headers: { 'DPoP-Nonce': nonce } });
}

export function unauthorizedAction(options: {
  action: string;
  user: string;
  scopes: readonly string[];
  requiredScope: string;
  index?: string;
}): EsError {
  const onIndices = options.index === undefined ? '' : ` on indices [${options.index}]`;
  return new EsError(
    'security_exception',
    `action [${options.action}] is unauthorized for user [${options.user}] with effective roles ` +
      `[${options.scopes.join(',')}]${onIndices}, this action is granted by the scope [${options.requiredScope}]`,
    { status: 403 },
  );
}

/** Fail closed: without auth-server's answer no request passes. 503 so clients retry later. */
export function authenticationUnavailable(detail: string): EsError {
  return new EsError(
    'security_exception',
    `authentication service unavailable: ${detail}; the request was not authenticated`,
    { status: 503, headers: { 'Retry-After': '1' } },
  );
}
