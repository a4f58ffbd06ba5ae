import type { Request, Response } from 'express';
import { describeScopes } from '../domain/consent/describe-scopes';
import type { PageContext } from './page-context';
import { accountPasskeysView } from './passkeys.route';
import type { PageSession } from './session-manager';
import { renderAccount, type AccountView } from './views/account.view';

/**
 * Renders /account for the signed-in user: the GET, and the POSTs that answer with the page itself (a
 * refused password change keeps the user where the form was).
 */
export async function sendAccountPage(
  ctx: PageContext,
  req: Request,
  res: Response,
  session: PageSession,
  options: { status?: number; notice?: string; passwordError?: AccountView['passwordError'] } = {},
): Promise<void> {
  const [apps, sessions] = await Promise.all([
    ctx.accountGrants.listAuthorizedApps(session.userId),
    ctx.sessions.listForUser(session.userId),
  ]);
  res
    .status(options.status ?? 200)
    .type('html')
    .send(
      renderAccount({
        chrome: ctx.chrome(req),
        csrfToken: ctx.csrf.token(req, res),
        username: session.username,
        apps: apps.map((app) => ({ ...app, scopes: describeScopes(app.scopes) })),
        sessions: { list: sessions, currentSid: session.sid },
        ...(ctx.passkeys
          ? { passkeys: await accountPasskeysView(ctx.passkeys, ctx.chrome(req), req, session.userId) }
          : {}),
        ...(options.notice ? { notice: options.notice } : {}),
        ...(options.passwordError ? { passwordError: options.passwordError } : {}),
      }),
    );
}
