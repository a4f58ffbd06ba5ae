import { html } from './html';
import { csrfField, DEFAULT_CHROME, renderLayout, type PageChrome } from './layout.view';

export interface AccountTotpView {
  csrfToken: string;
  /** off: nothing set up; pending: the QR code and secret are shown until a code proves them; on. */
  state: 'off' | 'pending' | 'on';
  /** The pending secret, base32, for manual entry. */
  secret?: string;
  recoveryCodesLeft?: number;
  /** Shown once, right after activation. */
  recoveryCodes?: string[];
  /** Already in the page's language (the route words it). */
  notice?: string;
  error?: string;
  chrome?: PageChrome;
}

/** GET /account/totp: set up, finish setting up, or turn off the authenticator app. */
export function renderAccountTotp(view: AccountTotpView): string {
  const chrome = view.chrome ?? DEFAULT_CHROME;
  const { t } = chrome.i18n;
  const invalid = view.error ? html`aria-invalid="true"` : '';
  // The error and the hint both describe the field (one aria-describedby: a repeated attribute is dropped).
  const describedBy = (hint?: string) => {
    const ids = [view.error ? 'totp-error' : '', hint ? 'code-hint' : ''].filter(Boolean).join(' ');
    return ids ? html`aria-describedby="${ids}"` : '';
  };
  const codeField = (label: string, hint?: string) =>
    html`<div class="field">
      <label for="code">${label}</label>
      <input
        id="code"
        name="code"
        type="text"
        inputmode="numeric"
        autocomplete="one-time-code"
        maxlength="64"
        ${describedBy(hint)}
        ${invalid}
      />
      ${hint ? html`<p class="muted" id="code-hint">${hint}</p>` : ''}
    </div>`;
  let content;
  if (view.recoveryCodes) {
    content = html`<p role="status" class="notice">${t('Two-step verification is on.')}</p>
      <h2>${t('Your recovery codes')}</h2>
      <p>
        ${t(
          'Each code signs you in once if you lose your phone. Keep them somewhere safe: they are shown only now.',
        )}
      </p>
      <ul class="recovery-codes" id="recovery-codes">
        ${view.recoveryCodes.map((code) => html`<li><code>${code}</code></li>`)}
      </ul>`;
  } else if (view.state === 'pending') {
    content = html`<ol class="totp-steps">
        <li>${t('Scan this QR code with an authenticator app.')}</li>
        <li>
          ${t('Or enter this key by hand:')}
          <code class="user-code" id="totp-secret"
            >${(view.secret ?? '').replace(/(.{4})(?=.)/g, '$1 ')}</code
          >
        </li>
        <li>${t('Enter the 6-digit code the app shows.')}</li>
      </ol>
      <img
        class="totp-qr"
        src="/account/totp/qr.svg"
        width="200"
        height="200"
        alt="${t('QR code for your authenticator app')}"
      />
      <form method="post" action="/account/totp/activate">
        ${csrfField(view.csrfToken)} ${codeField(t('6-digit code'))}
        <div class="actions"><button type="submit">${t('Turn on')}</button></div>
      </form>`;
  } else if (view.state === 'on') {
    content = html`<p>
        ${t('Two-step verification is on: signing in asks for a code from your authenticator app.')}
      </p>
      <p>${t('Recovery codes left: {count}', { count: String(view.recoveryCodesLeft ?? 0) })}</p>
      <h2>${t('Turn off two-step verification')}</h2>
      <form method="post" action="/account/totp/disable">
        ${csrfField(view.csrfToken)}
        ${codeField(t('Current code or your password'), t('Enter a code from the app, or your password.'))}
        <div class="actions"><button type="submit" class="secondary">${t('Turn off')}</button></div>
      </form>`;
  } else {
    content = html`<p>
        ${t('Add a second step to signing in: a code from an authenticator app on your phone.')}
      </p>
      <form method="post" action="/account/totp/start">
        ${csrfField(view.csrfToken)}
        <div class="actions"><button type="submit">${t('Set up an authenticator app')}</button></div>
      </form>`;
  }
  const body = html`<h1>${t('Two-step verification')}</h1>
    ${view.notice ? html`<p role="status" class="notice">${view.notice}</p>` : ''}
    ${view.error ? html`<p role="alert" class="alert" id="totp-error">${view.error}</p>` : ''} ${content}
    <p><a href="/account">${t('Back to your account')}</a></p>`;
  return renderLayout({ title: t('Two-step verification'), body, chrome });
}
