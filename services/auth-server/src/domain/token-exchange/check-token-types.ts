import { OAuthError } from '@acme/common';
import { ACCESS_TOKEN_TYPE, type TokenExchangeRequest } from './token-exchange';

/** Token types RFC 8693 §3 defines that we recognise but do not exchange. */
const UNSUPPORTED = new Map([
  ['urn:ietf:params:oauth:token-type:refresh_token', 'refresh tokens'],
  ['urn:ietf:params:oauth:token-type:id_token', 'ID tokens'],
]);

/**
 * RFC 8693 §2.1 and §2.2.2 (invalid_request): subject_token and subject_token_type are required;
 * actor_token_type is required with actor_token and must be absent without it; every token type, and
 * requested_token_type, must be the access token type: this server exchanges its own access tokens for
 * access tokens only (a refresh or ID token as subject is refused, not guessed at).
 */
export function checkTokenTypes(request: TokenExchangeRequest): {
  subjectToken: string;
  actorToken?: string;
} {
  const { subject_token: subjectToken, actor_token: actorToken } = request;
  if (!subjectToken) throw new OAuthError('invalid_request', 'subject_token is required');
  if (!request.subject_token_type) throw new OAuthError('invalid_request', 'subject_token_type is required');
  checkType('subject_token_type', request.subject_token_type);
  if (actorToken && !request.actor_token_type)
    throw new OAuthError('invalid_request', 'actor_token_type is required with actor_token');
  if (!actorToken && request.actor_token_type !== undefined)
    throw new OAuthError('invalid_request', 'actor_token_type without actor_token');
  if (request.actor_token_type !== undefined) checkType('actor_token_type', request.actor_token_type);
  if (request.requested_token_type !== undefined)
    checkType('requested_token_type', request.requested_token_type);
  return actorToken ? { subjectToken, actorToken } : { subjectToken };
}

function checkType(parameter: string, type: string): void {
  if (type === ACCESS_TOKEN_TYPE) return;
  const known = UNSUPPORTED.get(type);
  throw new OAuthError(
    'invalid_request',
    known ? `${parameter}: ${known} are not supported` : `${parameter}: unsupported token type`,
  );
}
