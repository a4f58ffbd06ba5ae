import express, { Router, type RequestHandler } from 'express';
import { recordAdminEvent } from '../../domain/admin/audit-events';
import { createCsrf } from '../csrf';
import { createMfaChallengeManager } from '../mfa-challenge-manager';
import { clientIp } from '../page-audit';
import type { PageContext } from '../page-context';
import { PageError, pageErrorHandler } from '../page-error';
import { pageHeaders } from '../page-headers';
import { consoleAuditRoute } from './console-audit.route';
import { consoleClientsRoute } from './console-clients.route';
import type { ConsoleContext, ConsoleDeps } from './console-context';
import { frameOf, type ConsoleHandlers } from './console-frame';
import { consoleGrantsRoute } from './console-grants.route';
import { renderConsoleHome } from './console-home.view';
import { consoleKeysRoute } from './console-keys.route';
import { consoleLoginRoute } from './console-login.route';
import { consolePasskeyLoginRoute } from './console-passkey-login.route';
import { CONSOLE_HOME, CONSOLE_LOGIN, CONSOLE_PREFIX, isConsolePath } from './console-paths';
import { consoleResourceServersRoute } from './console-resource-servers.route';
import { consoleSecondFactorRoute } from './console-second-factor.route';
import {
  consoleCookieName,
  consoleCookieOptions,
  createConsoleSessionManager,
  deriveConsoleKeys,
} from './console-session';
import { consoleUsersRoute } from './console-users.route';

/**
 * The admin console: GET /admin and /admin/console/…, server-rendered with the pages' layout and headers
 * (CSP, frame-ancestors 'none', no-store). Its own session (console-session.ts) and sign-in (password,
 * its own second-factor step, passkeys), CSRF on every POST bound to the console session. Every action calls the same
 * domain/admin/ function as the JSON admin API, which records the audit event.
 */
export function consoleRouter(page: PageContext, deps: ConsoleDeps): Router {
  const { config } = page;
  const sessions = createConsoleSessionManager({
    repo: deps.sessions,
    secret: config.TOKEN_SIGNING_SECRET,
    issuer: config.ISSUER,
    idleSeconds: config.ADMIN_CONSOLE_IDLE_SECONDS,
    ttlSeconds: config.ADMIN_CONSOLE_TTL_SECONDS,
    requireMfa: config.ADMIN_CONSOLE_REQUIRE_MFA,
    clock: page.clock,
  });
  const cc: ConsoleContext = {
    page,
    auth: deps.auth,
    sessions,
    csrf: createCsrf({
      key: deriveConsoleKeys(config.TOKEN_SIGNING_SECRET).csrf,
      issuer: config.ISSUER,
      sessionCookie: sessions.cookieName,
    }),
    challenges: createMfaChallengeManager({
      repo: deps.mfaChallenges,
      secret: config.TOKEN_SIGNING_SECRET,
      issuer: config.ISSUER,
      clock: page.clock,
      console: {
        cookieName: consoleCookieName('auth_admin_mfa', config.ISSUER),
        cookieOptions: consoleCookieOptions(config.ISSUER),
      },
    }),
    ready: deps.ready,
  };
  const guard: RequestHandler = async (req, res, next) => {
    if (await sessions.current(req)) return next();
    res.redirect(303, CONSOLE_LOGIN);
  };
  const parse = express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 200 });
  const checkCsrf = cc.csrf.require();
  const handlers: ConsoleHandlers = {
    form: (req, res, next) => {
      parse(req, res, (error?: unknown) => {
        if (error) return next(error);
        try {
          checkCsrf(req, res, next);
        } catch (refused) {
          next(refused);
        }
      });
    },
    guard,
  };
  const router = Router();
  const headers = pageHeaders();
  // The pages' headers on the console's paths only: the JSON admin API's answers stay as they were.
  router.use(CONSOLE_HOME, (req, res, next) =>
    isConsolePath(req.originalUrl) ? headers(req, res, next) : next(),
  );

  router.use(consoleLoginRoute(cc, handlers));
  router.use(consoleSecondFactorRoute(cc, handlers));
  if (page.passkeys) router.use(consolePasskeyLoginRoute(cc, page.passkeys));

  router.post(`${CONSOLE_PREFIX}/logout`, handlers.form, async (req, res) => {
    const session = await sessions.current(req);
    await sessions.end(req, res);
    if (session)
      await recordAdminEvent(
        deps.auth,
        { kind: 'user', userId: session.userId, username: session.username, sourceIp: clientIp(req) },
        'console.sign_out',
        { type: 'console' },
      );
    res.redirect(303, CONSOLE_LOGIN);
  });

  router.get([CONSOLE_HOME, `${CONSOLE_HOME}/`, CONSOLE_PREFIX], guard, async (req, res) => {
    const [clients, resourceServers] = await Promise.all([
      deps.auth.repos.clients.list(),
      deps.auth.repos.resourceServers.list(),
    ]);
    res.type('html').send(
      renderConsoleHome(await frameOf(cc, req, res, 'home'), {
        clients: clients.length,
        resourceServers: resourceServers.length,
      }),
    );
  });

  router.use(consoleClientsRoute(cc, handlers));
  router.use(consoleResourceServersRoute(cc, handlers));
  router.use(consoleUsersRoute(cc, handlers));
  router.use(consoleGrantsRoute(cc, handlers));
  router.use(consoleKeysRoute(cc, handlers));
  router.use(consoleAuditRoute(cc, handlers));
  router.use(CONSOLE_PREFIX, () => {
    throw new PageError(404, 'Not found', 'There is no such page in the admin console.', 'not_found');
  });
  router.use([CONSOLE_HOME, CONSOLE_PREFIX], pageErrorHandler(page.logger, page.chrome));
  return router;
}
