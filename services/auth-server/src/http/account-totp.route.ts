import express, { Router, type Request, type Response } from 'express';
import QRCode from 'qrcode';
import { totpUri } from '../domain/mfa/totp-code';
import { checkLogin } from '../domain/users/check-login';
import { auditPageEvent, clientIp } from './page-audit';
import type { PageContext } from './page-context';
import { formField } from './page-form';
import type { PageSession } from './session-manager';
import { renderAccountTotp, type AccountTotpView } from './views/account-totp.view';

const SIGN_IN = '/login?return_to=%2Faccount';

/**
 * The account page's authenticator app (RFC 6238): start (a secret made here, sealed at rest), the QR code
 * (SVG rendered by us, same origin, no-store: it carries the secret), activation with a valid code (then 10
 * recovery codes, shown once), and turning it off with a current code or the password (both throttled as
 * the second step is). Every form is CSRF-protected.
 */
export function accountTotpRoute(ctx: PageContext): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  async function show(
    req: Request,
    res: Response,
    session: PageSession,
    extra: Partial<AccountTotpView> = {},
    status = 200,
  ) {
    const current = await ctx.mfa.totp.status(session.userId);
    res
      .status(status)
      .type('html')
      .send(
        renderAccountTotp({
          chrome: ctx.chrome(req),
          csrfToken: ctx.csrf.token(req, res),
          state: current.enabled ? 'on' : current.pendingSecret ? 'pending' : 'off',
          ...(current.pendingSecret ? { secret: current.pendingSecret } : {}),
          recoveryCodesLeft: current.recoveryCodesLeft,
          ...extra,
        }),
      );
  }

  router.get('/account/totp', async (req, res) => {
    const session = await ctx.sessions.current(req);
    if (!session) return res.redirect(303, SIGN_IN);
    const { t } = ctx.chrome(req).i18n;
    return show(
      req,
      res,
      session,
      req.query.disabled === '1' ? { notice: t('Two-step verification is off.') } : {},
    );
  });

  router.get('/account/totp/qr.svg', async (req, res) => {
    const session = await ctx.sessions.current(req);
    const secret = session && (await ctx.mfa.totp.status(session.userId)).pendingSecret;
    if (!session || !secret) return res.status(404).type('text/plain').send('not found');
    const issuer = ctx.chrome(req).brand || new URL(ctx.config.ISSUER).host;
    const svg = await QRCode.toString(totpUri(issuer, session.username, secret), {
      type: 'svg',
      errorCorrectionLevel: 'M',
      margin: 2,
    });
    return res.status(200).type('image/svg+xml').send(svg);
  });

  router.post('/account/totp/start', form, ctx.csrf.require(), async (req, res) => {
    const session = await ctx.sessions.current(req);
    if (!session) return res.redirect(303, SIGN_IN);
    await ctx.mfa.totp.startEnrolment(session.userId);
    return res.redirect(303, '/account/totp');
  });

  router.post('/account/totp/activate', form, ctx.csrf.require(), async (req, res) => {
    const session = await ctx.sessions.current(req);
    if (!session) return res.redirect(303, SIGN_IN);
    const codes = await ctx.mfa.totp.activate(session.userId, formField(req, 'code') ?? '');
    if (!codes)
      return show(
        req,
        res,
        session,
        { error: ctx.chrome(req).i18n.t('That code is not valid. Try again.') },
        400,
      );
    auditPageEvent(ctx.logger, req, 'totp.enrolled', { userId: session.userId });
    return show(req, res, session, { recoveryCodes: codes });
  });

  router.post('/account/totp/disable', form, ctx.csrf.require(), async (req, res) => {
    const session = await ctx.sessions.current(req);
    if (!session) return res.redirect(303, SIGN_IN);
    const { t } = ctx.chrome(req).i18n;
    const input = formField(req, 'code') ?? '';
    const ip = clientIp(req);
    const wait = await ctx.mfa.throttle.retryAfter(session.userId, ip);
    if (wait > 0) {
      res.set('Retry-After', String(wait));
      return show(
        req,
        res,
        session,
        { error: t('Too many wrong codes. Try again in {seconds} seconds.', { seconds: wait }) },
        429,
      );
    }
    // A current code, or the password: whoever holds only the open session (a borrowed laptop) can do neither.
    const proven = /^\s*\d{6}\s*$/.test(input)
      ? await ctx.mfa.totp.acceptCode(session.userId, input)
      : (await checkLogin(ctx.users, session.username, input)) !== null;
    if (!proven) {
      await ctx.mfa.throttle.recordFailure(session.userId, ip);
      auditPageEvent(ctx.logger, req, 'mfa.failure', { userId: session.userId, method: 'disable' });
      return show(req, res, session, { error: t('That code or password is not valid.') }, 400);
    }
    await ctx.mfa.totp.disable(session.userId);
    auditPageEvent(ctx.logger, req, 'totp.disabled', { userId: session.userId });
    return res.redirect(303, '/account/totp?disabled=1');
  });
  return router;
}
