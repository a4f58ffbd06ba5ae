import {
  essentialAcr,
  idTokenAcr,
  parseClaimsParameter,
  requestedSubject,
  requestedUserClaims,
} from '../../src/domain/authorize/claims-request';
import { requiredAcr } from '../../src/domain/authorize/required-acr';
import { claimsToConsent } from '../../src/domain/consent/claims-to-consent';

/** OIDC Core §5.5 `claims`: parsing hostile input, the acr rules of §5.5.1.1, what is consented. */
describe('claims request parameter', () => {
  it('parses into Maps: hostile names are names, unknown members ignored, non-string values dropped', () => {
    const parsed = parseClaimsParameter(
      '{"__proto__":{"x":1},"id_token":{"__proto__":null,"constructor":{"essential":true},' +
        '"acr":{"values":["phr",7,"urn:acme:acr:mfa"],"value":"phrh","purpose":"p"}},"userinfo":null}',
    );
    expect([...parsed.idToken.keys()]).toEqual(['__proto__', 'constructor', 'acr']);
    expect(parsed.idToken.get('constructor')).toEqual({ essential: true, values: [] });
    expect(parsed.idToken.get('acr')).toEqual({
      essential: false,
      values: ['phr', 'urn:acme:acr:mfa', 'phrh'],
    });
    expect(parsed.userinfo.size).toBe(0);
    expect(({} as Record<string, unknown>).x).toBeUndefined(); // nothing reached Object.prototype
    expect(requestedUserClaims(parsed)).toEqual({ idToken: [], userinfo: [] });
  });

  it('refuses malformed or oversized input as invalid_request', () => {
    for (const text of ['', '{', '1', '[]', '{"id_token":1}', '{"id_token":{"a":[]}}', 'x'.repeat(5000)])
      expect(() => parseClaimsParameter(text)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });

  it('reads essential acr as a requirement, a voluntary one not; picks the ID token acr among those asked', () => {
    const essential = parseClaimsParameter(
      '{"id_token":{"acr":{"essential":true,"values":["phr","urn:acme:acr:mfa"]}}}',
    );
    expect(essentialAcr(essential)).toBe('urn:acme:acr:mfa'); // the weakest ours: meeting any one honours it
    expect(essentialAcr(parseClaimsParameter('{"id_token":{"acr":{"values":["phr"]}}}'))).toBeUndefined();
    expect(essentialAcr(parseClaimsParameter('{"id_token":{"acr":{"essential":true}}}'))).toBeUndefined();
    expect(essentialAcr(parseClaimsParameter('{"id_token":{"acr":{"essential":true,"value":"gold"}}}'))).toBe(
      'unmeetable',
    );
    expect(requiredAcr({ acrValues: ['phrh'], claims: essential })).toBe('phrh');
    expect(requiredAcr({ acrValues: ['urn:acme:acr:1fa'], claims: essential })).toBe('urn:acme:acr:mfa');
    expect(requiredAcr({})).toBeUndefined();
    // The strongest asked that the session meets; else the session's own.
    expect(idTokenAcr(essential, 'phrh')).toBe('phr');
    expect(idTokenAcr(essential, 'urn:acme:acr:mfa')).toBe('urn:acme:acr:mfa');
    expect(idTokenAcr(essential, 'urn:acme:acr:1fa')).toBe('urn:acme:acr:1fa');
    expect(idTokenAcr(undefined, 'phr')).toBe('phr');
  });

  it('consents the standard claims asked for beyond the scopes, and reads sub by value', () => {
    const parsed = parseClaimsParameter(
      '{"id_token":{"email":null,"name":null,"sub":{"value":"u-1"},"auth_time":{"essential":true}},' +
        '"userinfo":{"phone_number":null,"x-custom":null,"email":null}}',
    );
    expect(requestedUserClaims(parsed)).toEqual({
      idToken: ['email', 'name'],
      userinfo: ['email', 'phone_number'],
    });
    expect(claimsToConsent(parsed, ['openid', 'email'])).toEqual(['name', 'phone_number']);
    expect(requestedSubject(parsed)).toBe('u-1');
  });
});
