import type { Pool } from 'pg';
import type { Logger } from '@acme/common';
import type { AuthConfig } from '../config';
import type { SecretHasher } from './crypto/secret-hasher';
import type { JwtCodec } from './tokens/jwt-codec';
import type { SigningKeyStore } from './tokens/signing-key-store';
import type { Audit } from './audit';
import type { RevocationFeed } from './revocation/revocation-feed';
import type { IntrospectionCache } from '../storage/introspection-cache.store';
import { createClientsRepo } from '../storage/clients.repo';
import { createResourceServersRepo } from '../storage/resource-servers.repo';
import { createUsersRepo } from '../storage/users.repo';
import { createGrantsRepo } from '../storage/grants.repo';
import { createAuthorizationCodesRepo } from '../storage/authorization-codes.repo';
import { createTokensRepo } from '../storage/tokens.repo';
import { createRefreshReplaysRepo } from '../storage/refresh-replays.repo';
import type { Queryable } from '../storage/db';

export function createRepos(db: Queryable) {
  return {
    clients: createClientsRepo(db),
    resourceServers: createResourceServersRepo(db),
    users: createUsersRepo(db),
    grants: createGrantsRepo(db),
    codes: createAuthorizationCodesRepo(db),
    tokens: createTokensRepo(db),
    refreshReplays: createRefreshReplaysRepo(db),
  };
}
export type Repos = ReturnType<typeof createRepos>;

/** Everything the protocol core needs, built once in createApp and passed down (no globals). */
export interface AuthContext {
  config: AuthConfig;
  pool: Pool;
  logger: Logger;
  repos: Repos;
  hasher: SecretHasher;
  jwt: JwtCodec;
  keys: SigningKeyStore;
  cache: IntrospectionCache;
  /** Revocation events for /revocations/stream, fanned out to every instance. */
  revocations: RevocationFeed;
  audit: Audit;
}
