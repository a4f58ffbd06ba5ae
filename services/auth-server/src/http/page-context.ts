import type { Logger } from '@acme/common';
import type { AuthConfig } from '../config';
import type { AuthorizationFlow } from '../domain/authorize/authorization-flow';
import type { GrantRevoker } from '../domain/consent/grant-revoker';
import type { LoginUserStore } from '../domain/users/check-login';
import type { AccountGrantsRepo } from '../storage/account-grants.repo';
import type { ConsentsRepo } from '../storage/consents.repo';
import type { Csrf } from './csrf';
import type { LoginThrottle } from './login-throttle';
import type { SessionManager } from './session-manager';

/** What the login, consent, account and /authorize routes share. */
export interface PageContext {
  config: AuthConfig;
  logger: Logger;
  flow: AuthorizationFlow;
  sessions: SessionManager;
  csrf: Csrf;
  throttle: LoginThrottle;
  users: LoginUserStore;
  consents: ConsentsRepo;
  accountGrants: AccountGrantsRepo;
  grantRevoker: GrantRevoker;
  clock: () => Date;
}
