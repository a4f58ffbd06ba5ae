import { constants, createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { jwkThumbprint } from './dpop-jwk-thumbprint';
import type { DpopNonces } from './dpop-nonce';
import type { DpopReplayCache } from './dpop-replay-cache';

/**
 * RFC 9449 §4.2/§4.3: asymmetric algorithms only (never `none` or a MAC, §4.3 item 5), named here and never
 * taken from the proof's own key. Each needs a key of its own type (checked before verifying).
 */
export const DPOP_SIGNING_ALGS = [
  'ES256',
  'ES384',
  'ES512',
  'PS256',
  'PS384',
  'PS512',
  'RS256',
  'RS384',
  'RS512',
  'EdDSA',
] as const;
export type DpopSigningAlg = (typeof DPOP_SIGNING_ALGS)[number];

/** RFC 7517/7518 private-key members: a proof's `jwk` carrying any of them is refused (§4.3 item 6). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const MAX_PROOF_LENGTH = 8192;
const MAX_JTI_LENGTH = 256;
const MIN_RSA_BITS = 2048;

export type DpopProofErrorCode = 'invalid_dpop_proof' | 'use_dpop_nonce';

/** Why a proof was refused: `use_dpop_nonce` when only the server's nonce is missing or stale (§8). */
export class DpopProofError extends Error {
  constructor(
    readonly code: DpopProofErrorCode,
    readonly description: string,
  ) {
    super(`${code}: ${description}`);
    this.name = 'DpopProofError';
  }
}

export interface DpopProofExpectations {
  /** The request's method (`htm`, §4.3 item 8). */
  method: string;
  /** The request's URI as its recipient knows it; query and fragment are ignored (§4.3 item 9). */
  url: string;
  /** A proof older than this (by `iat`) is refused; its `jti` is remembered that long. */
  maxAgeSeconds: number;
  /** How far in the future `iat` may be (clock skew). */
  futureSkewSeconds: number;
  replay: DpopReplayCache;
  /** At a resource server: the access token, whose SHA-256 `ath` must carry (§4.3 item 11). */
  accessToken?: string;
  /** Set when the server requires its nonce (§8); absent: a `nonce` claim is ignored. */
  nonces?: DpopNonces;
  now?: () => number;
}

export interface VerifiedDpopProof {
  /** RFC 7638 thumbprint of the proof's key (SHA-256, base64url). */
  jkt: string;
  jti: string;
  iat: number;
}

/**
 * Checks one `DPoP` header value as RFC 9449 §4.3 lists, in order, and claims its `jti` last (so a proof
 * refused for any other reason does not use up its `jti`). Throws DpopProofError.
 */
export async function verifyDpopProof(
  header: string | string[] | undefined,
  expect: DpopProofExpectations,
): Promise<VerifiedDpopProof> {
  // §4.3 item 1: exactly one DPoP header. Node joins repeated unknown headers with ", ", and a JWS
  // compact serialization has no comma.
  if (typeof header !== 'string' || header === '') throw invalid('a single DPoP header is required');
  if (header.length > MAX_PROOF_LENGTH || !/^[\w-]+\.[\w-]+\.[\w-]+$/.test(header))
    throw invalid('the DPoP proof is not a JWT');
  const [headerPart, payloadPart, signaturePart] = header.split('.') as [string, string, string];
  const jose = decodeJson(headerPart);
  const claims = decodeJson(payloadPart);
  if (!jose || !claims) throw invalid('the DPoP proof is not a JWT');
  // §4.3 item 4: typ
  if (own(jose, 'typ') !== 'dpop+jwt') throw invalid('typ must be dpop+jwt');
  // item 5: an asymmetric algorithm we support
  const alg = own(jose, 'alg');
  if (typeof alg !== 'string' || !(DPOP_SIGNING_ALGS as readonly string[]).includes(alg))
    throw invalid(`alg must be one of ${DPOP_SIGNING_ALGS.join(', ')}`);
  // item 6: a public key, no private part
  const jwk = own(jose, 'jwk');
  if (!isObject(jwk)) throw invalid('jwk header must be a public JWK');
  if (PRIVATE_MEMBERS.some((name) => Object.hasOwn(jwk, name)))
    throw invalid('jwk must not contain a private key');
  const jkt = jwkThumbprint(jwk);
  if (jkt === undefined) throw invalid('jwk must be an EC, RSA or OKP public key');
  const key = publicKeyOf(jwk);
  checkKeyFitsAlg(key, alg as DpopSigningAlg);
  // item 7: the signature
  const signingInput = Buffer.from(`${headerPart}.${payloadPart}`);
  if (!verifySignature(alg as DpopSigningAlg, key, signingInput, Buffer.from(signaturePart, 'base64url')))
    throw invalid('the DPoP proof signature does not verify');
  // items 8, 9: htm and htu
  if (own(claims, 'htm') !== expect.method) throw invalid('htm does not match the request method');
  const htu = own(claims, 'htu');
  if (typeof htu !== 'string' || !sameResource(htu, expect.url))
    throw invalid('htu does not match the request URI');
  const jti = own(claims, 'jti');
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH) throw invalid('jti is required');
  // item 11: ath, at a resource server
  if (expect.accessToken !== undefined) {
    const ath = createHash('sha256').update(expect.accessToken).digest('base64url');
    if (own(claims, 'ath') !== ath) throw invalid('ath does not match the access token');
  }
  // item 12 (§11.1): iat within the acceptable window
  const iat = own(claims, 'iat');
  const nowSeconds = (expect.now ?? Date.now)() / 1000;
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw invalid('iat is required');
  if (iat > nowSeconds + expect.futureSkewSeconds) throw invalid('iat is in the future');
  if (iat < nowSeconds - expect.maxAgeSeconds) throw invalid('the DPoP proof is too old');
  // item 10 and §8: the server's nonce, checked after everything the client cannot fix by retrying
  if (expect.nonces && !expect.nonces.isValid(own(claims, 'nonce')))
    throw new DpopProofError('use_dpop_nonce', 'Authorization server requires nonce in DPoP proof');
  // §11.1: single use while it could be accepted; keyed by the key too, so clients cannot collide.
  const replayKey = createHash('sha256').update(`${jkt}\n${jti}`).digest('base64url');
  if (!(await expect.replay.claim(replayKey, expect.maxAgeSeconds + expect.futureSkewSeconds)))
    throw invalid('the DPoP proof was already used (jti)');
  return { jkt, jti, iat };
}

/** RFC 9449 §4.3 item 9 with RFC 3986 §6.2.2/§6.2.3 normalization (WHATWG URL): origin and path only. */
export function sameResource(htu: string, url: string): boolean {
  const a = parseUrl(htu);
  const b = parseUrl(url);
  return a !== undefined && b !== undefined && a === b;
}

function parseUrl(value: string): string | undefined {
  if (!URL.canParse(value)) return undefined;
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  return `${url.protocol}//${url.host}${url.pathname}`;
}

function decodeJson(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function own(object: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(object, name) ? object[name] : undefined;
}

function invalid(description: string): DpopProofError {
  return new DpopProofError('invalid_dpop_proof', description);
}

function publicKeyOf(jwk: Record<string, unknown>): KeyObject {
  try {
    const key = createPublicKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' });
    if (key.type !== 'public') throw new Error('not a public key');
    return key;
  } catch {
    throw invalid('jwk is not a usable public key');
  }
}

const EC_CURVE: Readonly<Record<string, string>> = {
  ES256: 'prime256v1',
  ES384: 'secp384r1',
  ES512: 'secp521r1',
};

/** RFC 8725 §3.1: the algorithm and the key must agree (no RSA key under ES256, no short RSA keys). */
function checkKeyFitsAlg(key: KeyObject, alg: DpopSigningAlg): void {
  const details = key.asymmetricKeyDetails ?? {};
  const type = key.asymmetricKeyType;
  const fits =
    alg in EC_CURVE
      ? type === 'ec' && details.namedCurve === EC_CURVE[alg]
      : alg === 'EdDSA'
        ? type === 'ed25519' || type === 'ed448'
        : type === 'rsa' && (details.modulusLength ?? 0) >= MIN_RSA_BITS;
  if (!fits) throw invalid(`jwk does not fit alg ${alg}`);
}

function verifySignature(alg: DpopSigningAlg, key: KeyObject, input: Buffer, signature: Buffer): boolean {
  try {
    if (alg === 'EdDSA') return verify(null, input, key, signature);
    const hash = `sha${alg.slice(2)}`;
    if (alg.startsWith('ES')) return verify(hash, input, { key, dsaEncoding: 'ieee-p1363' }, signature);
    if (alg.startsWith('PS'))
      return verify(
        hash,
        input,
        { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: Number(alg.slice(2)) / 8 },
        signature,
      );
    return verify(hash, input, key, signature);
  } catch {
    return false;
  }
}
