import { html } from './html';
import { csrfField, renderLayout } from './layout.view';

export interface LoginView {
  csrfToken: string;
  returnTo: string;
  /** The application asking, when the login is part of an authorization request. */
  clientName?: string;
  username?: string;
  error?: string;
}

export function renderLogin(view: LoginView): string {
  const body = html`<h1>Sign in</h1>
    ${view.clientName ? html`<p>Sign in to continue to <strong>${view.clientName}</strong>.</p>` : ''}
    ${view.error ? html`<p role="alert" id="login-error">${view.error}</p>` : ''}
    <form method="post" action="/login">
      ${csrfField(view.csrfToken)}
      <input type="hidden" name="return_to" value="${view.returnTo}" />
      <p>
        <label for="username">Username</label>
        <input
          id="username"
          name="username"
          type="text"
          autocomplete="username"
          required
          value="${view.username ?? ''}"
          ${view.error ? html` aria-describedby="login-error"` : ''}
        />
      </p>
      <p>
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
      </p>
      <p><button type="submit">Sign in</button></p>
    </form>`;
  return renderLayout({ title: 'Sign in', body });
}
