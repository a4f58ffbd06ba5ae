import type { Request, Response } from 'express';
import type { AuthorizationRequest } from '../domain/authorize/authorization-flow';
import { requiredAcr } from '../domain/authorize/required-acr';
import { canAnswer } from '../domain/mfa/second-factor-choices';
import { meetsAcr } from '../domain/sessions/authentication-methods';
import { toQueryString, type RawParams } from './authorize-params';
import { redirectWithError } from './authorize-outcome';
import { auditPageEvent } from './page-audit';
import type { PageContext } from './page-context';
import type { PageSession } from './session-manager';

/**
 * acr_values at /authorize (OIDC Core §3.1.2.1; also inside pushed and signed requests, parsed alike). When
 * the session's acr is below the weakest level asked for: a user with a second factor that reaches it (a
 * TOTP code, or a passkey this issuer can check: second-factor-choices.ts) is sent to the second-factor
 * page to raise this session (a step-up: no password again), with the level kept on the challenge so the
 * page offers only the factors that reach it, then back here; a user without one gets
 * `unmet_authentication_requirements` at the client (OpenID Connect Core Unmet Authentication
 * Requirements 1.0), prompt=none `interaction_required` (OIDC Core §3.1.2.6). Returns true when it has
 * answered.
 */
export async function answerAcrValues(
  ctx: PageContext,
  req: Request,
  res: Response,
  request: AuthorizationRequest,
  session: PageSession,
  /** The request's parameters, to come back to afterwards. */
  params: RawParams,
): Promise<boolean> {
  // acr_values, and an essential acr in the claims parameter (OIDC Core §5.5.1.1) alike.
  const wanted = requiredAcr(request);
  const { amr, acr } = session.authentication;
  if (wanted === undefined || meetsAcr(acr, wanted)) return false;
  const choices = await ctx.mfa.choices({ userId: session.userId, amr, wantedAcr: wanted });
  if (!canAnswer(choices)) {
    redirectWithError(
      ctx.flow,
      res,
      request,
      'unmet_authentication_requirements',
      `the user cannot sign in at ${wanted}`,
    );
    return true;
  }
  if (request.prompt.includes('none')) {
    redirectWithError(ctx.flow, res, request, 'interaction_required', 'a second factor is required');
    return true;
  }
  await ctx.mfa.challenges.start(req, res, {
    userId: session.userId,
    amr,
    sessionHash: ctx.sessions.sessionHashOf(req),
    returnTo: `/authorize?${toQueryString(params)}`,
    wantedAcr: wanted,
  });
  auditPageEvent(ctx.logger, req, 'mfa.step_up', { userId: session.userId, clientId: request.clientId });
  res.redirect(303, '/login/second-factor');
  return true;
}
