import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/**
 * A WebAuthn authenticator in the test process (ES256, "none" attestation), so contract tests can answer
 * the server's ceremonies over plain HTTP with whatever origin, challenge and counter they choose: the
 * browser tests drive chromium's virtual authenticator; these drive the hostile cases it will not make.
 * The byte layouts are WebAuthn L3 §6.1 (authenticator data), §6.5.1 (attested credential data),
 * §5.8.1 (client data) and RFC 8949 (CBOR) for the attestation object and the COSE key (RFC 9053 §7.1.1).
 */
export interface SoftCredential {
  id: Buffer;
  privateKey: KeyObject;
  /** The userHandle given in the creation options (base64url). */
  userHandle: string;
  signCount: number;
}

export interface ClientDataOverrides {
  origin?: string;
  type?: string;
  challenge?: string;
}

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

function cborHead(major: number, value: number): Buffer {
  if (value < 24) return Buffer.from([(major << 5) | value]);
  if (value < 256) return Buffer.from([(major << 5) | 24, value]);
  const out = Buffer.alloc(3);
  out[0] = (major << 5) | 25;
  out.writeUInt16BE(value, 1);
  return out;
}

type Cbor = number | string | Buffer | Map<number | string, Cbor>;

/** Just enough CBOR for an attestation object and a COSE key: small ints, text, bytes, maps. */
function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([cborHead(3, bytes.length), bytes]);
  }
  if (Buffer.isBuffer(value)) return Buffer.concat([cborHead(2, value.length), value]);
  const parts = [cborHead(5, value.size)];
  for (const [key, item] of value) parts.push(cbor(key), cbor(item));
  return Buffer.concat(parts);
}

function clientData(type: string, challenge: string, origin: string): Buffer {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

function counter(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
}

const rpIdHash = (rpId: string) => createHash('sha256').update(rpId).digest();

/** Answers navigator.credentials.create's options: a new credential and the response JSON. */
export function createCredential(
  options: { challenge: string; rp: { id?: string }; user: { id: string } },
  origin: string,
  overrides: ClientDataOverrides & { flags?: number; credentialId?: Buffer } = {},
): { credential: SoftCredential; response: Record<string, unknown> } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const coseKey = new Map<number, Cbor>([
    [1, 2], // kty: EC2
    [3, -7], // alg: ES256
    [-1, 1], // crv: P-256
    [-2, Buffer.from(jwk.x!, 'base64url')],
    [-3, Buffer.from(jwk.y!, 'base64url')],
  ]);
  const id = overrides.credentialId ?? randomBytes(32);
  const idLength = Buffer.alloc(2);
  idLength.writeUInt16BE(id.length);
  const authData = Buffer.concat([
    rpIdHash(options.rp.id ?? new URL(origin).hostname),
    Buffer.from([overrides.flags ?? FLAG_UP | FLAG_UV | FLAG_AT]),
    counter(0),
    Buffer.alloc(16), // AAGUID: none
    idLength,
    id,
    cbor(coseKey),
  ]);
  const attestationObject = cbor(
    new Map<string, Cbor>([
      ['fmt', 'none'],
      ['attStmt', new Map()],
      ['authData', authData],
    ]),
  );
  const data = clientData(
    overrides.type ?? 'webauthn.create',
    overrides.challenge ?? options.challenge,
    overrides.origin ?? origin,
  );
  return {
    credential: { id, privateKey, userHandle: options.user.id, signCount: 0 },
    response: {
      id: id.toString('base64url'),
      rawId: id.toString('base64url'),
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: data.toString('base64url'),
        attestationObject: attestationObject.toString('base64url'),
        transports: ['internal'],
      },
    },
  };
}

/** Answers navigator.credentials.get's options with this credential; the counter grows unless set. */
export function assert(
  credential: SoftCredential,
  options: { challenge: string; rpId?: string },
  origin: string,
  overrides: ClientDataOverrides & { signCount?: number; flags?: number; userHandle?: string | null } = {},
): Record<string, unknown> {
  credential.signCount = overrides.signCount ?? credential.signCount + 1;
  const authData = Buffer.concat([
    rpIdHash(options.rpId ?? new URL(origin).hostname),
    Buffer.from([overrides.flags ?? FLAG_UP | FLAG_UV]),
    counter(credential.signCount),
  ]);
  const data = clientData(
    overrides.type ?? 'webauthn.get',
    overrides.challenge ?? options.challenge,
    overrides.origin ?? origin,
  );
  const signature = sign(
    'sha256',
    Buffer.concat([authData, createHash('sha256').update(data).digest()]),
    credential.privateKey,
  );
  const userHandle = overrides.userHandle === undefined ? credential.userHandle : overrides.userHandle;
  return {
    id: credential.id.toString('base64url'),
    rawId: credential.id.toString('base64url'),
    type: 'public-key',
    clientExtensionResults: {},
    response: {
      clientDataJSON: data.toString('base64url'),
      authenticatorData: authData.toString('base64url'),
      signature: signature.toString('base64url'),
      ...(userHandle === null ? {} : { userHandle }),
    },
  };
}
