import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { createJwtVerifier, OAuthError, type JwtVerifierOptions } from '../../src';

const NOW = 1_800_000_000;
const ISSUER = 'https://auth.test';

describe('JWT verifier', () => {
  let privateKey: KeyObject;
  let publicKey: KeyObject;
  let otherPrivateKey: KeyObject;
  beforeAll(() => {
    ({ privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 }));
    ({ privateKey: otherPrivateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 }));
  });

  const verifier = (overrides: Partial<JwtVerifierOptions> = {}) =>
    createJwtVerifier({
      key: publicKey,
      algorithms: ['RS256'],
      issuer: ISSUER,
      now: () => NOW * 1000,
      ...overrides,
    });
  const sign = (claims: object = {}, options: jwt.SignOptions = {}, key: KeyObject = privateKey) =>
    jwt.sign(
      {
        iss: ISSUER,
        sub: 'user-1',
        client_id: 'app',
        scope: 'search.read search.write',
        iat: NOW,
        exp: NOW + 600,
        ...claims,
      },
      key,
      { algorithm: 'RS256', header: { alg: 'RS256', typ: 'at+jwt' }, ...options },
    );
  /** The error a verify call throws, as the product spec's wire body and status. */
  const failureOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      return { status: error.status, body: error.toBody() };
    }
    throw new Error('expected verify to fail');
  };

  it('returns the principal of a valid token with its scopes, subject, client and exp', () => {
    expect(verifier().verify(sign({ aud: 'search-store' }))).toEqual({
      subject: 'user-1',
      clientId: 'app',
      scopes: ['search.read', 'search.write'],
      audience: ['search-store'],
      expiresAt: NOW + 600,
      source: 'jwt',
    });
  });

  it('answers 401 expired / "token has expired" for an expired token', () => {
    const token = sign({ exp: NOW - 1 });
    expect(failureOf(() => verifier().verify(token))).toEqual({
      status: 401,
      body: { error: 'expired', error_description: 'token has expired' },
    });
  });

  it('answers 401 invalid / "token provided was malformed" for a bad signature', () => {
    const token = sign({}, {}, otherPrivateKey);
    expect(failureOf(() => verifier().verify(token))).toEqual({
      status: 401,
      body: { error: 'invalid', error_description: 'token provided was malformed' },
    });
  });

  it('stops at the signature: an expired token with a bad signature is reported as invalid', () => {
    const token = sign({ exp: NOW - 1 }, {}, otherPrivateKey);
    expect(failureOf(() => verifier().verify(token)).body.error).toBe('invalid');
  });

  it('answers 401 unauthorized with the failure message for a token that is not a JWT', () => {
    expect(failureOf(() => verifier().verify('not-a-jwt'))).toEqual({
      status: 401,
      body: { error: 'unauthorized', error_description: 'jwt malformed' },
    });
  });

  it('refuses an unsigned token (alg none) even though its claims are valid', () => {
    const unsigned = jwt.sign({ iss: ISSUER, sub: 'user-1', exp: NOW + 600 }, null, { algorithm: 'none' });
    expect(failureOf(() => verifier().verify(unsigned))).toEqual({
      status: 401,
      body: { error: 'unauthorized', error_description: 'jwt signature is required' },
    });
  });

  it('refuses an HS256 token keyed with our RSA public key (algorithm confusion, RFC 8725 §3.1)', () => {
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const forged = jwt.sign({ iss: ISSUER, sub: 'user-1', exp: NOW + 600 }, pem, { algorithm: 'HS256' });
    expect(failureOf(() => verifier().verify(forged))).toEqual({
      status: 401,
      body: { error: 'unauthorized', error_description: 'invalid algorithm' },
    });
  });

  it('refuses a token from another issuer with the library message', () => {
    const token = sign({ iss: 'https://evil.test' });
    expect(failureOf(() => verifier().verify(token)).body).toEqual({
      error: 'unauthorized',
      error_description: `jwt issuer invalid. expected: ${ISSUER}`,
    });
  });

  it('refuses a token not yet valid (nbf in the future)', () => {
    const token = sign({ nbf: NOW + 60 });
    expect(failureOf(() => verifier().verify(token)).body).toEqual({
      error: 'unauthorized',
      error_description: 'jwt not active',
    });
  });

  it('checks the typ header when asked to (RFC 9068 at+jwt)', () => {
    const idToken = sign({}, { header: { alg: 'RS256', typ: 'JWT' } });
    expect(failureOf(() => verifier({ requiredTyp: 'at+jwt' }).verify(idToken)).body).toEqual({
      error: 'unauthorized',
      error_description: 'jwt typ invalid. expected: at+jwt',
    });
    expect(verifier({ requiredTyp: 'at+jwt' }).verify(sign()).subject).toBe('user-1');
  });

  it('looks the key up by kid in our own key set only', () => {
    const keys = new Map([['k1', publicKey]]);
    const byKid = verifier({ key: (kid) => (kid ? keys.get(kid) : undefined) });
    expect(byKid.verify(sign({}, { keyid: 'k1' })).subject).toBe('user-1');
    expect(failureOf(() => byKid.verify(sign({}, { keyid: 'k9' }))).body).toEqual({
      error: 'unauthorized',
      error_description: 'no verification key for this token',
    });
  });

  it('cannot be built without an explicit algorithm list, or with "none" in it', () => {
    expect(() => createJwtVerifier({ key: publicKey, algorithms: [] })).toThrow(/explicit list/);
    expect(() => createJwtVerifier({ key: publicKey, algorithms: ['RS256', 'none'] })).toThrow(
      /without "none"/,
    );
  });
});
