import { html } from './html';
import { csrfField, renderLayout, type PageChrome } from './layout.view';

export interface DeviceEntryView {
  csrfToken: string;
  username: string;
  /** Prefilled from verification_uri_complete, or what was typed (normalized). */
  userCode?: string;
  error?: string;
  chrome?: PageChrome;
}

/** The verification_uri page (RFC 8628 §3.3): the user types the code the device shows. */
export function renderDeviceEntry(view: DeviceEntryView): string {
  const body = html`<h1>Connect a device</h1>
    <p>Signed in as <strong>${view.username}</strong>.</p>
    ${view.error ? html`<p role="alert" class="alert" id="device-error">${view.error}</p>` : ''}
    <form method="post" action="/device">
      ${csrfField(view.csrfToken)}
      <div class="field">
        <label for="user_code">Code shown on your device</label>
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
      <div class="actions"><button type="submit">Continue</button></div>
    </form>`;
  return renderLayout({ title: 'Connect a device', body, chrome: view.chrome });
}

export interface DeviceDoneView {
  approved: boolean;
  clientName?: string;
  chrome?: PageChrome;
}

/** After the decision: the user goes back to the device, which gets its answer at its next poll. */
export function renderDeviceDone(view: DeviceDoneView): string {
  const body = view.approved
    ? html`<h1>Device connected</h1>
        <p role="status" class="notice">
          ${view.clientName ?? 'The device'} now has access. You can go back to your device.
        </p>`
    : html`<h1>Access denied</h1>
        <p role="status">The device was not given access. You can close this page.</p>`;
  return renderLayout({
    title: view.approved ? 'Device connected' : 'Access denied',
    body,
    chrome: view.chrome,
  });
}
