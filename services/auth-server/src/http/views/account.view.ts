import { html } from './html';
import { csrfField, renderLayout, type PageChrome } from './layout.view';

export interface AuthorizedAppView {
  clientId: string;
  clientName: string;
  scopes: { scope: string; description: string }[];
  authorizedAt: Date;
}

export interface AccountView {
  csrfToken: string;
  username: string;
  apps: AuthorizedAppView[];
  notice?: string;
  chrome?: PageChrome;
}

export function renderAccount(view: AccountView): string {
  const apps = view.apps.map(
    (app) =>
      html`<li>
        <h3>${app.clientName}</h3>
        <p>
          Authorized on
          <time datetime="${app.authorizedAt.toISOString()}"
            >${app.authorizedAt.toISOString().slice(0, 10)}</time
          >
          to:
        </p>
        <ul class="scopes">
          ${app.scopes.map((item) => html`<li data-scope="${item.scope}">${item.description}</li>`)}
        </ul>
        <form method="post" action="/account/revoke">
          ${csrfField(view.csrfToken)}
          <input type="hidden" name="client_id" value="${app.clientId}" />
          <button type="submit" class="secondary" aria-label="Revoke access for ${app.clientName}">
            Revoke access
          </button>
        </form>
      </li> `,
  );
  const body = html`<h1>Your account</h1>
    <p>Signed in as <strong>${view.username}</strong>.</p>
    ${view.notice ? html`<p role="status" class="notice">${view.notice}</p>` : ''}
    <h2>Apps you authorized</h2>
    ${
      view.apps.length === 0
        ? html`<p>You have not authorized any apps.</p>`
        : html`<ul class="apps">
            ${apps}
          </ul>`
    }
    <div class="actions">
      <form method="post" action="/logout">
        ${csrfField(view.csrfToken)}
        <button type="submit">Sign out</button>
      </form>
      <form method="post" action="/account/sign-out-everywhere">
        ${csrfField(view.csrfToken)}
        <button type="submit" class="secondary">Sign out everywhere</button>
      </form>
    </div>`;
  return renderLayout({ title: 'Your account', body, chrome: view.chrome });
}
