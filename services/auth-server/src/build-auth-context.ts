import type { Pool } from 'pg';
import type { Logger } from '@acme/common';
import type { AuthConfig } from './config';
import type { AuthContext } from './domain/auth-context';
import { createAudit } from './domain/audit';
import { createKeyEncryption } from './domain/crypto/key-encryption';
import { createSecretHasher, deriveHs256Key } from './domain/crypto/secret-hasher';
import type { IntrospectionCache } from './domain/introspection/introspection-cache';
import { createLocalRevocationFeed, type RevocationFeed } from './domain/revocation/revocation-feed';
import { createJwtCodec } from './domain/tokens/jwt-codec';
import { createSigningKeyStore } from './domain/tokens/signing-key-store';
import { createRepos } from './storage/create-repos';
import { inTransaction } from './storage/db';
import { createSigningKeysRepo } from './storage/signing-keys.repo';

/** Wires the protocol core from its dependencies. Keys load lazily via `ctx.keys.ensure()` at start. */
export function buildAuthContext(deps: {
  config: AuthConfig;
  pool: Pool;
  logger: Logger;
  cache: IntrospectionCache;
  /** Default: this process only (no fan-out). */
  revocations?: RevocationFeed;
}): AuthContext {
  const { config, pool, logger, cache } = deps;
  const keys = createSigningKeyStore(
    createSigningKeysRepo(pool),
    createKeyEncryption(config.TOKEN_SIGNING_SECRET),
  );
  return {
    config,
    logger,
    repos: createRepos(pool),
    transaction: (work) => inTransaction(pool, (db) => work(createRepos(db))),
    hasher: createSecretHasher(config.TOKEN_SIGNING_SECRET),
    jwt: createJwtCodec({ issuer: config.ISSUER, hsKey: deriveHs256Key(config.TOKEN_SIGNING_SECRET), keys }),
    keys,
    cache,
    revocations: deps.revocations ?? createLocalRevocationFeed(),
    audit: createAudit(logger),
  };
}
