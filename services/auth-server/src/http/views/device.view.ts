import { html } from './html';
import { csrfField, DEFAULT_CHROME, renderLayout, type PageChrome } from './layout.view';
import type { PageLogo } from '../../domain/clients/client-logo';
import { renderClientLogo } from './client-logo.view';

export interface DeviceEntryView {
  csrfToken: string;
  username: string;
  /** Prefilled from verification_uri_complete, or what was typed (normalized). */
  userCode?: string;
  /** Already in the page's language (the route words it). */
  error?: string;
  chrome?: PageChrome;
}

/** The verification_uri page (RFC 8628 §3.3): the user types the code the device shows. */
export function renderDeviceEntry(view: DeviceEntryView): string {
  const chrome = view.chrome ?? DEFAULT_CHROME;
  const { t, tHtml } = chrome.i18n;
  const body = html`<h1>${t('Connect a device')}</h1>
    <p>${tHtml('Signed in as {username}.', { username: html`<strong>${view.username}</strong>` })}</p>
    ${view.error ? html`<p role="alert" class="alert" id="device-error">${view.error}</p>` : ''}
    <form method="post" action="/device">
      ${csrfField(view.csrfToken)}
      <div class="field">
        <label for="user_code">${t('Code shown on your device')}</label>
        <input
          id="user_code"
          name="user_code"
          type="text"
          autocomplete="off"
          autocapitalize="characters"
          spellcheck="false"
          maxlength="64"
          required
          value="${view.userCode ?? ''}"
          class="user-code"
          ${view.error ? html` aria-invalid="true" aria-describedby="device-error"` : ''}
        />
      </div>
      <div class="actions"><button type="submit">${t('Continue')}</button></div>
    </form>`;
  return renderLayout({ title: t('Connect a device'), body, chrome });
}

export interface DeviceDoneView {
  approved: boolean;
  clientName?: string;
  /** The client's logo, shown with its name (client-logo.view.ts). */
  logo?: PageLogo;
  chrome?: PageChrome;
}

/** After the decision: the user goes back to the device, which gets its answer at its next poll. */
export function renderDeviceDone(view: DeviceDoneView): string {
  const chrome = view.chrome ?? DEFAULT_CHROME;
  const { t } = chrome.i18n;
  const title = view.approved ? t('Device connected') : t('Access denied');
  const body = view.approved
    ? html`${renderClientLogo(view.logo, view.clientName)}
        <h1>${title}</h1>
        <p role="status" class="notice">
          ${
            view.clientName
              ? t('{client} now has access. You can go back to your device.', { client: view.clientName })
              : t('The device now has access. You can go back to your device.')
          }
        </p>`
    : html`<h1>${title}</h1>
        <p role="status">${t('The device was not given access. You can close this page.')}</p>`;
  return renderLayout({ title, body, chrome });
}
