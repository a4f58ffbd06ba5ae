/**
 * How a user signed in, as the ID token says it: `amr` (OIDC Core §2, values from RFC 8176 §2) and the
 * authentication context class `acr` computed from it. Every sign-in method (password, TOTP, passkeys)
 * records its session through `authenticationOf`, so the levels stay one rule.
 */

/** RFC 8176 §2 values this server records. */
export type AuthenticationMethod =
  | 'pwd' // password
  | 'otp' // one-time password (TOTP, RFC 6238; a recovery code too: it is a one-time secret)
  | 'hwk' // proof of possession of a hardware-secured key (a device-bound passkey, a security key)
  | 'swk' // proof of possession of a software-secured key (a synced passkey)
  | 'pin' // a PIN or pattern that unlocked the key (WebAuthn user verification)
  | 'user' // a user presence test
  | 'fpt' // fingerprint
  | 'face' // facial recognition
  | 'mfa'; // multiple-factor authentication (added by authenticationOf, or by a multi-factor authenticator)

/**
 * The `acr` values, weakest first: a request for one is met by it or any later one. 1fa and mfa are ours
 * (no registry defines single- and multi-factor classes); `phr` and `phrh` are the OpenID Extended
 * Authentication Profile ACR values (phishing-resistant; phishing-resistant and hardware-protected), which
 * clients and other providers already understand. Here phr/phrh also mean "multi-factor".
 */
export const ACR_SINGLE_FACTOR = 'urn:acme:acr:1fa';
export const ACR_MULTI_FACTOR = 'urn:acme:acr:mfa';
export const ACR_PHISHING_RESISTANT = 'phr';
export const ACR_PHISHING_RESISTANT_HARDWARE = 'phrh';
export const ACR_VALUES = [
  ACR_SINGLE_FACTOR,
  ACR_MULTI_FACTOR,
  ACR_PHISHING_RESISTANT,
  ACR_PHISHING_RESISTANT_HARDWARE,
] as const;
export type Acr = (typeof ACR_VALUES)[number];

export interface Authentication {
  /** RFC 8176 values, each once, in the order used; 'mfa' last when more than one factor kind was used. */
  amr: AuthenticationMethod[];
  acr: Acr;
}

/** NIST SP 800-63B §5.1 factor kinds: something you know, have, are. 'user' (presence) is none of them. */
const FACTOR_KIND: Partial<Record<AuthenticationMethod, 'know' | 'have' | 'are'>> = {
  pwd: 'know',
  pin: 'know',
  otp: 'have',
  hwk: 'have',
  swk: 'have',
  fpt: 'are',
  face: 'are',
};

/**
 * The session's amr and acr for the methods a sign-in used. Two factor kinds (a password and a TOTP code)
 * add 'mfa'; a method that is multi-factor by itself (a passkey with user verification, NIST SP 800-63B
 * §5.1.9 "multi-factor cryptographic authenticator") is passed with 'mfa' by its caller. acr: multi-factor
 * with a WebAuthn key is phishing-resistant (the key signs for our origin only): phrh for a
 * hardware-bound key, phr for a synced one; other multi-factor is mfa; anything else 1fa.
 */
export function authenticationOf(methods: readonly AuthenticationMethod[]): Authentication {
  const amr: AuthenticationMethod[] = [...new Set(methods.filter((m) => m !== 'mfa'))];
  const kinds = new Set(amr.map((m) => FACTOR_KIND[m]).filter((kind) => kind !== undefined));
  const multiFactor = kinds.size >= 2 || methods.includes('mfa');
  if (multiFactor) amr.push('mfa');
  return { amr, acr: acrOf(amr, multiFactor) };
}

function acrOf(amr: AuthenticationMethod[], multiFactor: boolean): Acr {
  if (!multiFactor) return ACR_SINGLE_FACTOR;
  if (amr.includes('hwk')) return ACR_PHISHING_RESISTANT_HARDWARE;
  if (amr.includes('swk')) return ACR_PHISHING_RESISTANT;
  return ACR_MULTI_FACTOR;
}

/** A password sign-in. */
export const PASSWORD_AUTHENTICATION: Authentication = authenticationOf(['pwd']);

/** Position of an acr in ACR_VALUES (-1: not ours). */
export function acrRank(acr: string): number {
  return (ACR_VALUES as readonly string[]).indexOf(acr);
}

/**
 * The level an `acr_values` request (OIDC Core §3.1.2.1, space-separated, in order of preference) asks
 * for: the weakest value we know among them, since meeting any one of them honours the request. Values we
 * do not know are ignored (the claim is voluntary there); undefined when none is ours.
 */
export function requestedAcr(acrValues: readonly string[]): Acr | undefined {
  const known = acrValues.map(acrRank).filter((rank) => rank >= 0);
  return known.length ? ACR_VALUES[Math.min(...known)] : undefined;
}

/** Whether a session signed in at `have` meets the level `wanted`. */
export function meetsAcr(have: string, wanted: Acr | undefined): boolean {
  return wanted === undefined || acrRank(have) >= acrRank(wanted);
}
