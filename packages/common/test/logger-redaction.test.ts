import { PassThrough } from 'node:stream';
import { createLogger, redactText } from '../src';

function captureLogger() {
  const stream = new PassThrough();
  const lines: string[] = [];
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  return { logger: createLogger({ service: 'test', stream }), lines };
}

describe('logger redaction', () => {
  it('keeps tokens, secrets, passwords, codes and credential headers out of every line', async () => {
    const { logger, lines } = captureLogger();
    const secrets = {
      password: 'hunter2-password',
      client_secret: 'cs-0123456789abcdef',
      refresh_token: 'rt-abcdef0123456789',
      code: 'authcode-123456',
      code_verifier: 'verifier-xyz-987',
      device_code: 'device-code-4242',
      user_code: 'BCDF-GHJK',
      authorization: 'Basic c2VjcmV0OnNlY3JldA==',
    };
    logger.info('token request', {
      body: secrets,
      headers: { Authorization: 'Bearer opaque-abc', cookie: 'sid=s3ss10n' },
    });
    logger.warn(
      'failed with Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl and ?code=zzz-code&state=ok /device?user_code=QQQQ-WWWW',
    );
    logger.error('boom', { error: new Error('bad access_token=leaky-token-1') });
    await new Promise((resolve) => setImmediate(resolve));
    const text = lines.join('\n');
    expect(lines).toHaveLength(3);
    for (const value of [
      ...Object.values(secrets),
      'opaque-abc',
      's3ss10n',
      'eyJhbGciOiJIUzI1NiJ9',
      'zzz-code',
      'QQQQ-WWWW',
    ]) {
      expect(text).not.toContain(value);
    }
    const first = JSON.parse(lines[0]!);
    expect(first).toMatchObject({ level: 'info', service: 'test', message: 'token request' });
    expect(first.body.password).toBe('[REDACTED]');
    expect(JSON.parse(lines[1]!).message).toContain('state=ok');
  });

  it('logs user-keyed fields named `__proto__` or `constructor` as fields (issue 17)', async () => {
    const { logger, lines } = captureLogger();
    // As a request body arrives: JSON.parse makes `__proto__` an own key.
    const body = JSON.parse('{"__proto__":{"password":"proto-secret","q":1},"constructor":"c"}') as object;
    logger.info('search', { body });
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('"body":{"__proto__":{"password":"[REDACTED]","q":1},"constructor":"c"}');
    expect(lines[0]).not.toContain('proto-secret');
  });

  it('redacts credentials inside free text', () => {
    expect(redactText('Authorization: Basic dXNlcjpwYXNz')).toBe('Authorization: Basic [REDACTED]');
    expect(redactText('/cb?code=abc&state=s')).toBe('/cb?code=[REDACTED]&state=s');
  });
});
