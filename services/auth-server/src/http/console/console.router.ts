import express, { Router, type RequestHandler } from 'express';
import { ADMIN_ROLE } from '../../domain/admin/admin-actor';
import { recordAdminEvent } from '../../domain/admin/audit-events';
import { checkLogin } from '../../domain/users/check-login';
import { createCsrf } from '../csrf';
import { auditPageEvent, clientIp } from '../page-audit';
import type { PageContext } from '../page-context';
import { PageError, pageErrorHandler } from '../page-error';
import { pageHeaders } from '../page-headers';
import { consoleAuditRoute } from './console-audit.route';
import { consoleClientsRoute } from './console-clients.route';
import type { ConsoleContext, ConsoleDeps } from './console-context';
import { field } from './console-form';
import { frameOf, type ConsoleHandlers } from './console-frame';
import { consoleGrantsRoute } from './console-grants.route';
import { renderConsoleHome } from './console-home.view';
import { consoleKeysRoute } from './console-keys.route';
import { renderConsoleLogin } from './console-login.view';
import { CONSOLE_HOME, CONSOLE_PREFIX, isConsolePath } from './console-paths';
import { consoleResourceServersRoute } from './console-resource-servers.route';
import { createConsoleSessionManager, deriveConsoleKeys } from './console-session';
import { consoleUsersRoute } from './console-users.route';

const LOGIN = `${CONSOLE_PREFIX}/login`;

/**
 * The admin console: GET /admin and /admin/console/…, server-rendered with the pages' layout and headers
 * (CSP, frame-ancestors 'none', no-store). Its own session (console-session.ts) and sign-in page, the
 * pages' login throttle, CSRF on every POST bound to the console session. Every action calls the same
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
    ready: deps.ready,
  };
  const guard: RequestHandler = async (req, res, next) => {
    if (await sessions.current(req)) return next();
    res.redirect(303, LOGIN);
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
  const loginStore = {
    findByUsername: (username: string) => deps.auth.repos.admin.findLoginWithRole(username, ADMIN_ROLE),
  };

  const router = Router();
  const headers = pageHeaders();
  // The pages' headers on the console's paths only: the JSON admin API's answers stay as they were.
  router.use(CONSOLE_HOME, (req, res, next) =>
    isConsolePath(req.originalUrl) ? headers(req, res, next) : next(),
  );

  router.get(LOGIN, async (req, res) => {
    if (await sessions.current(req)) return res.redirect(303, CONSOLE_HOME);
    res
      .type('html')
      .send(renderConsoleLogin({ chrome: page.chrome(req), csrfToken: cc.csrf.token(req, res) }));
  });

  // The pages' login throttle (same counters: a guess here is a guess there). A user without the admin
  // role is "not found" to this store, so it gets the wrong-password answer after the same argon2 cost.
  router.post(LOGIN, handlers.form, async (req, res) => {
    const { t } = page.chrome(req).i18n;
    const username = field(req, 'username') ?? '';
    const password = typeof req.body?.password === 'string' ? (req.body.password as string) : '';
    const again = (status: number, error: string) =>
      res
        .status(status)
        .type('html')
        .send(
          renderConsoleLogin({
            chrome: page.chrome(req),
            csrfToken: cc.csrf.token(req, res),
            username,
            error,
          }),
        );
    if (!username || !password) return again(400, t('Enter your username and password.'));
    const ip = clientIp(req);
    const wait = await page.throttle.retryAfter(username, ip);
    if (wait > 0) {
      auditPageEvent(page.logger, req, 'login.throttled', {
        username,
        console: 'admin',
        retryAfterSeconds: wait,
      });
      res.set('Retry-After', String(wait));
      return again(
        429,
        t('Too many failed sign-in attempts. Try again in {seconds} seconds.', { seconds: wait }),
      );
    }
    const user = await checkLogin(loginStore, username, password);
    if (!user) {
      await page.throttle.recordFailure(username, ip);
      auditPageEvent(page.logger, req, 'login.failure', { username, console: 'admin' });
      return again(400, t('Incorrect username or password.'));
    }
    await page.throttle.recordSuccess(username, ip);
    await sessions.start(req, res, user);
    await recordAdminEvent(
      deps.auth,
      { kind: 'user', userId: user.userId, username: user.username, sourceIp: ip },
      'console.sign_in',
      { type: 'console' },
    );
    res.redirect(303, CONSOLE_HOME);
  });

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
    res.redirect(303, LOGIN);
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
