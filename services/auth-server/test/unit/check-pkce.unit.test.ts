import { createHash } from 'node:crypto';
import { checkPkce } from '../../src/domain/grants/check-pkce';

const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
// RFC 7636 Appendix B.
const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('checkPkce (RFC 7636 §4.6, RFC 9700 §2.1.1)', () => {
  it('accepts the RFC 7636 Appendix B example', () => {
    expect(createHash('sha256').update(verifier).digest('base64url')).toBe(challenge);
    expect(() => checkPkce(challenge, verifier)).not.toThrow();
  });
  it.each([
    [challenge, undefined, 'code_verifier required'],
    [challenge, 'short', 'malformed code_verifier'],
    [challenge, `${verifier}x`, 'code_verifier does not match the code_challenge'],
    [null, verifier, 'code_verifier sent but no code_challenge was'],
  ])('refuses challenge %s with verifier %s: %s', (c, v, description) => {
    expect(() => checkPkce(c, v)).toThrow(expect.objectContaining({ code: 'invalid_grant', description }));
  });
  it('accepts no challenge and no verifier (confidential client without PKCE)', () => {
    expect(() => checkPkce(null, undefined)).not.toThrow();
  });
});
