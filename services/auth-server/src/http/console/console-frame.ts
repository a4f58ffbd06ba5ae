import type { Request, RequestHandler, Response } from 'express';
import type { AdminActor } from '../../domain/admin/admin-actor';
import { clientIp } from '../page-audit';
import type { Translator } from '../i18n/translator';
import type { ConsoleContext } from './console-context';
import type { ConsoleFrame, ConsoleSection } from './console.view';

/** The form parser with the CSRF check, and the admin-session guard, in the order POSTs use them. */
export interface ConsoleHandlers {
  /** Parses the urlencoded body, then refuses it without a valid CSRF token (403 page). */
  form: RequestHandler;
  guard: RequestHandler;
}

/** `?done=` after a redirect: a fixed set of outcomes, worded here (never the parameter's own text). */
function noticeOf(i18n: Translator, done: unknown): string | undefined {
  switch (done) {
    case 'saved':
      return i18n.t('Saved.');
    case 'deleted':
      return i18n.t('Deleted.');
    case 'created':
      return i18n.t('Created.');
    case 'disabled':
      return i18n.t('User disabled: their sessions ended and their grants were revoked.');
    case 'enabled':
      return i18n.t('User enabled.');
    case 'revoked':
      return i18n.t('Grant revoked.');
    case 'ended':
      return i18n.t('Session ended.');
    case 'mfa_reset':
      return i18n.t('Two-step verification reset: the next sign-in is by password alone.');
    case 'rotated':
      return i18n.t('Signing key rotated.');
    default:
      return undefined;
  }
}

/** The frame of a console page for the signed-in admin (the guard ran, so there is one). */
export async function frameOf(
  cc: ConsoleContext,
  req: Request,
  res: Response,
  section: ConsoleSection,
  extra: { notice?: string; error?: string } = {},
): Promise<ConsoleFrame> {
  const chrome = cc.page.chrome(req);
  const session = await cc.sessions.current(req);
  const notice = extra.notice ?? noticeOf(chrome.i18n, req.query.done);
  return {
    chrome,
    csrfToken: cc.csrf.token(req, res),
    username: session?.username ?? '',
    section,
    ...(notice ? { notice } : {}),
    ...(extra.error ? { error: extra.error } : {}),
  };
}

/** The signed-in admin as the audit events' actor. */
export async function actorOf(cc: ConsoleContext, req: Request): Promise<AdminActor> {
  const session = await cc.sessions.current(req);
  if (!session) throw new Error('console action without a session (the guard must run first)');
  return { kind: 'user', userId: session.userId, username: session.username, sourceIp: clientIp(req) };
}
