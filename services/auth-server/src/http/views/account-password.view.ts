import { MIN_NEW_PASSWORD_LENGTH } from '../../domain/users/password-policy';
import { MAX_PASSWORD_LENGTH } from '../../domain/users/check-login';
import { html, type SafeHtml } from './html';
import { csrfField, type PageChrome } from './layout.view';

/**
 * The account page's "Change password" form: current password, the new one twice. The rule is said
 * up front (NIST SP 800-63B: length only, no composition rules); an error names the fields it is about.
 */
export function renderAccountPassword(
  chrome: PageChrome,
  csrfToken: string,
  username: string,
  error: { message: string; field: 'current' | 'new' } | undefined,
): SafeHtml {
  const { t } = chrome.i18n;
  const invalid = (field: 'current' | 'new') =>
    error?.field === field ? html` aria-invalid="true" aria-describedby="password-error"` : '';
  return html`<h2 id="password-heading">${t('Change password')}</h2>
    ${error ? html`<p role="alert" class="alert" id="password-error">${error.message}</p>` : ''}
    <form method="post" action="/account/password" aria-labelledby="password-heading">
      ${csrfField(csrfToken)}
      <input type="text" name="username" autocomplete="username" value="${username}" hidden readonly />
      <div class="field">
        <label for="current_password">${t('Current password')}</label>
        <input
          id="current_password"
          name="current_password"
          type="password"
          autocomplete="current-password"
          required
          ${invalid('current')}
        />
      </div>
      <div class="field">
        <label for="new_password">${t('New password')}</label>
        <input
          id="new_password"
          name="new_password"
          type="password"
          autocomplete="new-password"
          required
          minlength="${String(MIN_NEW_PASSWORD_LENGTH)}"
          maxlength="${String(MAX_PASSWORD_LENGTH)}"
          aria-describedby="new-password-hint${error?.field === 'new' ? ' password-error' : ''}"
          ${error?.field === 'new' ? html` aria-invalid="true"` : ''}
        />
        <p class="hint" id="new-password-hint">
          ${t('At least {min} characters, any you like; a few words together make a strong one.', {
            min: MIN_NEW_PASSWORD_LENGTH,
          })}
        </p>
      </div>
      <div class="field">
        <label for="new_password_confirm">${t('New password again')}</label>
        <input
          id="new_password_confirm"
          name="new_password_confirm"
          type="password"
          autocomplete="new-password"
          required
          ${invalid('new')}
        />
      </div>
      <div class="actions"><button type="submit">${t('Change password')}</button></div>
    </form>`;
}
