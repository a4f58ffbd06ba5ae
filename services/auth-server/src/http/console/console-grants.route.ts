import { consoleTable } from './console-table.view';
import { Router, type Request } from 'express';
import { z } from 'zod';
import { isOAuthError } from '@acme/common';
import type { AdminGrant, AdminSession } from '../../domain/admin/admin-repo';
import { endSession, listGrants, listSessions, revokeGrantsAsAdmin } from '../../domain/admin/session-admin';
import { PageError } from '../page-error';
import { html } from '../views/html';
import type { ConsoleContext } from './console-context';
import { field } from './console-form';
import { actorOf, frameOf, type ConsoleHandlers } from './console-frame';
import { actionButton, renderConsole, when, type ConsoleFrame } from './console.view';

const LIMIT = 100;
const uuid = z.string().uuid();

interface Filter {
  user_id?: string;
  client_id?: string;
}

function renderGrants(
  frame: ConsoleFrame,
  filter: Filter,
  grants: AdminGrant[],
  sessions: AdminSession[],
): string {
  const { t } = frame.chrome.i18n;
  const back = new URLSearchParams(filter as Record<string, string>).toString();
  const grantRows = grants.map(
    (g) =>
      html`<tr>
        <td><code>${g.grantId}</code></td>
        <td><a href="/admin/console/grants?client_id=${encodeURIComponent(g.clientId)}">${g.clientId}</a></td>
        <td>
          ${g.userId ? html`<a href="/admin/console/grants?user_id=${g.userId}">${g.username ?? g.userId}</a>` : '–'}
        </td>
        <td>${g.scopes.join(' ')}</td>
        <td>${when(g.createdAt)}</td>
        <td>
          ${actionButton(frame.csrfToken, `/admin/console/grants/${g.grantId}/revoke`, t('Revoke'), {
            secondary: true,
            ariaLabel: t('Revoke grant {id}', { id: g.grantId }),
            hidden: { back },
          })}
        </td>
      </tr>`,
  );
  const sessionRows = sessions.map(
    (s) =>
      html`<tr>
        <td><a href="/admin/console/grants?user_id=${s.userId}">${s.username}</a></td>
        <td><code>${s.sid}</code></td>
        <td>${when(s.authTime)}</td>
        <td>${when(s.expiresAt)}</td>
        <td>
          ${actionButton(frame.csrfToken, '/admin/console/sessions/end', t('End session'), {
            secondary: true,
            ariaLabel: t('End session {id}', { id: s.sid }),
            hidden: { user_id: s.userId, sid: s.sid, back },
          })}
        </td>
      </tr>`,
  );
  const content = html`<form method="get" action="/admin/console/grants" class="console-search" role="search">
      <label for="filter-user">${t('User ID')}</label>
      <input id="filter-user" name="user_id" type="text" value="${filter.user_id ?? ''}" />
      <label for="filter-client">${t('Client ID')}</label>
      <input id="filter-client" name="client_id" type="text" value="${filter.client_id ?? ''}" />
      <button type="submit" class="secondary">${t('Filter')}</button>
    </form>
    <h2>${t('Active grants')}</h2>
    ${consoleTable({
      caption: t('Active grants, newest first'),
      headers: [t('Grant'), t('Client'), t('User'), t('Scopes'), t('Created'), t('Actions')],
      rows: grantRows,
      empty: t('No active grants.'),
    })}
    <h2>${t('Browser sessions')}</h2>
    ${consoleTable({
      caption: t('Live browser sessions, newest first'),
      headers: [t('User'), t('Session'), t('Signed in'), t('Expires'), t('Actions')],
      rows: sessionRows,
      empty: t('No live sessions.'),
    })}`;
  return renderConsole(frame, t('Grants and sessions'), content);
}

/** The filter of the page, from the query or a form's `back` field: only well-formed values survive. */
function filterOf(source: Record<string, unknown>): Filter {
  const userId = typeof source.user_id === 'string' ? source.user_id.trim() : '';
  const clientId = typeof source.client_id === 'string' ? source.client_id.trim() : '';
  return {
    ...(userId ? { user_id: userId.slice(0, 100) } : {}),
    ...(clientId ? { client_id: clientId.slice(0, 200) } : {}),
  };
}

function backTo(req: Request, done: string): string {
  const back = Object.fromEntries(new URLSearchParams(field(req, 'back') ?? '').entries());
  const filter = filterOf(back);
  return `/admin/console/grants?${new URLSearchParams({ ...filter, done } as Record<string, string>)}`;
}

export function consoleGrantsRoute(cc: ConsoleContext, { form, guard }: ConsoleHandlers): Router {
  const router = Router();

  router.get('/admin/console/grants', guard, async (req, res) => {
    const { t } = cc.page.chrome(req).i18n;
    const filter = filterOf(req.query as Record<string, unknown>);
    try {
      const grants = await listGrants(cc.auth, filter, LIMIT);
      const sessions = filter.client_id
        ? []
        : await listSessions(cc.auth, filter.user_id ? { user_id: filter.user_id } : {}, LIMIT);
      res.type('html').send(renderGrants(await frameOf(cc, req, res, 'grants'), filter, grants, sessions));
    } catch (error) {
      if (!(isOAuthError(error) && error.status < 500)) throw error;
      res
        .status(400)
        .type('html')
        .send(
          renderGrants(
            await frameOf(cc, req, res, 'grants', { error: t('The user ID must be a UUID.') }),
            filter,
            [],
            [],
          ),
        );
    }
  });

  router.post('/admin/console/grants/:id/revoke', form, guard, async (req, res) => {
    const grantId = req.params.id as string;
    if (!uuid.safeParse(grantId).success)
      throw new PageError(404, 'Not found', 'There is no such grant.', 'not_found');
    const result = await revokeGrantsAsAdmin(cc.auth, await actorOf(cc, req), { grant_id: grantId });
    if (result.grants === 0) throw new PageError(404, 'Not found', 'There is no such grant.', 'not_found');
    res.redirect(303, backTo(req, 'revoked'));
  });

  router.post('/admin/console/sessions/end', form, guard, async (req, res) => {
    try {
      await endSession(
        cc.auth,
        cc.page.logout,
        await actorOf(cc, req),
        field(req, 'user_id') ?? '',
        field(req, 'sid') ?? '',
      );
    } catch (error) {
      if (isOAuthError(error) && error.code === 'not_found')
        throw new PageError(404, 'Not found', 'There is no such session.', 'not_found');
      throw error;
    }
    res.redirect(303, backTo(req, 'ended'));
  });
  return router;
}
