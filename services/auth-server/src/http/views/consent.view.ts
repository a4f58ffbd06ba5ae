import { html } from './html';
import { csrfField, DEFAULT_CHROME, renderLayout, type PageChrome } from './layout.view';
import { scopeWords } from './scope-words';
import { claimLines } from './claim-words';
import type { PageLogo } from '../../domain/clients/client-logo';
import { renderClientLogo } from './client-logo.view';

interface ConsentBase {
  csrfToken: string;
  clientName: string;
  clientId: string;
  /** The requested scopes in words, in request order. */
  scopes: { scope: string; description: string }[];
  /** Claims asked for by name beyond the scopes' (OIDC Core §5.5 `claims`), listed after them. */
  claims?: readonly string[];
  username: string;
  /** The client's logo (client-logo.view.ts). */
  logo?: PageLogo;
  chrome?: PageChrome;
}

/** What the decision is about, posted back so it is checked afresh. */
type ConsentSubject =
  /** An authorization request's parameters, to POST /consent. */
  | { authorizeQuery: string; userCode?: never }
  /** A device authorization's user code (RFC 8628 §3.3), to POST /device. */
  | { userCode: string; authorizeQuery?: never };

export type ConsentView = ConsentBase & ConsentSubject;

export function renderConsent(view: ConsentView): string {
  const chrome = view.chrome ?? DEFAULT_CHROME;
  const { t, tHtml } = chrome.i18n;
  const device = view.userCode !== undefined;
  const client = html`<strong>${view.clientName}</strong>`;
  const body = html`${renderClientLogo(view.logo, view.clientName)}
    <h1>${t('Allow {client} to access your account?', { client: view.clientName })}</h1>
    <p>
      ${tHtml('You are signed in as {username}.', { username: html`<strong>${view.username}</strong>` })}
      ${tHtml('{client} ({client_id}) asks to:', { client, client_id: view.clientId })}
    </p>
    <ul class="scopes">
      ${view.scopes.map((item) => html`<li data-scope="${item.scope}">${scopeWords(chrome.i18n, item)}</li> `)}
      ${claimLines(chrome.i18n, view.claims ?? []).map(
        (line) => html`<li data-claim="${line.claim}">${line.words}</li> `,
      )}
    </ul>
    ${
      device
        ? // RFC 8628 §5.4: a code sent by someone else (remote phishing) is refused by the user who checks it.
          html`<p id="device-code-check">
            ${tHtml(
              'Allow only if you are signing in on a device that shows the code {code}. If someone sent you this code, choose Deny.',
              { code: html`<strong class="user-code" data-user-code>${view.userCode}</strong>` },
            )}
          </p>`
        : ''
    }
    <form method="post" action="${device ? '/device' : '/consent'}">
      ${csrfField(view.csrfToken)}
      ${
        device
          ? html`<input type="hidden" name="user_code" value="${view.userCode}" />`
          : html`<input type="hidden" name="authorize_query" value="${view.authorizeQuery}" />`
      }
      <div class="actions">
        <button type="submit" name="decision" value="allow">${t('Allow')}</button>
        <button type="submit" name="decision" value="deny" class="secondary">${t('Deny')}</button>
      </div>
    </form>`;
  return renderLayout({ title: t('Allow {client}?', { client: view.clientName }), body, chrome });
}
