import { html } from './html';
import { csrfField, renderLayout, type PageChrome } from './layout.view';

export interface LoginView {
  csrfToken: string;
  returnTo: string;
  /** The application asking, when the login is part of an authorization request. */
  clientName?: string;
  username?: string;
  error?: string;
  chrome?: PageChrome;
}

export function renderLogin(view: LoginView): string {
  // The error names the field it is about (aria-describedby, aria-invalid): screen readers read both.
  const invalid = view.error ? html` aria-invalid="true" aria-describedby="login-error"` : '';
  const body = html`<h1>Sign in</h1>
    ${
      view.clientName
        ? html`<p class="client">Sign in to continue to <strong>${view.clientName}</strong>.</p>`
        : ''
    }
    ${view.error ? html`<p role="alert" class="alert" id="login-error">${view.error}</p>` : ''}
    <form method="post" action="/login">
      ${csrfField(view.csrfToken)}
      <input type="hidden" name="return_to" value="${view.returnTo}" />
      <div class="field">
        <label for="username">Username</label>
        <input
          id="username"
          name="username"
          type="text"
          autocomplete="username"
          autocapitalize="none"
          spellcheck="false"
          required
          value="${view.username ?? ''}"
          ${invalid}
        />
      </div>
      <div class="field">
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          ${invalid}
        />
      </div>
      <div class="actions"><button type="submit">Sign in</button></div>
    </form>`;
  return renderLayout({ title: 'Sign in', body, chrome: view.chrome });
}
