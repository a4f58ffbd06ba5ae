import express, { Router, type Request, type Response } from 'express';
import { PASSWORD_AUTHENTICATION } from '../domain/sessions/authentication-methods';
import { checkLogin } from '../domain/users/check-login';
import { answerThrottled } from './answer-throttled';
import { fromQueryString, LOGIN_MARK_PARAM, parseReturnTo, toQueryString } from './authorize-params';
import { auditPageEvent, clientIp } from './page-audit';
import type { PageContext } from './page-context';
import { formField } from './page-form';
import { loginClientOf } from './login-client';
import { renderLogin } from './views/login.view';

/**
 * GET/POST /login and POST /logout. A successful login answers 303 (RFC 9700 §4.12: never 307, which
 * would replay the credentials to the next hop). Failures delay that account at that address, and the address
 * (login-throttle.ts); the owner elsewhere is never delayed.
 */
export function loginRoute(ctx: PageContext): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  router.get('/login', (req, res) => {
    const returnTo = parseReturnTo(typeof req.query.return_to === 'string' ? req.query.return_to : undefined);
    res
      .status(200)
      .type('html')
      .send(renderLogin({ chrome: ctx.chrome(req), csrfToken: ctx.csrf.token(req, res), returnTo }));
  });

  router.post('/login', form, ctx.csrf.require(), async (req, res) => {
    const username = (formField(req, 'username') ?? '').trim();
    const password = formField(req, 'password') ?? '';
    const returnTo = parseReturnTo(formField(req, 'return_to'));
    // Rendered again after an error with the application (name, logo) the first render showed.
    const again = async (status: number, error: string) =>
      res
        .status(status)
        .type('html')
        .send(
          renderLogin({
            chrome: ctx.chrome(req),
            csrfToken: ctx.csrf.token(req, res),
            returnTo,
            ...(await loginClientOf(ctx, res, returnTo)),
            username,
            error,
          }),
        );
    if (!username || !password)
      return again(400, ctx.chrome(req).i18n.t('Enter your username and password.'));

    const ip = clientIp(req);
    const wait = await ctx.throttle.retryAfter(username, ip);
    if (wait > 0) {
      const error = ctx
        .chrome(req)
        .i18n.t('Too many failed sign-in attempts. Try again in {seconds} seconds.', { seconds: wait });
      return answerThrottled(
        ctx.logger,
        req,
        res,
        { event: 'login.throttled', fields: { username }, wait, error },
        again,
      );
    }
    const user = await checkLogin(ctx.users, username, password);
    if (!user) {
      await ctx.throttle.recordFailure(username, ip);
      auditPageEvent(ctx.logger, req, 'login.failure', { username });
      return again(400, ctx.chrome(req).i18n.t('Incorrect username or password.'));
    }
    await ctx.throttle.recordSuccess(username, ip);
    // A user with a second factor owes it before the session exists (second-factor.route.ts).
    if ((await ctx.mfa.secondFactors(user.userId)).length > 0) {
      await ctx.mfa.challenges.start(req, res, {
        userId: user.userId,
        amr: ['pwd'],
        sessionHash: null,
        returnTo,
      });
      auditPageEvent(ctx.logger, req, 'login.password_ok', { userId: user.userId, username: user.username });
      return res.redirect(303, '/login/second-factor');
    }
    const session = await ctx.sessions.start(req, res, user, PASSWORD_AUTHENTICATION);
    auditPageEvent(ctx.logger, req, 'login.success', { userId: user.userId, username: user.username });
    res.redirect(303, continuation(returnTo, ctx.sessions.loginMark(session)));
  });

  router.post('/logout', form, ctx.csrf.require(), async (req: Request, res: Response) => {
    const ended = await ctx.sessions.end(req, res);
    if (ended) {
      const notified = await ctx.logout.sessionsEnded(ended.userId, [ended.sid]);
      auditPageEvent(ctx.logger, req, 'logout', { userId: ended.userId, backchannelLogouts: notified });
    }
    res.redirect(303, '/login');
  });
  return router;
}

/** The /authorize continuation carries the login mark so prompt=login and max_age do not loop. */
export function continuation(returnTo: string, mark: string): string {
  if (!returnTo.startsWith('/authorize?')) return returnTo;
  const { [LOGIN_MARK_PARAM]: _stale, ...params } = fromQueryString(returnTo.slice('/authorize?'.length));
  return `/authorize?${toQueryString({ ...params, [LOGIN_MARK_PARAM]: mark })}`;
}
