import { createPublicKey, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { OAuthError } from '@acme/common';

/** RFC 7523 §3 / RFC 7518 §3.1: the client assertion algorithms we accept, fixed here (RFC 8725 §3.1). */
export const CLIENT_ASSERTION_ALGS = ['RS256', 'PS256', 'ES256'] as const;
export type ClientAssertionAlg = (typeof CLIENT_ASSERTION_ALGS)[number];

/**
 * A registered public key (RFC 7517 §4). `kid` is required: the assertion's header names its key, and
 * a key is only ever chosen from the client's own set (RFC 8725 §3.10). Private members are refused.
 */
const jwkSchema = z
  .object({
    kty: z.enum(['RSA', 'EC']),
    kid: z.string().min(1).max(200),
    use: z.literal('sig').optional(),
    alg: z.enum(CLIENT_ASSERTION_ALGS).optional(),
    n: z.string().max(2000).optional(),
    e: z.string().max(20).optional(),
    crv: z.literal('P-256').optional(),
    x: z.string().max(100).optional(),
    y: z.string().max(100).optional(),
  })
  .strict();
export type ClientJwk = z.infer<typeof jwkSchema>;

/** RFC 7591 §2 `jwks`: `{ keys: [...] }`, at most 10 keys with distinct `kid`s. */
export const clientJwksSchema = z.object({ keys: z.array(jwkSchema).min(1).max(10) }).strict();
export type ClientJwks = z.infer<typeof clientJwksSchema>;

/** The algorithms a key may verify: its `alg` if registered, else those of its type. */
export function algsForKey(jwk: ClientJwk): ClientAssertionAlg[] {
  if (jwk.alg) return [jwk.alg];
  return jwk.kty === 'RSA' ? ['RS256', 'PS256'] : ['ES256'];
}

/** Node's key for a registered JWK (checked at registration, so this does not throw for stored sets). */
export function publicKeyOf(jwk: ClientJwk): KeyObject {
  return createPublicKey({ key: { ...jwk }, format: 'jwk' });
}

/** Registration checks: distinct kids, each key a usable public key of its type (RSA ≥ 2048 bits). */
export function checkClientJwks(jwks: ClientJwks): void {
  const kids = new Set<string>();
  for (const jwk of jwks.keys) {
    if (kids.has(jwk.kid)) throw new OAuthError('invalid_client_metadata', `jwks: duplicate kid ${jwk.kid}`);
    kids.add(jwk.kid);
    const fits = jwk.kty === 'RSA' ? jwk.n && jwk.e && !jwk.crv : jwk.crv && jwk.x && jwk.y && !jwk.n;
    if (!fits || (jwk.alg && !algsForKey({ ...jwk, alg: undefined }).includes(jwk.alg)))
      throw new OAuthError('invalid_client_metadata', `jwks: key ${jwk.kid} does not fit its kty/alg`);
    let key: KeyObject;
    try {
      key = publicKeyOf(jwk);
    } catch {
      throw new OAuthError('invalid_client_metadata', `jwks: key ${jwk.kid} is not a valid public key`);
    }
    if (jwk.kty === 'RSA' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048)
      throw new OAuthError('invalid_client_metadata', `jwks: RSA key ${jwk.kid} is shorter than 2048 bits`);
  }
}
