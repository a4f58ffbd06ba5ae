import { html } from './html';
import { csrfField, DEFAULT_CHROME, renderLayout, type PageChrome } from './layout.view';

export interface SecondFactorView {
  csrfToken: string;
  username: string;
  /** Already in the page's language (the route words it). */
  error?: string;
  chrome?: PageChrome;
}

/** The second step of a sign-in (or a step-up): a code from the authenticator app, or a recovery code. */
export function renderSecondFactor(view: SecondFactorView): string {
  const chrome = view.chrome ?? DEFAULT_CHROME;
  const { t, tHtml } = chrome.i18n;
  // The error and the hint both describe the field (one aria-describedby: a repeated attribute is dropped).
  const invalid = view.error ? html`aria-invalid="true"` : '';
  const describedBy = view.error ? 'second-factor-error code-hint' : 'code-hint';
  const body = html`<h1>${t('Two-step verification')}</h1>
    <p>${tHtml('Signing in as {username}.', { username: html`<strong>${view.username}</strong>` })}</p>
    ${view.error ? html`<p role="alert" class="alert" id="second-factor-error">${view.error}</p>` : ''}
    <form method="post" action="/login/second-factor">
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
  return renderLayout({ title: t('Two-step verification'), body, chrome });
}
