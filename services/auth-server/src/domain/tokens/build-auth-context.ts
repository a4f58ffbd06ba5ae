import type { Pool } from 'pg';
import type { Logger } from '@acme/common';
import type { AuthConfig } from '../../config';
import type { IntrospectionCache } from '../../storage/introspection-cache.store';
import { createSigningKeysRepo } from '../../storage/signing-keys.repo';
import { createAudit } from '../audit';
import { createLocalRevocationFeed, type RevocationFeed } from '../revocation/revocation-feed';
import { createRepos, type AuthContext } from '../auth-context';
import { createKeyEncryption } from '../crypto/key-encryption';
import { createSecretHasher, deriveHs256Key } from '../crypto/secret-hasher';
import { createJwtCodec } from './jwt-codec';
import { createSigningKeyStore } from './signing-key-store';

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
    pool,
    logger,
    repos: createRepos(pool),
    hasher: createSecretHasher(config.TOKEN_SIGNING_SECRET),
    jwt: createJwtCodec({ issuer: config.ISSUER, hsKey: deriveHs256Key(config.TOKEN_SIGNING_SECRET), keys }),
    keys,
    cache,
    revocations: deps.revocations ?? createLocalRevocationFeed(),
    audit: createAudit(logger),
  };
}
