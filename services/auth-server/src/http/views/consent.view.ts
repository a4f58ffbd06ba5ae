import { html } from './html';
import { csrfField, renderLayout } from './layout.view';

export interface ConsentView {
  csrfToken: string;
  clientName: string;
  clientId: string;
  /** The requested scopes in words, in request order. */
  scopes: { scope: string; description: string }[];
  /** The authorization request's parameters, posted back so the decision is checked afresh. */
  authorizeQuery: string;
  username: string;
}

export function renderConsent(view: ConsentView): string {
  const body = html`<h1>Allow ${view.clientName} to access your account?</h1>
    <p>
      You are signed in as <strong>${view.username}</strong>.
      <strong>${view.clientName}</strong> (${view.clientId}) asks to:
    </p>
    <ul>
      ${view.scopes.map((item) => html`<li data-scope="${item.scope}">${item.description}</li> `)}
    </ul>
    <form method="post" action="/consent">
      ${csrfField(view.csrfToken)}
      <input type="hidden" name="authorize_query" value="${view.authorizeQuery}" />
      <p>
        <button type="submit" name="decision" value="allow">Allow</button>
        <button type="submit" name="decision" value="deny">Deny</button>
      </p>
    </form>`;
  return renderLayout({ title: `Allow ${view.clientName}?`, body });
}
