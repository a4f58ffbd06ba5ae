import { html } from './html';
import { DEFAULT_CHROME, renderLayout, type PageChrome } from './layout.view';
import type { PageLogo } from '../../domain/clients/client-logo';
import { renderClientLogo } from './client-logo.view';
import { PASSKEY_SIGN_IN_SCRIPT, renderPasskeySignIn } from './passkey-sign-in.view';
import { renderPasswordForm } from './password-form.view';

export interface LoginView {
  csrfToken: string;
  returnTo: string;
  /** The application asking, when the login is part of an authorization request. */
  clientName?: string;
  /** The client's logo (client-logo.view.ts). */
  logo?: PageLogo;
  username?: string;
  /** Already in the page's language (the route words it). */
  error?: string;
  chrome?: PageChrome;
}

export function renderLogin(view: LoginView): string {
  const chrome = view.chrome ?? DEFAULT_CHROME;
  const { t, tHtml } = chrome.i18n;
  const body = html`${renderClientLogo(view.logo, view.clientName)}
    <h1>${t('Sign in')}</h1>
    ${
      view.clientName
        ? html`<p class="client">
            ${tHtml('Sign in to continue to {client}.', { client: html`<strong>${view.clientName}</strong>` })}
          </p>`
        : ''
    }
    ${renderPasswordForm({
      chrome,
      action: '/login',
      csrfToken: view.csrfToken,
      username: view.username,
      error: view.error,
      hidden: html`<input type="hidden" name="return_to" value="${view.returnTo}" />`,
    })}
    ${chrome.passkeys ? renderPasskeySignIn(chrome, view.csrfToken, view.returnTo) : ''}`;
  return renderLayout({
    title: t('Sign in'),
    body,
    chrome,
    ...(chrome.passkeys ? { scripts: [PASSKEY_SIGN_IN_SCRIPT] } : {}),
  });
}
