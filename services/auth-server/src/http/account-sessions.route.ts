import express, { Router } from 'express';
import { auditPageEvent } from './page-audit';
import type { PageContext } from './page-context';
import { PageError } from './page-error';
import { formField } from './page-form';

/**
 * POST /account/sessions/end: the signed-in user ends one of their OTHER sessions by its sid (the
 * account page lists them). Only a session of this user can be named; this browser's own is ended with
 * "Sign out". The apps of that session are told (OIDC Back-Channel Logout §2.5), as at any logout.
 */
export function accountSessionsRoute(ctx: PageContext): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  router.post('/account/sessions/end', form, ctx.csrf.require(), async (req, res) => {
    const session = await ctx.sessions.current(req);
    if (!session) return res.redirect(303, '/login?return_to=%2Faccount');
    const sid = formField(req, 'sid');
    if (!sid || sid.length > 128)
      throw new PageError(400, 'Bad request', 'No session was chosen.', 'invalid_request');
    if (sid === session.sid)
      throw new PageError(400, 'Bad request', 'To end this session, sign out.', 'invalid_request');
    if (!(await ctx.sessions.endOne(session.userId, sid)))
      throw new PageError(404, 'Session not found', 'That session has already ended.', 'not_found');
    const notified = await ctx.logout.sessionsEnded(session.userId, [sid]);
    auditPageEvent(ctx.logger, req, 'session.ended', {
      userId: session.userId,
      backchannelLogouts: notified,
    });
    res.redirect(303, '/account?ended=1');
  });
  return router;
}
