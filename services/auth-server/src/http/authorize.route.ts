import express, { Router, type Request, type Response } from 'express';
import { requestedSubject } from '../domain/authorize/claims-request';
import { areClaimsConsented, claimsToConsent } from '../domain/consent/claims-to-consent';
import { describeScopes } from '../domain/consent/describe-scopes';
import { isConsentRemembered } from '../domain/consent/is-consent-remembered';
import { LOGIN_MARK_PARAM, pickRawParams, toQueryString, type RawParams } from './authorize-params';
import { approveAndRedirect, isAuthTooOld, parseOrAnswer, redirectWithError } from './authorize-outcome';
import { answerAcrValues } from './authorize-step-up';
import type { PageContext } from './page-context';
import { pageLogo } from './page-logo';
import { renderConsent } from './views/consent.view';
import { renderLogin } from './views/login.view';

/**
 * GET and POST /authorize (RFC 6749 §4.1.1, OIDC Core §3.1.2.1: both methods). The pipeline:
 * parse → signed in (fresh enough for prompt=login / max_age)? → consent remembered (and no
 * prompt=consent)? → approve; otherwise the login or consent page, or for prompt=none the
 * login_required / consent_required error (OIDC Core §3.1.2.6). No CORS here (RFC 9700 §2.6).
 */
export function authorizeRoute(ctx: PageContext): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  router.get('/authorize', (req, res) => handleAuthorize(ctx, req, res, pickRawParams(req.query)));
  // A POSTed authorization request comes from the client's page, not from our forms: it is the same
  // request as the GET and carries no CSRF token (it changes nothing the GET could not).
  router.post('/authorize', form, (req, res) => handleAuthorize(ctx, req, res, pickRawParams(req.body)));
  return router;
}

async function handleAuthorize(ctx: PageContext, req: Request, res: Response, raw: RawParams): Promise<void> {
  const { [LOGIN_MARK_PARAM]: mark, ...params } = raw;
  const request = await parseOrAnswer(ctx.flow, res, params);
  if (!request) return;
  const session = await ctx.sessions.current(req);
  // Right after the login of this interaction, prompt=login and max_age are satisfied already.
  const justSignedIn =
    session !== null && ctx.sessions.isLoginMark(session, typeof mark === 'string' ? mark : undefined);
  // OIDC Core §5.5.1: an ID token `sub` asked for by value is answered only for that user's session.
  const subject = requestedSubject(request.claims);
  const otherUser = session !== null && subject !== undefined && subject !== session.userId;
  const mustSignIn =
    session === null ||
    (!justSignedIn &&
      (request.prompt.includes('login') || isAuthTooOld(request, session, ctx.clock()) || otherUser));
  // The request's own ui_locales (a pushed or signed request's too) chooses the language, and is carried
  // on the forms so the next page speaks it; the query's copy is ignored by the parser for those requests.
  const chrome = ctx.chrome(req, request.uiLocales);
  const carried = request.uiLocales === undefined ? params : { ...params, ui_locales: request.uiLocales };
  if (mustSignIn) {
    if (request.prompt.includes('none'))
      return redirectWithError(ctx.flow, res, request, 'login_required', 'the user is not signed in');
    res
      .status(200)
      .type('html')
      .send(
        renderLogin({
          chrome,
          csrfToken: ctx.csrf.token(req, res),
          returnTo: `/authorize?${toQueryString(carried)}`,
          clientName: request.clientName,
          ...(await pageLogo(ctx, res, request.clientId)),
          ...(request.loginHint ? { username: request.loginHint } : {}),
        }),
      );
    return;
  }
  if (otherUser)
    return redirectWithError(
      ctx.flow,
      res,
      request,
      'login_required',
      'the requested subject is not signed in',
    );
  // acr_values (OIDC Core §3.1.2.1) and an essential acr claim (§5.5.1.1): a session below the level
  // asked for is stepped up, or refused.
  if (await answerAcrValues(ctx, req, res, request, session, justSignedIn ? raw : params)) return;
  const remembered = await ctx.consents.findConsent(session.userId, request.clientId);
  // Claims asked for by name beyond the scopes' (OIDC Core §5.5) are consented like scopes.
  const claims = claimsToConsent(request.claims, request.scopes);
  const claimsRemembered =
    claims.length === 0 ||
    areClaimsConsented(claims, await ctx.consents.findConsentedClaims(session.userId, request.clientId));
  if (
    !request.prompt.includes('consent') &&
    isConsentRemembered(request.scopes, remembered) &&
    claimsRemembered
  ) {
    return approveAndRedirect(ctx, res, request, session);
  }
  if (request.prompt.includes('none'))
    return redirectWithError(
      ctx.flow,
      res,
      request,
      'consent_required',
      'the user has not approved these scopes',
    );
  res
    .status(200)
    .type('html')
    .send(
      renderConsent({
        chrome,
        csrfToken: ctx.csrf.token(req, res),
        clientName: request.clientName,
        clientId: request.clientId,
        scopes: describeScopes(request.scopes),
        claims,
        authorizeQuery: toQueryString(carried),
        ...(await pageLogo(ctx, res, request.clientId)),
        username: session.username,
      }),
    );
}
