import { PASSKEYS_SCRIPT } from '../page-assets';
import { html, type SafeHtml } from './html';
import { csrfField, type PageChrome } from './layout.view';

/** The script the second-factor page links when it offers a passkey. */
export const SECOND_FACTOR_PASSKEY_SCRIPT = PASSKEYS_SCRIPT.href;

/**
 * "Use a passkey" on the second-factor page: a form to /login/second-factor/passkey that passkeys.js drives
 * (hidden until it finds WebAuthn; no inline script). `alone`: the passkey is the only way to finish, so
 * without JavaScript (or WebAuthn) the page says what is needed instead of showing nothing.
 */
export function renderSecondFactorPasskey(chrome: PageChrome, csrfToken: string, alone: boolean): SafeHtml {
  const { t } = chrome.i18n;
  return html`<form
      method="post"
      action="/login/second-factor/passkey"
      class="passkey-sign-in"
      data-passkey="get"
      data-options="/login/second-factor/passkey/options"
      data-msg-waiting="${t('Follow your browser’s instructions to use your passkey.')}"
      data-msg-failed="${t('Your passkey could not be used. Try again.')}"
      data-passkey-section
      hidden
    >
      ${csrfField(csrfToken)}
      <input type="hidden" name="credential" value="" />
      ${alone ? '' : html`<p class="divider">${t('or')}</p>`}
      <div class="actions">
        <button type="submit" ${alone ? '' : html`class="secondary"`}>${t('Use a passkey')}</button>
      </div>
      <p role="status" aria-live="polite" data-passkey-status></p>
    </form>
    ${
      alone
        ? html`<p class="muted" data-passkey-unsupported>
            ${t('Your second step is a passkey. Using it needs JavaScript and a browser that supports passkeys.')}
          </p>`
        : ''
    }`;
}

/** The user's only second factor is a passkey, and this issuer (an IP address) cannot check passkeys. */
export function renderPasskeyUnusable(chrome: PageChrome): SafeHtml {
  const { t } = chrome.i18n;
  return html`<p class="alert">
    ${t(
      'Your second step is a passkey, and passkeys cannot be used at this address. Open this site at its domain name, or ask an administrator to reset your two-step verification.',
    )}
  </p>`;
}
