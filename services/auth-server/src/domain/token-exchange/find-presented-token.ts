import { OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import { findTokenHash, isTokenActive } from '../tokens/find-token';
import type { TokenRecord } from '../tokens/token-record';

/**
 * A subject or actor token with what an exchange needs of it: the stored record, and how many whole
 * seconds it still lives (undefined: it does not expire).
 */
export interface PresentedToken {
  record: TokenRecord;
  remainingSeconds: number | undefined;
}

/**
 * The subject or actor token as our own store knows it (a JWT's signature is checked first, RFC 8725
 * §3.1): an access token issued here, not revoked in any way (token, grant, family), not expired. RFC
 * 8693 §2.2.2: a token that is "invalid for any reason" is invalid_request, not invalid_grant. One
 * description for every failure, so the answer does not tell an unknown token from a revoked one.
 */
export async function findPresentedToken(
  ctx: AuthContext,
  token: string,
  parameter: 'subject_token' | 'actor_token',
  now: Date,
): Promise<PresentedToken> {
  const hash = await findTokenHash(ctx, token);
  const record = hash ? await ctx.repos.tokens.findByHash(hash) : undefined;
  const remainingSeconds = record?.expiresAt
    ? Math.floor((record.expiresAt.getTime() - now.getTime()) / 1000)
    : undefined;
  // Less than a second left counts as expired: a token of zero lifetime is of no use to anyone.
  if (
    !record ||
    record.kind !== 'access_token' ||
    !isTokenActive(record, now) ||
    (remainingSeconds !== undefined && remainingSeconds < 1)
  )
    throw new OAuthError('invalid_request', `${parameter} is not an active access token`);
  return { record, remainingSeconds };
}
