import { Router } from 'express';
import type { Redis } from 'ioredis';
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
import type { SessionsRepo } from '../domain/sessions/session';
import { pageLogoFor, type ClientLogosRepo } from '../domain/clients/client-logo';
import { clientLogoRoute } from './client-logo.route';
import { accountRoute } from './account.route';
import { authorizeRoute } from './authorize.route';
import { consentRoute } from './consent.route';
import { createCsrf } from './csrf';
import { createDeviceCodeThrottle } from './device-code-throttle';
import { deviceRoute } from './device.route';
import { END_SESSION_PATH, endSessionRoute } from './end-session.route';
import { createLoginThrottle } from './login-throttle';
import { loginRoute } from './login.route';
import { accountTotpRoute } from './account-totp.route';
import { createMfaPages, type MfaRepos } from './mfa-pages';
import { secondFactorRoute } from './second-factor.route';
import { createPasskeyPageContext, type PasskeyStores } from './passkey-page-context';
import { passkeyLoginRoute } from './passkey-login.route';
import { passkeysRoute } from './passkeys.route';
import type { PageContext } from './page-context';
import { pageErrorHandler } from './page-error';
import { pageHeaders } from './page-headers';
import { loadPageAssets } from './page-assets';
import { createPageChrome } from './page-chrome';
import { loadMessageCatalogue } from './i18n/message-catalogue';
import { derivePageKeys } from './session-keys';
import { createSessionManager } from './session-manager';
import type { ConsoleDeps } from './console/console-context';
import { consoleRouter } from './console/console.router';

export interface PagesDeps {
  config: AuthConfig;
  logger: Logger;
  redis?: Redis;
  users: LoginUserStore & PasswordUpdater;
  consents: ConsentsRepo;
  accountGrants: AccountGrantsRepo;
  sessions: SessionsRepo;
  authorizationFlow: AuthorizationFlow;
  /** The device authorization grant's side of /device (RFC 8628 §3.3). */
  deviceFlow: DeviceFlow;
  /** Revokes grants with their tokens and purges cached introspection answers. */
  grantRevoker: GrantRevoker;
  logout: LogoutService;
  /** TOTP, recovery codes and second-factor challenges (migration 0016). */
  mfa: MfaRepos;
  /** Client logos for the sign-in and consent pages (uploaded ones are served from here too). */
  clientLogos: ClientLogosRepo;
  /** The passkey tables (migration 0017). */
  passkeys: PasskeyStores;
  clock?: () => Date;
  /** Redis key prefix for the login throttle (tests keep apart with a unique one). */
  throttleKeyPrefix?: string;
  /** The admin console at /admin (http/console/); absent: no console. */
  console?: ConsoleDeps;
}

export const PAGE_PATHS = [
  '/authorize',
  '/login',
  '/logout',
  '/consent',
  '/account',
  '/device',
  END_SESSION_PATH,
];

/** The browser side: /authorize, /device, login, consent and account pages, with their headers and error page. */
export function createPagesRouter(deps: PagesDeps): Router {
  const { config } = deps;
  const keys = derivePageKeys(config.TOKEN_SIGNING_SECRET);
  const clock = deps.clock ?? (() => new Date());
  const assets = loadPageAssets(config.UI_THEME_CSS_FILE);
  const brand = config.UI_BRAND_NAME ?? new URL(config.ISSUER).host;
  const passkeys = createPasskeyPageContext({
    config,
    stores: deps.passkeys,
    brand,
    clock,
    ...(deps.redis ? { redis: deps.redis } : {}),
    ...(deps.throttleKeyPrefix ? { throttleKeyPrefix: deps.throttleKeyPrefix } : {}),
  });
  const chrome = createPageChrome(brand, assets, loadMessageCatalogue(), {
    passkeys: passkeys !== undefined,
  });
  const ctx: PageContext = {
    config,
    logger: deps.logger,
    flow: deps.authorizationFlow,
    sessions: createSessionManager({
      repo: deps.sessions,
      keys,
      issuer: config.ISSUER,
      ttlSeconds: config.SESSION_TTL_SECONDS,
      clock,
    }),
    csrf: createCsrf({ key: keys.csrf, issuer: config.ISSUER }),
    throttle: createLoginThrottle({
      ...(deps.redis ? { redis: deps.redis } : {}),
      ...(deps.throttleKeyPrefix ? { keyPrefix: deps.throttleKeyPrefix } : {}),
      maxFailuresPerAccount: config.LOGIN_MAX_FAILURES_PER_ACCOUNT,
      maxFailuresPerIp: config.LOGIN_MAX_FAILURES_PER_IP,
      windowSeconds: config.LOGIN_FAILURE_WINDOW_SECONDS,
    }),
    deviceFlow: deps.deviceFlow,
    // The login's limits, counted apart: a wrong user code is a guess like a wrong password.
    deviceThrottle: createDeviceCodeThrottle({
      ...(deps.redis ? { redis: deps.redis } : {}),
      ...(deps.throttleKeyPrefix ? { keyPrefix: `${deps.throttleKeyPrefix}:device` } : {}),
      maxFailuresPerUser: config.LOGIN_MAX_FAILURES_PER_ACCOUNT,
      maxFailuresPerIp: config.LOGIN_MAX_FAILURES_PER_IP,
      windowSeconds: config.LOGIN_FAILURE_WINDOW_SECONDS,
    }),
    users: deps.users,
    consents: deps.consents,
    accountGrants: deps.accountGrants,
    grantRevoker: deps.grantRevoker,
    logout: deps.logout,
    clock,
    chrome,
    mfa: createMfaPages({
      repos: deps.mfa,
      config,
      ...(deps.redis ? { redis: deps.redis } : {}),
      ...(deps.throttleKeyPrefix ? { throttleKeyPrefix: deps.throttleKeyPrefix } : {}),
      clock,
      passkeys: deps.passkeys.passkeys,
      passkeysUsable: passkeys !== undefined,
    }),
    clientLogo: async (clientId) =>
      pageLogoFor(clientId, await deps.clientLogos.findSource(clientId), config.UI_LOGO_ORIGINS),
    ...(passkeys ? { passkeys } : {}),
  };

  const router = Router();
  router.use(assets.router);
  router.use(clientLogoRoute(deps.clientLogos));
  router.use(PAGE_PATHS, pageHeaders());
  router.use(authorizeRoute(ctx));
  router.use(consentRoute(ctx));
  router.use(secondFactorRoute(ctx));
  router.use(loginRoute(ctx));
  router.use(accountTotpRoute(ctx));
  router.use(accountRoute(ctx));
  if (passkeys) router.use(passkeyLoginRoute(ctx, passkeys), passkeysRoute(ctx, passkeys));
  router.use(deviceRoute(ctx));
  router.use(endSessionRoute(ctx));
  if (deps.console) router.use(consoleRouter(ctx, deps.console));
  router.use(pageErrorHandler(deps.logger, chrome));
  return router;
}
