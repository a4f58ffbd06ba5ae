import type { Response } from 'express';
import { OAuthError } from '@acme/common';
import {
  AuthorizeError,
  type AuthorizationFlow,
  type AuthorizationRequest,
} from '../domain/authorize/authorization-flow';
import type { PageContext } from './page-context';
import { PageError } from './page-error';
import type { PageSession } from './session-manager';
import type { RawParams } from './authorize-params';

/**
 * Parses the authorization request. A redirectable error goes back to the client's registered
 * redirect_uri (RFC 6749 §4.1.2.1); an untrusted client or redirect_uri gets an error page and no
 * Location header (RFC 9700 §4.11.2: never an open redirector). Returns null when it has answered.
 */
export async function parseOrAnswer(
  flow: AuthorizationFlow,
  res: Response,
  params: RawParams,
): Promise<AuthorizationRequest | null> {
  try {
    return await flow.parse(params);
  } catch (error) {
    answerAuthorizeError(flow, res, error);
    return null;
  }
}

export function answerAuthorizeError(flow: AuthorizationFlow, res: Response, error: unknown): void {
  if (!(error instanceof AuthorizeError)) throw error;
  if (error.redirectable && error.request) {
    res.redirect(303, flow.errorRedirect(error.request, error.error));
    return;
  }
  throw new PageError(
    error.error.status,
    'This sign-in request cannot continue',
    error.error.description ?? 'The application sent an invalid request.',
    error.error.code,
  );
}

export function redirectWithError(
  flow: AuthorizationFlow,
  res: Response,
  request: AuthorizationRequest,
  code:
    | 'login_required'
    | 'consent_required'
    | 'access_denied'
    | 'interaction_required'
    | 'unmet_authentication_requirements',
  description: string,
): void {
  res.redirect(303, flow.errorRedirect(request, new OAuthError(code, description)));
}

/** Issues the code (or implicit tokens) for the approved scopes and sends the browser to the client. */
export async function approveAndRedirect(
  ctx: PageContext,
  res: Response,
  request: AuthorizationRequest,
  session: PageSession,
): Promise<void> {
  try {
    const location = await ctx.flow.approve(
      request,
      {
        userId: session.userId,
        authTime: session.authTime,
        sid: session.sid,
        authentication: session.authentication,
      },
      request.scopes,
    );
    res.redirect(303, location);
  } catch (error) {
    answerAuthorizeError(ctx.flow, res, error);
  }
}

/** OIDC Core §3.1.2.1 max_age: the last authentication must be at most this many seconds old. */
export function isAuthTooOld(request: AuthorizationRequest, session: PageSession, now: Date): boolean {
  if (request.maxAge === undefined) return false;
  return now.getTime() - session.authTime.getTime() > request.maxAge * 1000;
}
