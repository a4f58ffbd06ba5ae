import {
  constants,
  createHash,
  createHmac,
  generateKeyPairSync,
  randomUUID,
  sign,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';

/** A client's DPoP key pair (RFC 9449 §4), made and used with node's crypto only. */
export interface DpopKey {
  alg: 'ES256' | 'EdDSA' | 'RS256' | 'PS256';
  privateKey: KeyObject;
  /** The public JWK the proofs carry. */
  jwk: JsonWebKey;
  /** RFC 7638 SHA-256 thumbprint, computed here independently of the server's code. */
  jkt: string;
}

export function dpopKey(alg: DpopKey['alg'] = 'ES256'): DpopKey {
  const pair =
    alg === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : alg === 'EdDSA'
        ? generateKeyPairSync('ed25519')
        : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = pair.publicKey.export({ format: 'jwk' });
  const members =
    jwk.kty === 'EC'
      ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }
      : jwk.kty === 'RSA'
        ? { e: jwk.e, kty: jwk.kty, n: jwk.n }
        : { crv: jwk.crv, kty: jwk.kty, x: jwk.x };
  const jkt = createHash('sha256').update(JSON.stringify(members)).digest('base64url');
  return { alg, privateKey: pair.privateKey, jwk, jkt };
}

export interface ProofOptions {
  htm?: string;
  htu: string;
  /** Seconds since the epoch; default now. */
  iat?: number;
  jti?: string;
  nonce?: string;
  /** The access token whose hash goes in `ath` (resource-server requests). */
  accessToken?: string;
  /** Replaces header members (e.g. a private jwk, another typ or alg). */
  header?: Record<string, unknown>;
  /** Signs with an HMAC under this key instead of the private key (a symmetric proof). */
  hmacKey?: Buffer;
  /** Corrupts the signature. */
  badSignature?: boolean;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A DPoP proof JWT (RFC 9449 §4.2) for one request. */
export function dpopProof(key: DpopKey, options: ProofOptions): string {
  const header = { typ: 'dpop+jwt', alg: key.alg, jwk: key.jwk, ...options.header };
  const claims: Record<string, unknown> = {
    jti: options.jti ?? randomUUID(),
    htm: options.htm ?? 'POST',
    htu: options.htu,
    iat: options.iat ?? Math.floor(Date.now() / 1000),
  };
  if (options.nonce !== undefined) claims.nonce = options.nonce;
  if (options.accessToken !== undefined)
    claims.ath = createHash('sha256').update(options.accessToken).digest('base64url');
  const input = `${b64(header)}.${b64(claims)}`;
  let signature: Buffer;
  if (options.hmacKey) signature = createHmac('sha256', options.hmacKey).update(input).digest();
  else if (key.alg === 'EdDSA') signature = sign(null, Buffer.from(input), key.privateKey);
  else if (key.alg === 'ES256')
    signature = sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  else if (key.alg === 'PS256')
    signature = sign('sha256', Buffer.from(input), {
      key: key.privateKey,
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: 32,
    });
  else signature = sign('sha256', Buffer.from(input), key.privateKey);
  if (options.badSignature) signature[0] = signature[0]! ^ 0xff;
  return `${input}.${signature.toString('base64url')}`;
}
