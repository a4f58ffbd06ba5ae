import express, { Router, type Request, type Response } from 'express';
import { describeScopes } from '../domain/consent/describe-scopes';
import { formatUserCode, normalizeUserCode } from '../domain/device/user-code';
import { answerThrottled } from './answer-throttled';
import { auditPageEvent, clientIp } from './page-audit';
import type { PageContext } from './page-context';
import { formField } from './page-form';
import { pageLogo } from './page-logo';
import { PageError } from './page-error';
import type { PageSession } from './session-manager';
import { renderConsent } from './views/consent.view';
import { renderDeviceDone, renderDeviceEntry } from './views/device.view';
import { renderLogin } from './views/login.view';

/**
 * GET and POST /device, RFC 8628's verification_uri. The user signs in (the login page, back here after),
 * enters the code (prefilled from verification_uri_complete, §3.3.1), sees the consent page with the code
 * to compare with the device (§5.4), and allows or denies. Only POSTs look a code up: each carries the
 * CSRF token, and a wrong code counts against the user and the address (device-code-throttle.ts, §5.1).
 * Consent is always asked, never remembered: the person must check the device in front of them.
 */
export function deviceRoute(ctx: PageContext): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  router.get('/device', async (req, res) => {
    const typed = typeof req.query.user_code === 'string' ? req.query.user_code : '';
    const userCode = normalizeUserCode(typed);
    const shown = userCode === undefined ? undefined : formatUserCode(userCode);
    const session = await ctx.sessions.current(req);
    if (!session) return signIn(ctx, req, res, shown);
    res
      .status(200)
      .type('html')
      .send(
        renderDeviceEntry({
          chrome: ctx.chrome(req),
          csrfToken: ctx.csrf.token(req, res),
          username: session.username,
          ...(shown ? { userCode: shown } : {}),
        }),
      );
  });

  router.post('/device', form, ctx.csrf.require(), async (req, res) => {
    const userCode = normalizeUserCode(formField(req, 'user_code') ?? '');
    const session = await ctx.sessions.current(req);
    if (!session) {
      const query = userCode ? `?${new URLSearchParams({ user_code: formatUserCode(userCode) })}` : '';
      return res.redirect(303, `/device${query}`);
    }
    const again = (status: number, error: string, typed?: string) =>
      res
        .status(status)
        .type('html')
        .send(
          renderDeviceEntry({
            chrome: ctx.chrome(req),
            csrfToken: ctx.csrf.token(req, res),
            username: session.username,
            error,
            ...(typed ? { userCode: typed } : {}),
          }),
        );
    // A malformed entry is a typo, not a guess: no lookup, nothing counted.
    if (!userCode)
      return again(400, ctx.chrome(req).i18n.t('Enter the 8-letter code your device shows, like BCDF-GHJK.'));
    const shown = formatUserCode(userCode);
    const ip = clientIp(req);
    const wait = await ctx.deviceThrottle.retryAfter(session.userId, ip);
    if (wait > 0) {
      const error = ctx
        .chrome(req)
        .i18n.t('Too many wrong codes. Try again in {seconds} seconds.', { seconds: wait });
      const fields = { userId: session.userId };
      return answerThrottled(
        ctx.logger,
        req,
        res,
        { event: 'device.throttled', fields, wait, error },
        (status, message) => again(status, message, shown),
      );
    }
    const unknown = async () => {
      await ctx.deviceThrottle.recordFailure(session.userId, ip);
      auditPageEvent(ctx.logger, req, 'device.code_failure', { userId: session.userId });
      return again(
        400,
        ctx.chrome(req).i18n.t('That code is not valid, or it has expired. Check the code on your device.'),
        shown,
      );
    };
    const decision = formField(req, 'decision');
    if (decision === undefined) {
      const request = await ctx.deviceFlow.find(userCode);
      if (!request) return unknown();
      return res
        .status(200)
        .type('html')
        .send(
          renderConsent({
            chrome: ctx.chrome(req),
            csrfToken: ctx.csrf.token(req, res),
            clientName: request.clientName,
            clientId: request.clientId,
            scopes: describeScopes(request.scopes),
            username: session.username,
            userCode: request.userCode,
            ...(await pageLogo(ctx, res, request.clientId)),
          }),
        );
    }
    if (decision !== 'allow' && decision !== 'deny')
      throw new PageError(400, 'Bad request', 'Choose Allow or Deny.', 'invalid_request');
    return decide(ctx, req, res, session, userCode, decision === 'allow', unknown);
  });
  return router;
}

async function decide(
  ctx: PageContext,
  req: Request,
  res: Response,
  session: PageSession,
  userCode: string,
  allow: boolean,
  unknown: () => Promise<unknown>,
): Promise<unknown> {
  const request = await ctx.deviceFlow.find(userCode);
  const user = {
    userId: session.userId,
    authTime: session.authTime,
    authentication: session.authentication,
  };
  const done =
    request &&
    (allow ? await ctx.deviceFlow.approve(userCode, user) : await ctx.deviceFlow.deny(userCode, user));
  if (!request || !done) return unknown();
  auditPageEvent(ctx.logger, req, allow ? 'device.approved' : 'device.denied', {
    userId: session.userId,
    clientId: request.clientId,
    scopes: request.scopes,
  });
  return res
    .status(200)
    .type('html')
    .send(
      renderDeviceDone({
        chrome: ctx.chrome(req),
        approved: allow,
        clientName: request.clientName,
        ...(allow ? await pageLogo(ctx, res, request.clientId) : {}),
      }),
    );
}

/** The login page, coming back to this page (and its code) once signed in. */
function signIn(ctx: PageContext, req: Request, res: Response, userCode: string | undefined): void {
  const returnTo = userCode ? `/device?${new URLSearchParams({ user_code: userCode })}` : '/device';
  res
    .status(200)
    .type('html')
    .send(renderLogin({ chrome: ctx.chrome(req), csrfToken: ctx.csrf.token(req, res), returnTo }));
}
