import type { Repos } from '../domain/auth-context';
import { createAdminRepo } from './admin.repo';
import { createAuditEventsRepo } from './audit-events.repo';
import { createAuthorizationCodesRepo } from './authorization-codes.repo';
import { createClientsRepo } from './clients.repo';
import { createClientRegistrationsRepo } from './client-registrations.repo';
import { createClientLogosRepo } from './client-logos.repo';
import { createDeviceAuthorizationsRepo } from './device-authorizations.repo';
import type { Queryable } from './db';
import { createGrantsRepo } from './grants.repo';
import { createRefreshReplaysRepo } from './refresh-replays.repo';
import { createPasskeysRepo } from './passkeys.repo';
import { createPushedRequestsRepo } from './pushed-authorization-requests.repo';
import { createResourceServersRepo } from './resource-servers.repo';
import { createTokensRepo } from './tokens.repo';
import { createUsersRepo } from './users.repo';
import { createRecoveryCodesRepo } from './recovery-codes.repo';
import { createTotpRepo } from './user-totp.repo';

/** The postgres implementations of the domain's repositories, on a pool or inside one transaction. */
export function createRepos(db: Queryable): Repos {
  return {
    clients: createClientsRepo(db),
    resourceServers: createResourceServersRepo(db),
    users: createUsersRepo(db),
    grants: createGrantsRepo(db),
    codes: createAuthorizationCodesRepo(db),
    tokens: createTokensRepo(db),
    refreshReplays: createRefreshReplaysRepo(db),
    deviceAuthorizations: createDeviceAuthorizationsRepo(db),
    pushedRequests: createPushedRequestsRepo(db),
    registrations: createClientRegistrationsRepo(db),
    passkeys: createPasskeysRepo(db),
    totp: createTotpRepo(db),
    recoveryCodes: createRecoveryCodesRepo(db),
    admin: createAdminRepo(db),
    auditEvents: createAuditEventsRepo(db),
    clientLogos: createClientLogosRepo(db),
  };
}
