import type { SecretHasher } from '../crypto/secret-hasher';

/**
 * The `jti` a resource server sees for an access token (RFC 7662 §2.2, RFC 9068 §2.2): a JWT's own jti;
 * for an opaque token an id derived from its stored hash with the server pepper (128 bits, base64url),
 * so neither the token nor its hash ever leaves the server. Introspection answers and revocation events
 * carry the same value, which is how a resource server finds the cached answers to drop.
 */
export function publicTokenId(
  hasher: SecretHasher,
  token: { tokenHash: Buffer; jti: string | null },
): string {
  if (token.jti) return token.jti;
  return hasher
    .hash(`token-id:${token.tokenHash.toString('base64url')}`)
    .subarray(0, 16)
    .toString('base64url');
}
