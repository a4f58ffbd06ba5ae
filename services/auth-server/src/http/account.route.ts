import express, { Router } from 'express';
import { revokeAuthorizedApp } from '../domain/consent/revoke-authorized-app';
import { auditPageEvent } from './page-audit';
import type { PageContext } from './page-context';
import { PageError } from './page-error';
import { formField } from './page-form';
import { sendAccountPage } from './account-page';
import { accountPasswordRoute } from './account-password.route';
import { accountSessionsRoute } from './account-sessions.route';

/**
 * GET /account lists the apps the signed-in user authorized; POST /account/revoke revokes one: its grants
 * (and so every token issued under them) and the remembered consent. POST /account/sign-out-everywhere
 * ends every browser session of the user and tells the apps of those sessions (back-channel logout).
 * Password change (account-password.route.ts) and ending one session (account-sessions.route.ts) too.
 */
export function accountRoute(ctx: PageContext): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  router.get('/account', async (req, res) => {
    const session = await ctx.sessions.current(req);
    if (!session) return res.redirect(303, '/login?return_to=%2Faccount');
    const { t } = ctx.chrome(req).i18n;
    // The notices after a POST's 303 (Post/Redirect/Get); fixed words, nothing from the query is shown.
    const notice =
      req.query.revoked === '1'
        ? t('Access revoked.')
        : req.query.password === 'changed'
          ? t('Your password was changed. Your other sessions were signed out.')
          : req.query.ended === '1'
            ? t('Session ended.')
            : undefined;
    await sendAccountPage(ctx, req, res, session, notice ? { notice } : {});
  });

  router.post('/account/revoke', form, ctx.csrf.require(), async (req, res) => {
    const session = await ctx.sessions.current(req);
    if (!session) return res.redirect(303, '/login?return_to=%2Faccount');
    const clientId = formField(req, 'client_id');
    if (!clientId) throw new PageError(400, 'Bad request', 'No app was chosen.', 'invalid_request');
    const result = await revokeAuthorizedApp(
      { store: ctx.accountGrants, revoker: ctx.grantRevoker },
      session.userId,
      clientId,
    );
    auditPageEvent(ctx.logger, req, 'grant.revoked', {
      userId: session.userId,
      clientId,
      grantsRevoked: result.grantsRevoked,
    });
    res.redirect(303, '/account?revoked=1');
  });

  router.post('/account/sign-out-everywhere', form, ctx.csrf.require(), async (req, res) => {
    const session = await ctx.sessions.current(req);
    if (!session) return res.redirect(303, '/login?return_to=%2Faccount');
    const sids = await ctx.sessions.endAll(req, res, session.userId);
    const notified = await ctx.logout.sessionsEnded(session.userId, sids);
    auditPageEvent(ctx.logger, req, 'logout.everywhere', {
      userId: session.userId,
      sessions: sids.length,
      backchannelLogouts: notified,
    });
    res.redirect(303, '/login');
  });
  router.use(accountPasswordRoute(ctx));
  router.use(accountSessionsRoute(ctx));
  return router;
}
