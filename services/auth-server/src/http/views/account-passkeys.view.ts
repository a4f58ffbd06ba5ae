import { PASSKEYS_SCRIPT } from '../page-assets';
import { html, type SafeHtml } from './html';
import { csrfField, type PageChrome } from './layout.view';

export interface AccountPasskeyItem {
  /** base64url credential id. */
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** A synced passkey (backup eligible). */
  synced: boolean;
}

export interface AccountPasskeysView {
  passkeys: AccountPasskeyItem[];
  canAdd: boolean;
  max: number;
  maxNameLength: number;
  /** Already in the page's language. */
  notice?: string;
  alert?: string;
}

/** The script the section needs (account.view.ts links it when the section is shown). */
export const ACCOUNT_PASSKEYS_SCRIPT = PASSKEYS_SCRIPT.href;

const day = (date: Date) =>
  html`<time datetime="${date.toISOString()}">${date.toISOString().slice(0, 10)}</time>`;

/**
 * The account page's "Passkeys" section: each passkey with its name, when it was added and last used, a
 * rename form and a delete button; then the form that adds one, hidden until passkeys.js finds WebAuthn
 * (a note says so without JavaScript). Every form carries the CSRF token.
 */
export function renderAccountPasskeys(
  view: AccountPasskeysView,
  chrome: PageChrome,
  csrfToken: string,
): SafeHtml {
  const { t, tHtml } = chrome.i18n;
  const items = view.passkeys.map(
    (passkey, index) =>
      html`<li>
        <h3>${passkey.name}</h3>
        <p>
          ${tHtml('Added on {date}.', { date: day(passkey.createdAt) })}
          ${
            passkey.lastUsedAt
              ? tHtml('Last used on {date}.', { date: day(passkey.lastUsedAt) })
              : t('Not used yet.')
          }
          ${passkey.synced ? t('Synced between your devices.') : ''}
        </p>
        <form method="post" action="/account/passkeys/rename">
          ${csrfField(csrfToken)}
          <input type="hidden" name="credential_id" value="${passkey.id}" />
          <div class="field">
            <label for="passkey-name-${index}">${t('New name for {name}', { name: passkey.name })}</label>
            <input
              id="passkey-name-${index}"
              name="name"
              type="text"
              required
              maxlength="${view.maxNameLength}"
              value="${passkey.name}"
            />
          </div>
          <button type="submit" class="secondary">${t('Rename')}</button>
        </form>
        <form method="post" action="/account/passkeys/delete">
          ${csrfField(csrfToken)}
          <input type="hidden" name="credential_id" value="${passkey.id}" />
          <button
            type="submit"
            class="secondary"
            aria-label="${t('Delete passkey {name}', { name: passkey.name })}"
          >
            ${t('Delete')}
          </button>
        </form>
      </li>`,
  );
  return html`<section id="passkeys" aria-labelledby="passkeys-heading" class="passkeys">
    <h2 id="passkeys-heading">${t('Passkeys')}</h2>
    <p>
      ${t('Sign in with your fingerprint, face or screen lock instead of your password.')}
      ${t('Once you have a passkey, signing in with your password asks for it too, as a second step.')}
    </p>
    ${view.notice ? html`<p role="status" class="notice">${view.notice}</p>` : ''}
    ${view.alert ? html`<p role="alert" class="alert">${view.alert}</p>` : ''}
    ${
      view.passkeys.length === 0
        ? html`<p>${t('You have no passkeys yet.')}</p>`
        : html`<ul class="passkey-list">
            ${items}
          </ul>`
    }
    ${
      view.canAdd
        ? html`<p class="hint" data-passkey-unsupported>
              ${t('Adding a passkey needs JavaScript and a browser that supports passkeys.')}
            </p>
            <form
              method="post"
              action="/account/passkeys"
              data-passkey="create"
              data-options="/account/passkeys/options"
              data-msg-waiting="${t('Follow your browser’s instructions to create the passkey.')}"
              data-msg-failed="${t('The passkey could not be added. Try again.')}"
              data-passkey-section
              hidden
            >
              ${csrfField(csrfToken)}
              <input type="hidden" name="credential" value="" />
              <div class="field">
                <label for="passkey-new-name">${t('Name for the new passkey (optional)')}</label>
                <input id="passkey-new-name" name="name" type="text" maxlength="${view.maxNameLength}" />
              </div>
              <div class="actions"><button type="submit">${t('Add a passkey')}</button></div>
              <p role="status" aria-live="polite" data-passkey-status></p>
            </form>`
        : html`<p>${t('You have {max} passkeys, the most allowed. Delete one first.', { max: view.max })}</p>`
    }
  </section>`;
}
