import { html } from './html';
import { csrfField, renderLayout, type PageChrome } from './layout.view';

export interface LogoutConfirmView {
  csrfToken: string;
  username: string;
  /** The application asking, when it is known (client_id or id_token_hint). */
  clientName?: string;
  /** Carried to the confirmation POST, which checks them again. */
  clientId?: string;
  postLogoutRedirectUri?: string;
  state?: string;
  chrome?: PageChrome;
}

/** OIDC RP-Initiated Logout 1.0 §2: "ask the End-User whether to log out of the OP" without a valid hint. */
export function renderLogoutConfirm(view: LogoutConfirmView): string {
  const hidden = (name: string, value: string | undefined) =>
    value === undefined ? '' : html`<input type="hidden" name="${name}" value="${value}" />`;
  const body = html`<h1>Sign out?</h1>
    <p>
      ${
        view.clientName
          ? html`<strong>${view.clientName}</strong> asks to sign you out.`
          : html`An application asks to sign you out.`
      }
      You are signed in as <strong>${view.username}</strong>.
    </p>
    <form method="post" action="/session/end/confirm">
      ${csrfField(view.csrfToken)} ${hidden('client_id', view.clientId)}
      ${hidden('post_logout_redirect_uri', view.postLogoutRedirectUri)} ${hidden('state', view.state)}
      <div class="actions"><button type="submit">Sign out</button></div>
    </form>
    <p class="muted">To stay signed in, close this page.</p>`;
  return renderLayout({ title: 'Sign out?', body, chrome: view.chrome });
}

export function renderSignedOut(chrome?: PageChrome): string {
  return renderLayout({
    title: 'Signed out',
    body: html`<h1>You are signed out</h1>
      <p><a href="/account">Sign in again</a></p>`,
    chrome,
  });
}
