import { isIP } from 'node:net';

/**
 * The WebAuthn relying party (WebAuthn L3 §5.1.3, §13.4.9): its id is the issuer's host (a registrable
 * domain or localhost; never an IP address, which browsers refuse as an RP ID) and every ceremony's origin
 * must be exactly the issuer's origin.
 */
export interface RelyingParty {
  id: string;
  name: string;
  origin: string;
}

/** The relying party of an issuer; undefined when its host is an IP address (no passkeys possible). */
export function relyingPartyOf(issuer: string, name: string): RelyingParty | undefined {
  const url = new URL(issuer);
  if (isIP(url.hostname.replace(/^\[(.*)\]$/, '$1')) !== 0) return undefined;
  return { id: url.hostname, name, origin: url.origin };
}
