import { randomBytes, randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import Redis from 'ioredis';
import { createLogger } from '@acme/common';
import { createTestDatabase, testRedisUrl } from '@acme/testkit';
import { AUTH_SCHEMA } from './support/auth-schema';
import type { Repos } from '../src/domain/auth-context';
import { createRepos } from '../src/storage/create-repos';
import { createIntrospectionCache } from '../src/storage/introspection-cache.store';
import type { StoredToken } from '../src/domain/tokens/token-record';

const hash = () => randomBytes(32);

describe('storage on real Postgres and Redis', () => {
  let pool: Pool;
  let repos: Repos;
  beforeAll(async () => {
    const url = await createTestDatabase('auth_storage', AUTH_SCHEMA);
    pool = new Pool({ connectionString: url, max: 4 });
    repos = createRepos(pool);
  });
  afterAll(async () => {
    await pool.end();
  });

  async function seedGrant(clientId = `c${randomUUID()}`) {
    await repos.clients.save({
      clientId,
      secretHash: hash(),
      secretCiphertext: null,
      name: 'c',
      requirePushedAuthorizationRequests: false,
      dpopBoundAccessTokens: false,
      requireSignedRequestObject: false,
      clientType: 'confidential',
      applicationType: 'web',
      redirectUris: [],
      grantTypes: ['client_credentials'],
      responseTypes: ['code'],
      scopes: ['a'],
      tokenFormat: 'opaque',
      jwtAlg: 'HS256',
      accessTokenTtlSeconds: 60,
      refreshTokenTtlSeconds: null,
      refreshIdleTtlSeconds: null,
      postLogoutRedirectUris: [],
      backchannelLogoutUri: null,
      backchannelLogoutSessionRequired: false,
      tokenEndpointAuthMethod: 'client_secret_basic',
      jwks: null,
      jwksUri: null,
    });
    const user = await repos.users.create({ username: `u${randomUUID()}`, passwordHash: 'x', claims: {} });
    const grant = await repos.grants.save({
      clientId,
      userId: user.userId,
      scopes: ['a', 'b'],
      resources: ['aud1'],
      authTime: null,
    });
    return { clientId, user, grant };
  }
  const token = (over: Partial<StoredToken> & Pick<StoredToken, 'grantId' | 'clientId'>): StoredToken => ({
    tokenHash: hash(),
    kind: 'access_token',
    format: 'opaque',
    jti: null,
    userId: null,
    scopes: ['a', 'b'],
    audience: ['aud1', 'aud2'],
    familyId: null,
    codeHash: null,
    issuedAt: new Date(),
    expiresAt: null,
    ...over,
  });

  it('saves a batch of tokens in one statement and reads one back with its grant state and username', async () => {
    const { clientId, user, grant } = await seedGrant();
    const family = randomUUID();
    const rows = [
      token({ grantId: grant.grantId, clientId, userId: user.userId, familyId: family }),
      token({
        grantId: grant.grantId,
        clientId,
        userId: user.userId,
        familyId: family,
        kind: 'refresh_token',
      }),
    ];
    await repos.tokens.saveAll(rows);
    const found = await repos.tokens.findByHash(rows[0]!.tokenHash);
    expect(found).toMatchObject({
      kind: 'access_token',
      scopes: ['a', 'b'],
      audience: ['aud1', 'aud2'],
      username: user.username,
      grantRevokedAt: null,
      revokedAt: null,
      familyId: family,
      expiresAt: null,
    });
    expect(await repos.tokens.revokeFamily(family)).toHaveLength(2);
    expect(await repos.tokens.revokeFamily(family)).toHaveLength(0);
  });

  it('rotates a refresh token exactly once', async () => {
    const { clientId, grant } = await seedGrant();
    const rt = token({ grantId: grant.grantId, clientId, kind: 'refresh_token' });
    await repos.tokens.saveAll([rt]);
    const results = await Promise.all([
      repos.tokens.markRotated(rt.tokenHash),
      repos.tokens.markRotated(rt.tokenHash),
    ]);
    expect(results.sort()).toEqual([false, true]);
  });

  it('revokes grants by user with their tokens and returns the hashes touched', async () => {
    const { clientId, user, grant } = await seedGrant();
    const t = token({ grantId: grant.grantId, clientId, userId: user.userId });
    await repos.tokens.saveAll([t]);
    const result = await repos.grants.revokeWhere({ user_id: user.userId }, 'test');
    expect(result.grantIds).toEqual([grant.grantId]);
    expect(result.tokenHashes).toEqual([t.tokenHash]);
    expect((await repos.tokens.findByHash(t.tokenHash))?.grantRevokedAt).toBeInstanceOf(Date);
    expect(await repos.grants.revokeWhere({ user_id: user.userId }, 'again')).toEqual({
      grantIds: [],
      tokenHashes: [],
      tokens: [],
    });
  });

  it('consumes a code once, reports a replay, and leaves it to its own client', async () => {
    const { clientId, user, grant } = await seedGrant();
    const code = {
      codeHash: hash(),
      grantId: grant.grantId,
      clientId,
      userId: user.userId,
      redirectUri: 'https://x/cb',
      scopes: ['a'],
      resources: [],
      codeChallenge: null,
      nonce: 'n',
      dpopJkt: null,
      authTime: new Date(),
      expiresAt: new Date(Date.now() + 60_000),
    };
    await repos.codes.save(code);
    expect(await repos.codes.consume(code.codeHash, 'someone-else')).toMatchObject({
      replayed: false,
      code: { clientId },
    });
    expect(await repos.codes.consume(code.codeHash, clientId)).toMatchObject({
      replayed: false,
      code: { nonce: 'n' },
    });
    expect(await repos.codes.consume(code.codeHash, clientId)).toMatchObject({ replayed: true });
    expect(await repos.codes.consume(hash(), clientId)).toBeUndefined();
  });

  it('keeps the Redis tombstone so a result read before a revocation cannot be cached after it', async () => {
    const redis = new Redis(testRedisUrl());
    const logger = createLogger({ service: 't', silent: true });
    const cache = createIntrospectionCache({ redis, logger, localMs: 0, tombstoneSeconds: 30 });
    try {
      const h = hash();
      await cache.set(h, 'rs1', { active: true, scope: 'a' }, 60);
      expect(await cache.get(h, 'rs1')).toEqual({ active: true, scope: 'a' });
      await cache.invalidate([h]);
      expect(await cache.get(h, 'rs1')).toEqual({ active: false });
      await cache.set(h, 'rs1', { active: true, scope: 'a' }, 60); // the late write of a racing lookup
      expect(await cache.get(h, 'rs1')).toEqual({ active: false });
      expect(await redis.ttl(`auth:ti:${h.toString('base64url')}`)).toBeLessThanOrEqual(30);
    } finally {
      redis.disconnect();
    }
  });
});
