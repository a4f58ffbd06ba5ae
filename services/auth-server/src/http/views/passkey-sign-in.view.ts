import { PASSKEYS_SCRIPT } from '../page-assets';
import { html, type SafeHtml } from './html';
import { csrfField, type PageChrome } from './layout.view';

/** The script the login page links for this section. */
export const PASSKEY_SIGN_IN_SCRIPT = PASSKEYS_SCRIPT.href;

/**
 * "Sign in with a passkey" under the password form: its own form to /login/passkey with the same CSRF token
 * and return_to, hidden until passkeys.js finds WebAuthn (without JavaScript the page is the password form
 * alone). The status line is announced (aria-live) while the browser asks for the passkey.
 */
export function renderPasskeySignIn(
  chrome: PageChrome,
  csrfToken: string,
  returnTo: string,
  /** The admin console posts to its own paths (console-passkey-login.route.ts). */
  action = '/login/passkey',
): SafeHtml {
  const { t } = chrome.i18n;
  return html`<form
    method="post"
    action="${action}"
    class="passkey-sign-in"
    data-passkey="get"
    data-options="${action}/options"
    data-msg-waiting="${t('Follow your browser’s instructions to use your passkey.')}"
    data-msg-failed="${t('Your passkey could not be used. Try again or sign in with your password.')}"
    data-passkey-section
    hidden
  >
    ${csrfField(csrfToken)}
    <input type="hidden" name="return_to" value="${returnTo}" />
    <input type="hidden" name="credential" value="" />
    <p class="divider">${t('or')}</p>
    <div class="actions"><button type="submit" class="secondary">${t('Sign in with a passkey')}</button></div>
    <p role="status" aria-live="polite" data-passkey-status></p>
  </form>`;
}
