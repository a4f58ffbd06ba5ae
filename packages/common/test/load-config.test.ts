import { z } from 'zod';
import { ConfigError, envInt, envSecret, envUrl, loadConfig } from '../src';

const schema = z.object({
  DATABASE_URL: envUrl,
  PORT: envInt(0, 65535).default(4000),
  TOKEN_SIGNING_SECRET: envSecret,
});

describe('loadConfig', () => {
  it('names every bad or missing variable and never prints its value', () => {
    const secretLooking = 'short-but-secret-value';
    let caught: unknown;
    try {
      loadConfig(schema, { DATABASE_URL: 'not a url', PORT: '99999', TOKEN_SIGNING_SECRET: secretLooking });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const error = caught as ConfigError;
    expect(error.problems).toEqual([
      'DATABASE_URL: must be a valid url',
      'PORT: must be at most 65535',
      'TOKEN_SIGNING_SECRET: must be at least 32 characters',
    ]);
    expect(error.message).not.toContain(secretLooking);
    expect(error.message).not.toContain('not a url');
  });

  it('reports a missing secret as required instead of using a default', () => {
    expect(() => loadConfig(schema, { DATABASE_URL: 'postgres://h/db' })).toThrow(
      /TOKEN_SIGNING_SECRET: is required/,
    );
  });

  it('returns typed values with defaults applied', () => {
    const config = loadConfig(schema, {
      DATABASE_URL: 'postgres://h/db',
      TOKEN_SIGNING_SECRET: 'x'.repeat(32),
    });
    expect(config).toEqual({
      DATABASE_URL: 'postgres://h/db',
      PORT: 4000,
      TOKEN_SIGNING_SECRET: 'x'.repeat(32),
    });
  });
});
