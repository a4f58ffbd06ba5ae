import { html, type SafeHtml } from './html';
import { csrfField, type PageChrome } from './layout.view';

/**
 * The username-and-password form both sign-in pages show (/login and the admin console's): the refusal
 * above it, announced (role="alert") and tied to both fields (aria-describedby, aria-invalid), so screen
 * readers read it with the field. `hidden` carries a page's own fields (the login's return_to).
 */
export function renderPasswordForm(view: {
  chrome: PageChrome;
  action: string;
  csrfToken: string;
  username?: string | undefined;
  /** Already in the page's language (the route words it). */
  error?: string | undefined;
  hidden?: SafeHtml;
}): SafeHtml {
  const { t } = view.chrome.i18n;
  const invalid = view.error ? html` aria-invalid="true" aria-describedby="login-error"` : '';
  return html`${view.error ? html`<p role="alert" class="alert" id="login-error">${view.error}</p>` : ''}
    <form method="post" action="${view.action}">
      ${csrfField(view.csrfToken)} ${view.hidden ?? ''}
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
}
