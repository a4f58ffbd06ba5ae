import type { Request } from 'express';
import type { Logger } from '@acme/common';
import type { AuthConfig } from '../config';
import type { AuthorizationFlow } from '../domain/authorize/authorization-flow';
import type { GrantRevoker } from '../domain/consent/grant-revoker';
import type { DeviceFlow } from '../domain/device/device-flow';
import type { LoginUserStore } from '../domain/users/check-login';
import type { PasswordUpdater } from '../domain/users/change-password';
import type { AccountGrantsRepo } from '../domain/consent/authorized-app';
import type { LogoutService } from '../domain/logout/logout-service';
import type { ConsentsRepo } from '../domain/consent/consents-repo';
import type { PageLogo } from '../domain/clients/client-logo';
import type { Csrf } from './csrf';
import type { DeviceCodeThrottle } from './device-code-throttle';
import type { LoginThrottle } from './login-throttle';
import type { MfaPages } from './mfa-pages';
import type { PasskeyPageContext } from './passkey-page-context';
import type { SessionManager } from './session-manager';
import type { PageChrome } from './views/layout.view';

/** What the login, consent, account, /authorize and /device routes share. */
export interface PageContext {
  config: AuthConfig;
  logger: Logger;
  flow: AuthorizationFlow;
  sessions: SessionManager;
  csrf: Csrf;
  throttle: LoginThrottle;
  deviceFlow: DeviceFlow;
  /** Wrong user codes on /device (RFC 8628 §5.1). */
  deviceThrottle: DeviceCodeThrottle;
  users: LoginUserStore & PasswordUpdater;
  consents: ConsentsRepo;
  accountGrants: AccountGrantsRepo;
  grantRevoker: GrantRevoker;
  /** RP-Initiated Logout's hint and client checks; back-channel logout of ended sessions. */
  logout: LogoutService;
  clock: () => Date;
  /** TOTP, the second-factor step and its throttle (docs/FLOWS.md#multi-factor-sign-in). */
  mfa: MfaPages;
  /** Passkeys: the ceremonies, their keys, the failed-assertion throttle (passkey-page-context.ts);
   *  undefined on an issuer whose host is an IP address. */
  passkeys?: PasskeyPageContext;
  /** The page's language, brand and stylesheets for this request (`uiLocales`: the parsed request's). */
  chrome: (req: Request, uiLocales?: string) => PageChrome;
  /** The logo the sign-in and consent pages show for a client (uploaded, else an allowed logo_uri). */
  clientLogo: (clientId: string) => Promise<PageLogo | undefined>;
}
