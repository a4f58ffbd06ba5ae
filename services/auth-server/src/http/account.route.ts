import express, { Router } from 'express';
import { describeScopes } from '../domain/consent/describe-scopes';
import { revokeAuthorizedApp } from '../domain/consent/revoke-authorized-app';
import { auditPageEvent } from './page-audit';
import type { PageContext } from './page-context';
import { PageError } from './page-error';
import { formField } from './page-form';
import { renderAccount } from './views/account.view';

/**
 * GET /account lists the apps the signed-in user authorized; POST /account/revoke revokes one: its grants
 * (and so every token issued under them) and the remembered consent. POST /account/sign-out-everywhere
 * ends every browser session of the user and tells the apps of those sessions (back-channel logout).
 */
export function accountRoute(ctx: PageContext): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  router.get('/account', async (req, res) => {
    const session = await ctx.sessions.current(req);
    if (!session) return res.redirect(303, '/login?return_to=%2Faccount');
    const apps = await ctx.accountGrants.listAuthorizedApps(session.userId);
    res
      .status(200)
      .type('html')
      .send(
        renderAccount({
          chrome: ctx.chrome(req),
          csrfToken: ctx.csrf.token(req, res),
          username: session.username,
          apps: apps.map((app) => ({ ...app, scopes: describeScopes(app.scopes) })),
          ...(req.query.revoked === '1' ? { notice: ctx.chrome(req).i18n.t('Access revoked.') } : {}),
        }),
      );
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
  return router;
}
