import { html } from './html';
import {
  ACCOUNT_PASSKEYS_SCRIPT,
  renderAccountPasskeys,
  type AccountPasskeysView,
} from './account-passkeys.view';
import { csrfField, DEFAULT_CHROME, renderLayout, type PageChrome } from './layout.view';
import { scopeWords } from './scope-words';
import type { SessionSummary } from '../../domain/sessions/session';
import { renderAccountPassword } from './account-password.view';
import { renderAccountSessions } from './account-sessions.view';

export interface AuthorizedAppView {
  clientId: string;
  clientName: string;
  scopes: { scope: string; description: string }[];
  authorizedAt: Date;
}

export interface AccountView {
  csrfToken: string;
  username: string;
  apps: AuthorizedAppView[];
  /** The passkeys section (account-passkeys.view.ts). */
  passkeys?: AccountPasskeysView;
  /** Already in the page's language (the route words it). */
  notice?: string;
  /** The user's live sessions and which one is this browser's (account-sessions.view.ts). */
  sessions?: { list: readonly SessionSummary[]; currentSid: string };
  /** A refused password change, in the page's language, and the field it is about. */
  passwordError?: { message: string; field: 'current' | 'new' };
  chrome?: PageChrome;
}

export function renderAccount(view: AccountView): string {
  const chrome = view.chrome ?? DEFAULT_CHROME;
  const { t, tHtml } = chrome.i18n;
  const apps = view.apps.map(
    (app) =>
      html`<li>
        <h3>${app.clientName}</h3>
        <p>
          ${tHtml('Authorized on {date} to:', {
            date: html`<time datetime="${app.authorizedAt.toISOString()}"
              >${app.authorizedAt.toISOString().slice(0, 10)}</time
            >`,
          })}
        </p>
        <ul class="scopes">
          ${app.scopes.map((item) => html`<li data-scope="${item.scope}">${scopeWords(chrome.i18n, item)}</li>`)}
        </ul>
        <form method="post" action="/account/revoke">
          ${csrfField(view.csrfToken)}
          <input type="hidden" name="client_id" value="${app.clientId}" />
          <button
            type="submit"
            class="secondary"
            aria-label="${t('Revoke access for {client}', { client: app.clientName })}"
          >
            ${t('Revoke access')}
          </button>
        </form>
      </li> `,
  );
  const body = html`<h1>${t('Your account')}</h1>
    <p>${tHtml('Signed in as {username}.', { username: html`<strong>${view.username}</strong>` })}</p>
    ${view.notice ? html`<p role="status" class="notice">${view.notice}</p>` : ''}
    <h2>${t('Two-step verification')}</h2>
    <p><a href="/account/totp">${t('Manage two-step verification')}</a></p>
    <h2>${t('Apps you authorized')}</h2>
    ${
      view.apps.length === 0
        ? html`<p>${t('You have not authorized any apps.')}</p>`
        : html`<ul class="apps">
            ${apps}
          </ul>`
    }
    ${/* Each further section is its own view file, one line here. */ ''}
    ${view.sessions ? renderAccountSessions(chrome, view.csrfToken, view.sessions.list, view.sessions.currentSid) : ''}
    ${renderAccountPassword(chrome, view.csrfToken, view.username, view.passwordError)}
    ${view.passkeys ? renderAccountPasskeys(view.passkeys, chrome, view.csrfToken) : ''}
    <div class="actions">
      <form method="post" action="/logout">
        ${csrfField(view.csrfToken)}
        <button type="submit">${t('Sign out')}</button>
      </form>
      <form method="post" action="/account/sign-out-everywhere">
        ${csrfField(view.csrfToken)}
        <button type="submit" class="secondary">${t('Sign out everywhere')}</button>
      </form>
    </div>`;
  return renderLayout({
    title: t('Your account'),
    body,
    chrome,
    ...(view.passkeys ? { scripts: [ACCOUNT_PASSKEYS_SCRIPT] } : {}),
  });
}
