import { consoleTable } from './console-table.view';
import { Router, type Request, type Response } from 'express';
import { isOAuthError } from '@acme/common';
import { ADMIN_ROLE } from '../../domain/admin/admin-actor';
import type { AdminUser } from '../../domain/admin/admin-repo';
import {
  createUserAsAdmin,
  resetUserMfa,
  listUsers,
  MAX_ADMIN_OFFSET,
  setUserEnabled,
} from '../../domain/admin/user-admin';
import { PageError } from '../page-error';
import { html } from '../views/html';
import { csrfField } from '../views/layout.view';
import type { ConsoleContext } from './console-context';
import { consoleProblem } from './console-problem';
import { field } from './console-form';
import { actorOf, frameOf, type ConsoleHandlers } from './console-frame';
import { actionButton, renderConsole, when, type ConsoleFrame } from './console.view';

const PAGE = 50;

interface UsersView {
  users: AdminUser[];
  search: string;
  offset: number;
  typedUsername: string;
}

function renderUsers(frame: ConsoleFrame, view: UsersView): string {
  const { t } = frame.chrome.i18n;
  const rows = view.users.map((u) => {
    const path = `/admin/console/users/${u.userId}`;
    return html`<tr>
      <td>${u.username}</td>
      <td><code>${u.userId}</code></td>
      <td>
        ${u.disabled ? t('Disabled') : t('Active')}${u.roles.includes(ADMIN_ROLE) ? html` · ${t('Admin')}` : ''}
      </td>
      <td>${when(u.createdAt)}</td>
      <td class="console-row-actions">
        <a
          href="/admin/console/grants?user_id=${u.userId}"
          aria-label="${t('Grants and sessions of {user}', { user: u.username })}"
          >${t('Grants and sessions')}</a
        >
        ${
          u.disabled
            ? actionButton(frame.csrfToken, `${path}/enable`, t('Enable'), {
                secondary: true,
                ariaLabel: t('Enable {user}', { user: u.username }),
              })
            : actionButton(frame.csrfToken, `${path}/disable`, t('Disable'), {
                secondary: true,
                ariaLabel: t('Disable {user}', { user: u.username }),
              })
        }
        ${actionButton(frame.csrfToken, `${path}/reset-mfa`, t('Reset MFA'), {
          secondary: true,
          ariaLabel: t('Reset two-step verification of {user}', { user: u.username }),
        })}
      </td>
    </tr>`;
  });
  const query = (offset: number) =>
    `/admin/console/users?${new URLSearchParams({ ...(view.search ? { search: view.search } : {}), offset: String(offset) })}`;
  const more = view.users.length === PAGE && view.offset + PAGE <= MAX_ADMIN_OFFSET;
  const content = html`<form method="get" action="/admin/console/users" class="console-search" role="search">
      <label for="search">${t('Username starts with')}</label>
      <input id="search" name="search" type="text" value="${view.search}" />
      <button type="submit" class="secondary">${t('Search')}</button>
    </form>
    ${consoleTable({
      caption: t('Users'),
      headers: [t('Username'), t('User ID'), t('Status'), t('Created'), t('Actions')],
      rows: rows,
      empty: t('No users found.'),
    })}
    <nav class="console-pager" aria-label="${t('Pages')}">
      ${view.offset > 0 ? html`<a href="${query(Math.max(view.offset - PAGE, 0))}">${t('Previous page')}</a>` : ''}
      ${more ? html`<a href="${query(view.offset + PAGE)}">${t('Next page')}</a>` : ''}
    </nav>
    <h2>${t('New user')}</h2>
    <form
      method="post"
      action="/admin/console/users"
      class="console-form"
      ${frame.error ? html`aria-describedby="form-error"` : ''}
    >
      ${csrfField(frame.csrfToken)}
      <div class="field">
        <label for="new-username">${t('Username')}</label>
        <input
          id="new-username"
          name="username"
          type="text"
          autocomplete="off"
          required
          value="${view.typedUsername}"
        />
      </div>
      <div class="field">
        <label for="new-password">${t('Password')}</label>
        <p class="hint muted" id="new-password-hint">${t('At least 8 characters.')}</p>
        <input
          id="new-password"
          name="password"
          type="password"
          autocomplete="new-password"
          required
          aria-describedby="new-password-hint"
        />
      </div>
      <div class="field">
        <label for="new-name">${t('Full name')}</label>
        <input id="new-name" name="name" type="text" autocomplete="off" />
      </div>
      <div class="field">
        <label for="new-email">${t('Email')}</label>
        <input id="new-email" name="email" type="email" autocomplete="off" />
      </div>
      <div class="actions"><button type="submit">${t('Create user')}</button></div>
    </form>`;
  return renderConsole(frame, t('Users'), content);
}

export function consoleUsersRoute(cc: ConsoleContext, { form, guard }: ConsoleHandlers): Router {
  const router = Router();
  const base = '/admin/console/users';

  async function page(req: Request, res: Response, extra: { error?: string; typedUsername?: string } = {}) {
    const search = typeof req.query.search === 'string' ? req.query.search.slice(0, 200) : '';
    const offsetText = typeof req.query.offset === 'string' ? req.query.offset : '0';
    const offset = /^\d{1,6}$/.test(offsetText) ? Math.min(Number(offsetText), MAX_ADMIN_OFFSET) : 0;
    const users = await listUsers(cc.auth, { search, limit: PAGE, offset });
    return renderUsers(await frameOf(cc, req, res, 'users', extra.error ? { error: extra.error } : {}), {
      users,
      search,
      offset,
      typedUsername: extra.typedUsername ?? '',
    });
  }

  router.get(base, guard, async (req, res) => {
    res.type('html').send(await page(req, res));
  });

  router.post(base, form, guard, async (req, res) => {
    const { t } = cc.page.chrome(req).i18n;
    const username = field(req, 'username') ?? '';
    const name = field(req, 'name');
    const email = field(req, 'email');
    const claims = {
      ...(name ? { name: name.slice(0, 200) } : {}),
      ...(email ? { email: email.slice(0, 320), email_verified: false } : {}),
    };
    try {
      await createUserAsAdmin(cc.auth, await actorOf(cc, req), {
        username,
        password: typeof req.body?.password === 'string' ? (req.body.password as string) : '',
        claims,
      });
    } catch (error) {
      if (isOAuthError(error) && error.status < 500) {
        const message =
          error.code === 'conflict'
            ? t('That username is taken.')
            : t('The user was not saved: {detail}', { detail: consoleProblem(error, t) });
        return res
          .status(400)
          .type('html')
          .send(await page(req, res, { error: message, typedUsername: username }));
      }
      throw error;
    }
    res.redirect(303, `${base}?search=${encodeURIComponent(username)}&done=created`);
  });

  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    router.post(`${base}/:id/${verb}`, form, guard, async (req, res) => {
      try {
        await setUserEnabled(
          cc.auth,
          cc.page.logout,
          await actorOf(cc, req),
          req.params.id as string,
          enabled,
        );
      } catch (error) {
        if (isOAuthError(error) && error.code === 'not_found')
          throw new PageError(404, 'Not found', 'There is no such user.', 'not_found');
        if (isOAuthError(error) && error.status < 500)
          throw new PageError(400, 'Not allowed', 'You cannot disable your own account.', 'invalid_request');
        throw error;
      }
      res.redirect(303, `${base}?done=${enabled ? 'enabled' : 'disabled'}`);
    });
  }
  // "Lost my phone": the user's TOTP and recovery codes go (resetMfa, as the admin API's).
  router.post(`${base}/:id/reset-mfa`, form, guard, async (req, res) => {
    try {
      await resetUserMfa(cc.auth, await actorOf(cc, req), req.params.id as string);
    } catch (error) {
      if (isOAuthError(error) && error.code === 'not_found')
        throw new PageError(404, 'Not found', 'There is no such user.', 'not_found');
      throw error;
    }
    res.redirect(303, `${base}?done=mfa_reset`);
  });
  return router;
}
