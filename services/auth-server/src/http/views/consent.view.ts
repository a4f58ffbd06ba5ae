import { html } from './html';
import { csrfField, renderLayout, type PageChrome } from './layout.view';

interface ConsentBase {
  csrfToken: string;
  clientName: string;
  clientId: string;
  /** The requested scopes in words, in request order. */
  scopes: { scope: string; description: string }[];
  username: string;
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
  const device = view.userCode !== undefined;
  const body = html`<h1>Allow ${view.clientName} to access your account?</h1>
    <p>
      You are signed in as <strong>${view.username}</strong>.
      <strong>${view.clientName}</strong> (${view.clientId}) asks to:
    </p>
    <ul class="scopes">
      ${view.scopes.map((item) => html`<li data-scope="${item.scope}">${item.description}</li> `)}
    </ul>
    ${
      device
        ? // RFC 8628 §5.4: a code sent by someone else (remote phishing) is refused by the user who checks it.
          html`<p id="device-code-check">
            Allow only if you are signing in on a device that shows the code
            <strong class="user-code" data-user-code>${view.userCode}</strong>. If someone sent you this code,
            choose Deny.
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
        <button type="submit" name="decision" value="allow">Allow</button>
        <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
      </div>
    </form>`;
  return renderLayout({ title: `Allow ${view.clientName}?`, body, chrome: view.chrome });
}
