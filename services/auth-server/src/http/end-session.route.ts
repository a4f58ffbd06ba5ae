import express, { Router, type Request, type Response } from 'express';
import type { Client } from '../domain/clients/client';
import type { IdTokenHint } from '../domain/logout/verify-id-token-hint';
import { auditPageEvent } from './page-audit';
import type { PageContext } from './page-context';
import { PageError } from './page-error';
import { parseParams } from './parse-params';
import { renderLogoutConfirm, renderSignedOut } from './views/logout.view';
import { pageLogo } from './page-logo';

/** OIDC RP-Initiated Logout 1.0 §2: the end_session_endpoint (node-oidc-provider's path). */
export const END_SESSION_PATH = '/session/end';

interface LogoutRequest {
  client?: Client;
  /** Registered for the client, exactly (§3.1); absent: our own signed-out page. */
  redirectUri?: string;
  state?: string;
  hint?: IdTokenHint;
}

/**
 * GET and POST /session/end, and POST /session/end/confirm.
 * - A valid id_token_hint naming the signed-in user (and this session, when it carries `sid`) ends the
 *   session at once. Anything else is asked on a confirmation page whose form is CSRF-protected, so a
 *   cross-site GET alone never signs anyone out (§2 "ask the End-User", §6 security considerations).
 * - post_logout_redirect_uri must be one the client registered, compared as strings (§3.1, as
 *   redirect_uri, RFC 9700 §4.1.3); an unregistered one, a bad hint, an unknown client or a client_id
 *   other than the hint's audience gets an error page, never a redirect (no open redirector).
 * - A POST (form_post from the RP) is answered with a 303 to the GET: the session cookie is
 *   SameSite=Lax, sent on a top-level GET navigation but not on a cross-site POST.
 * - logout_hint and ui_locales are accepted and not used (§2: OPTIONAL).
 * Ending the session deletes its row and cookie and queues back-channel logouts (logout-service.ts).
 */
export function endSessionRoute(ctx: PageContext): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  router.get(END_SESSION_PATH, async (req, res) => {
    const params = parseParams(req.query);
    const request = await resolve(ctx, params, params.id_token_hint);
    const session = await ctx.sessions.current(req);
    if (!session) return finish(ctx, req, res, request); // nobody to sign out here
    const hint = request.hint;
    if (hint && hint.sub === session.userId && (hint.sid === undefined || hint.sid === session.sid)) {
      await endSession(ctx, req, res, request);
      return finish(ctx, req, res, request);
    }
    res
      .status(200)
      .type('html')
      .send(
        renderLogoutConfirm({
          chrome: ctx.chrome(req),
          csrfToken: ctx.csrf.token(req, res),
          username: session.username,
          ...(request.client
            ? {
                clientName: request.client.name,
                clientId: request.client.clientId,
                ...(await pageLogo(ctx, res, request.client.clientId)),
              }
            : {}),
          ...(request.redirectUri ? { postLogoutRedirectUri: request.redirectUri } : {}),
          ...(request.redirectUri && request.state !== undefined ? { state: request.state } : {}),
        }),
      );
  });

  router.post(END_SESSION_PATH, form, (req, res) => {
    const params = parseParams(req.body);
    res.redirect(303, `${END_SESSION_PATH}?${new URLSearchParams(params).toString()}`);
  });

  router.post(`${END_SESSION_PATH}/confirm`, form, ctx.csrf.require(), async (req, res) => {
    const params = parseParams(req.body);
    // The form's fields are checked again: a confirmation page is no licence for another redirect.
    const request = await resolve(ctx, params, undefined);
    await endSession(ctx, req, res, request);
    finish(ctx, req, res, request);
  });
  return router;
}

async function resolve(
  ctx: PageContext,
  params: Record<string, string>,
  idTokenHint: string | undefined,
): Promise<LogoutRequest> {
  const refuse = (detail: string) =>
    new PageError(400, 'Sign-out request refused', detail, 'invalid_request');
  let hint: IdTokenHint | undefined;
  if (idTokenHint !== undefined) {
    hint = await ctx.logout.verifyIdTokenHint(idTokenHint);
    if (!hint) throw refuse('The id_token_hint is not an ID token issued by this server.');
  }
  let clientId = params.client_id;
  if (hint) {
    if (clientId !== undefined && !hint.aud.includes(clientId))
      throw refuse('The client_id is not the audience of the id_token_hint.');
    clientId ??= hint.aud[0];
  }
  const client = clientId !== undefined ? await ctx.logout.findClient(clientId) : undefined;
  if (clientId !== undefined && !client) throw refuse('The application is unknown.');
  const redirectUri = params.post_logout_redirect_uri;
  if (redirectUri !== undefined) {
    if (!client)
      throw refuse('A post_logout_redirect_uri needs the client_id or an id_token_hint of its application.');
    if (!client.postLogoutRedirectUris.includes(redirectUri))
      throw refuse('The post_logout_redirect_uri is not registered for this application.');
  }
  return {
    ...(client ? { client } : {}),
    ...(redirectUri !== undefined ? { redirectUri } : {}),
    ...(params.state !== undefined ? { state: params.state } : {}),
    ...(hint ? { hint } : {}),
  };
}

async function endSession(ctx: PageContext, req: Request, res: Response, request: LogoutRequest) {
  const ended = await ctx.sessions.end(req, res);
  if (!ended) return;
  const notified = await ctx.logout.sessionsEnded(ended.userId, [ended.sid]);
  auditPageEvent(ctx.logger, req, 'logout', {
    userId: ended.userId,
    clientId: request.client?.clientId,
    backchannelLogouts: notified,
  });
}

/** §3: to the registered URI with `state` (303: the confirmation was a POST), or our own page. */
function finish(ctx: PageContext, req: Request, res: Response, request: LogoutRequest): void {
  if (!request.redirectUri) {
    res
      .status(200)
      .type('html')
      .send(renderSignedOut(ctx.chrome(req)));
    return;
  }
  const url = new URL(request.redirectUri);
  if (request.state !== undefined) url.searchParams.append('state', request.state);
  res.redirect(303, url.toString());
}
