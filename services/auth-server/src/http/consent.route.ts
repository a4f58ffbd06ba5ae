import express, { Router } from 'express';
import { requestedSubject } from '../domain/authorize/claims-request';
import { claimsToConsent } from '../domain/consent/claims-to-consent';
import { fromQueryString } from './authorize-params';
import { approveAndRedirect, parseOrAnswer, redirectWithError } from './authorize-outcome';
import { formField } from './page-form';
import { auditPageEvent } from './page-audit';
import type { PageContext } from './page-context';
import { PageError } from './page-error';

/**
 * POST /consent: the consent form's decision. The authorization request comes back in a hidden field and
 * is parsed afresh (nothing is trusted from the form but the decision); the session decides who approves.
 * Allow remembers the scopes for this user and client; deny sends access_denied (RFC 6749 §4.1.2.1).
 */
export function consentRoute(ctx: PageContext): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  router.post('/consent', form, ctx.csrf.require(), async (req, res) => {
    const query = formField(req, 'authorize_query') ?? '';
    const request = await parseOrAnswer(ctx.flow, res, fromQueryString(query));
    if (!request) return;
    const session = await ctx.sessions.current(req);
    if (!session) return res.redirect(303, `/authorize?${query}`);
    // OIDC Core §5.5.1: as at /authorize, a `sub` asked for by value is answered for that user only.
    const subject = requestedSubject(request.claims);
    if (subject !== undefined && subject !== session.userId)
      return redirectWithError(
        ctx.flow,
        res,
        request,
        'login_required',
        'the requested subject is not signed in',
      );
    const decision = formField(req, 'decision');
    const audit = { userId: session.userId, clientId: request.clientId, scopes: request.scopes };
    if (decision === 'deny') {
      auditPageEvent(ctx.logger, req, 'consent.denied', audit);
      return redirectWithError(ctx.flow, res, request, 'access_denied', 'the user denied the request');
    }
    if (decision !== 'allow')
      throw new PageError(400, 'Bad request', 'Choose Allow or Deny.', 'invalid_request');
    // The claims asked for by name (OIDC Core §5.5) were listed beside the scopes: remembered with them.
    const claims = claimsToConsent(request.claims, request.scopes);
    await ctx.consents.saveConsent(session.userId, request.clientId, request.scopes, claims);
    auditPageEvent(ctx.logger, req, 'consent.granted', audit);
    await approveAndRedirect(ctx, res, request, session);
  });
  return router;
}
