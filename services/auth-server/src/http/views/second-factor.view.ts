import { html } from './html';
import { csrfField, DEFAULT_CHROME, renderLayout, type PageChrome } from './layout.view';
import {
  renderPasskeyUnusable,
  renderSecondFactorPasskey,
  SECOND_FACTOR_PASSKEY_SCRIPT,
} from './second-factor-passkey.view';

export interface SecondFactorView {
  csrfToken: string;
  username: string;
  /** Already in the page's language (the route words it). */
  error?: string;
  chrome?: PageChrome;
  /** What can answer (domain/mfa/second-factor-choices.ts); absent: a code. */
  offer?: {
    /** A TOTP code or a recovery code. */
    code: boolean;
    /** "Use a passkey". */
    passkey: boolean;
    /** The user's passkey cannot be used on this issuer (an IP address). */
    passkeyUnusable: boolean;
  };
  /** Where the code form posts: the admin console's own step answers at its own path. */
  action?: string;
}

/**
 * The second step of a sign-in (or a step-up): a code from the authenticator app or a recovery code, a
 * passkey, or both as choices. Without JavaScript the code form works as ever; the passkey needs it.
 */
export function renderSecondFactor(view: SecondFactorView): string {
  const chrome = view.chrome ?? DEFAULT_CHROME;
  const { t, tHtml } = chrome.i18n;
  const offer = view.offer ?? { code: true, passkey: false, passkeyUnusable: false };
  const nothing = !offer.code && !offer.passkey;
  const body = html`<h1>${t('Two-step verification')}</h1>
    <p>${tHtml('Signing in as {username}.', { username: html`<strong>${view.username}</strong>` })}</p>
    ${view.error ? html`<p role="alert" class="alert" id="second-factor-error">${view.error}</p>` : ''}
    ${offer.code ? renderCodeForm(chrome, view) : ''}
    ${offer.passkey ? renderSecondFactorPasskey(chrome, view.csrfToken, !offer.code) : ''}
    ${nothing && offer.passkeyUnusable ? renderPasskeyUnusable(chrome) : ''}
    ${
      nothing && !offer.passkeyUnusable
        ? html`<p class="alert">
            ${t('This sign-in cannot be finished here. Ask an administrator to reset your two-step verification.')}
          </p>`
        : ''
    }`;
  return renderLayout({
    title: t('Two-step verification'),
    body,
    chrome,
    ...(offer.passkey ? { scripts: [SECOND_FACTOR_PASSKEY_SCRIPT] } : {}),
  });
}

function renderCodeForm(chrome: PageChrome, view: SecondFactorView) {
  const { t } = chrome.i18n;
  // The error and the hint both describe the field (one aria-describedby: a repeated attribute is dropped).
  const invalid = view.error ? html`aria-invalid="true"` : '';
  const describedBy = view.error ? 'second-factor-error code-hint' : 'code-hint';
  return html`<form method="post" action="${view.action ?? '/login/second-factor'}">
    ${csrfField(view.csrfToken)}
    <div class="field">
      <label for="code">${t('Code from your authenticator app')}</label>
      <input
        id="code"
        name="code"
        type="text"
        inputmode="text"
        autocomplete="one-time-code"
        autocapitalize="none"
        spellcheck="false"
        maxlength="64"
        required
        aria-describedby="${describedBy}"
        ${invalid}
      />
      <p class="muted" id="code-hint">${t('Lost your phone? Enter one of your recovery codes instead.')}</p>
    </div>
    <div class="actions"><button type="submit">${t('Verify')}</button></div>
  </form>`;
}
