import { html } from '../views/html';
import { csrfField, renderLayout, type PageChrome } from '../views/layout.view';

/** The console's own sign-in page: an admin's username and password (the page session counts for nothing). */
export function renderConsoleLogin(view: {
  chrome: PageChrome;
  csrfToken: string;
  username?: string;
  error?: string;
}): string {
  const { t } = view.chrome.i18n;
  const invalid = view.error ? html` aria-invalid="true" aria-describedby="login-error"` : '';
  const body = html`<h1>${t('Admin console')}</h1>
    <p>${t('Sign in with an account that holds the admin role.')}</p>
    ${view.error ? html`<p role="alert" class="alert" id="login-error">${view.error}</p>` : ''}
    <form method="post" action="/admin/console/login">
      ${csrfField(view.csrfToken)}
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
    </form>`;
  return renderLayout({ title: t('Admin console'), body, chrome: view.chrome });
}
