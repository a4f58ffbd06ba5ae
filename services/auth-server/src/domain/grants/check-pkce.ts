import { createHash, timingSafeEqual } from 'node:crypto';
import { OAuthError } from '@acme/common';

/** RFC 7636 §4.1: 43–128 characters of [A-Z a-z 0-9 - . _ ~]. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/**
 * RFC 7636 §4.6 with S256 only, and RFC 9700 §2.1.1: a challenge must be met; a verifier without an
 * earlier challenge is a downgrade attempt and refused.
 */
export function checkPkce(challenge: string | null, verifier: string | undefined): void {
  if (!challenge) {
    if (verifier !== undefined)
      throw new OAuthError('invalid_grant', 'code_verifier sent but no code_challenge was');
    return;
  }
  if (verifier === undefined) throw new OAuthError('invalid_grant', 'code_verifier required');
  if (!VERIFIER.test(verifier)) throw new OAuthError('invalid_grant', 'malformed code_verifier');
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  if (computed.length !== expected.length || !timingSafeEqual(computed, expected))
    throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
}
