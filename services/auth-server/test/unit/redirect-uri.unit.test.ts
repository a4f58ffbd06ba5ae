import {
  checkRedirectUriForRegistration,
  matchRedirectUri,
} from '../../src/domain/clients/check-redirect-uri';

describe('redirect URI registration and matching (RFC 9700 §4.1.3, RFC 8252 §7)', () => {
  it.each([
    ['https://a.example/cb', 'web', true],
    ['http://a.example/cb', 'web', false],
    ['http://127.0.0.1/cb', 'web', false],
    ['http://127.0.0.1/cb', 'native', true],
    ['http://[::1]/cb', 'native', true],
    ['com.example.app:/cb', 'native', true],
    ['myapp:/cb', 'native', false],
    ['https://a.example/cb#x', 'web', false],
    ['/relative', 'web', false],
  ] as const)('registering %s for a %s client → %s', (uri, type, ok) => {
    const attempt = () => checkRedirectUriForRegistration(uri, type);
    if (ok) expect(attempt).not.toThrow();
    else expect(attempt).toThrow(expect.objectContaining({ code: 'invalid_redirect_uri' }));
  });

  it.each([
    ['https://a.example/cb', 'web', true],
    ['https://a.example/cb/', 'web', false],
    ['https://a.example/cb?x=1', 'web', false],
    ['https://A.example/cb', 'web', false],
    ['http://127.0.0.1:9999/cb', 'web', false],
  ] as const)('web: %s against https://a.example/cb → %s', (requested, type, ok) => {
    expect(matchRedirectUri(requested, ['https://a.example/cb', 'http://127.0.0.1/cb'], type)).toBe(ok);
  });

  it.each([
    ['http://127.0.0.1:9999/cb', true],
    ['http://127.0.0.1/cb', true],
    ['http://127.0.0.1:9999/cb/', false],
    ['http://127.0.0.1:9999/cb?x', false],
    ['http://localhost:9999/cb', false],
    ['http://127.0.0.1:9999/x/../cb', false],
  ])('native loopback: %s against http://127.0.0.1/cb → %s', (requested, ok) => {
    expect(matchRedirectUri(requested, ['http://127.0.0.1/cb'], 'native')).toBe(ok);
  });
});
