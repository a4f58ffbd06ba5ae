import type { Logger } from '@acme/common';
import type { PasskeysRepo } from './passkeys/passkey';
import type { AuthConfig } from '../config';
import type { SecretHasher } from './crypto/secret-hasher';
import type { JwtCodec } from './tokens/jwt-codec';
import type { SigningKeyStore } from './tokens/signing-key-store';
import type { Audit } from './audit';
import type { RevocationFeed } from './revocation/revocation-feed';
import type { IntrospectionCache } from './introspection/introspection-cache';
import type { ClientsRepo } from './clients/client';
import type { ResourceServersRepo } from './clients/resource-server';
import type { UsersRepo } from './users/user';
import type { GrantsRepo } from './grants/grant';
import type { AuthorizationCodesRepo } from './grants/authorization-code';
import type { RefreshReplaysRepo } from './grants/refresh-replays-repo';
import type { TokensRepo } from './tokens/token-record';
import type { DeviceAuthorizationsRepo } from './device/device-authorization';
import type { PushedRequestsRepo } from './authorize/pushed-request';
import type { ClientRegistrationsRepo } from './clients/client-registration';
import type { RecoveryCodesRepo, TotpRepo } from './mfa/totp-repo';
import type { AdminRepo } from './admin/admin-repo';
import type { AuditEventsRepo } from './admin/audit-event';
import type { ClientLogosRepo } from './clients/client-logo';

/** The repositories of the protocol core: domain-owned interfaces, implemented in storage/. */
export interface Repos {
  clients: ClientsRepo;
  resourceServers: ResourceServersRepo;
  users: UsersRepo;
  grants: GrantsRepo;
  codes: AuthorizationCodesRepo;
  tokens: TokensRepo;
  refreshReplays: RefreshReplaysRepo;
  deviceAuthorizations: DeviceAuthorizationsRepo;
  pushedRequests: PushedRequestsRepo;
  registrations: ClientRegistrationsRepo;
  /** TOTP second factor and recovery codes (migration 0016). */
  totp: TotpRepo;
  recoveryCodes: RecoveryCodesRepo;
  /** The admin console's and admin API's reads and writes beyond the protocol repos (0019). */
  admin: AdminRepo;
  auditEvents: AuditEventsRepo;
  clientLogos: ClientLogosRepo;
  /** Passkeys (migration 0017). */
  passkeys: PasskeysRepo;
}

/** Everything the protocol core needs, built once in createApp and passed down (no globals). */
export interface AuthContext {
  config: AuthConfig;
  logger: Logger;
  repos: Repos;
  /** Runs `work` in one database transaction, with repos bound to it; commits when it resolves. */
  transaction<T>(work: (repos: Repos) => Promise<T>): Promise<T>;
  hasher: SecretHasher;
  jwt: JwtCodec;
  keys: SigningKeyStore;
  cache: IntrospectionCache;
  /** Revocation events for /revocations/stream, fanned out to every instance. */
  revocations: RevocationFeed;
  audit: Audit;
}
