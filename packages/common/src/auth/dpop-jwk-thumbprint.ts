import { createHash } from 'node:crypto';

/** The members RFC 7638 §3.2 hashes for each key type (EC and RSA there; OKP from RFC 8037 §2). */
const REQUIRED_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  EC: ['crv', 'kty', 'x', 'y'],
  RSA: ['e', 'kty', 'n'],
  OKP: ['crv', 'kty', 'x'],
};

/**
 * RFC 7638 JWK thumbprint with SHA-256, base64url: the required members only, in lexicographic order,
 * no whitespace. RFC 9449 §6.1 names a DPoP key by it (`cnf.jkt`, `dpop_jkt`). Undefined for a key type
 * we do not take or a member that is not a string.
 */
export function jwkThumbprint(jwk: Readonly<Record<string, unknown>>): string | undefined {
  const kty = jwk.kty;
  if (typeof kty !== 'string' || !Object.hasOwn(REQUIRED_MEMBERS, kty)) return undefined;
  const members = REQUIRED_MEMBERS[kty]!;
  const parts: string[] = [];
  for (const name of members) {
    const value = Object.hasOwn(jwk, name) ? jwk[name] : undefined;
    if (typeof value !== 'string') return undefined;
    parts.push(`${JSON.stringify(name)}:${JSON.stringify(value)}`);
  }
  return createHash('sha256')
    .update(`{${parts.join(',')}}`)
    .digest('base64url');
}
