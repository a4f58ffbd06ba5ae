import { html } from './html';
import { csrfField, DEFAULT_CHROME, renderLayout, type PageChrome } from './layout.view';
import type { PageLogo } from '../../domain/clients/client-logo';
import { renderClientLogo } from './client-logo.view';

export interface LogoutConfirmView {
  csrfToken: string;
  username: string;
  /** The application asking, when it is known (client_id or id_token_hint). */
  clientName?: string;
  /** Carried to the confirmation POST, which checks them again. */
  clientId?: string;
  /** The client's logo, shown with its name (client-logo.view.ts). */
  logo?: PageLogo;
  postLogoutRedirectUri?: string;
  state?: string;
  chrome?: PageChrome;
}

/** OIDC RP-Initiated Logout 1.0 §2: "ask the End-User whether to log out of the OP" without a valid hint. */
export function renderLogoutConfirm(view: LogoutConfirmView): string {
  const chrome = view.chrome ?? DEFAULT_CHROME;
  const { t, tHtml } = chrome.i18n;
  const hidden = (name: string, value: string | undefined) =>
    value === undefined ? '' : html`<input type="hidden" name="${name}" value="${value}" />`;
  const body = html`${renderClientLogo(view.logo, view.clientName)}
    <h1>${t('Sign out?')}</h1>
    <p>
      ${
        view.clientName
          ? tHtml('{client} asks to sign you out.', { client: html`<strong>${view.clientName}</strong>` })
          : t('An application asks to sign you out.')
      }
      ${tHtml('You are signed in as {username}.', { username: html`<strong>${view.username}</strong>` })}
    </p>
    <form method="post" action="/session/end/confirm">
      ${csrfField(view.csrfToken)} ${hidden('client_id', view.clientId)}
      ${hidden('post_logout_redirect_uri', view.postLogoutRedirectUri)} ${hidden('state', view.state)}
      <div class="actions"><button type="submit">${t('Sign out')}</button></div>
    </form>
    <p class="muted">${t('To stay signed in, close this page.')}</p>`;
  return renderLayout({ title: t('Sign out?'), body, chrome });
}

export function renderSignedOut(chrome: PageChrome = DEFAULT_CHROME): string {
  const { t } = chrome.i18n;
  return renderLayout({
    title: t('Signed out'),
    body: html`<h1>${t('You are signed out')}</h1>
      <p><a href="/account">${t('Sign in again')}</a></p>`,
    chrome,
  });
}
