import { authConfigSchema } from '../../src/config';

const base = {
  ISSUER: 'https://auth.example/',
  DATABASE_URL: 'postgres://localhost/x',
  TOKEN_SIGNING_SECRET: 'x'.repeat(32),
  ADMIN_TOKEN: 'y'.repeat(32),
};

describe('auth-server config', () => {
  it('applies the protocol-core defaults and strips the issuer slash', () => {
    expect(authConfigSchema.parse(base)).toMatchObject({
      ISSUER: 'https://auth.example',
      INTROSPECTION_LOCAL_CACHE_MS: 1000,
      AUTH_FAILURES_PER_MINUTE: 30,
      REFRESH_REUSE_GRACE_SECONDS: 0,
      ID_TOKEN_TTL_SECONDS: 3600,
    });
  });
  it.each([
    ['10.0.0.0/8, ::1/128', true],
    ['127.0.0.1', true],
    ['10.0.0.0/33', false],
    ['example.com/8', false],
    ['10.0.0.0/8/1', false],
  ])('INTROSPECTION_ALLOW_CIDRS=%s valid → %s', (value, ok) => {
    expect(authConfigSchema.safeParse({ ...base, INTROSPECTION_ALLOW_CIDRS: value }).success).toBe(ok);
  });
});
