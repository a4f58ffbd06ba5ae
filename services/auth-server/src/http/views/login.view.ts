import { html } from './html';
import { csrfField, DEFAULT_CHROME, renderLayout, type PageChrome } from './layout.view';
import type { PageLogo } from '../../domain/clients/client-logo';
import { renderClientLogo } from './client-logo.view';
import { PASSKEY_SIGN_IN_SCRIPT, renderPasskeySignIn } from './passkey-sign-in.view';

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
  // The error names the field it is about (aria-describedby, aria-invalid): screen readers read both.
  const invalid = view.error ? html` aria-invalid="true" aria-describedby="login-error"` : '';
  const body = html`${renderClientLogo(view.logo, view.clientName)}
    <h1>${t('Sign in')}</h1>
    ${
      view.clientName
        ? html`<p class="client">
            ${tHtml('Sign in to continue to {client}.', { client: html`<strong>${view.clientName}</strong>` })}
          </p>`
        : ''
    }
    ${view.error ? html`<p role="alert" class="alert" id="login-error">${view.error}</p>` : ''}
    <form method="post" action="/login">
      ${csrfField(view.csrfToken)}
      <input type="hidden" name="return_to" value="${view.returnTo}" />
      <div class="field">
        <label for="username">${t('Username')}</label>
        <input
          id="username"
          name="username"
          type="text"
          autocomplete="username"
          autocapitalize="none"
          spellcheck="false"
          required
          value="${view.username ?? ''}"
          ${invalid}
        />
      </div>
      <div class="field">
        <label for="password">${t('Password')}</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          ${invalid}
        />
      </div>
      <div class="actions"><button type="submit">${t('Sign in')}</button></div>
    </form>
    ${chrome.passkeys ? renderPasskeySignIn(chrome, view.csrfToken, view.returnTo) : ''}`;
  return renderLayout({
    title: t('Sign in'),
    body,
    chrome,
    ...(chrome.passkeys ? { scripts: [PASSKEY_SIGN_IN_SCRIPT] } : {}),
  });
}
