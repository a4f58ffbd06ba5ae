import { html } from './html';
import { renderLayout, type PageChrome } from './layout.view';

export interface ErrorView {
  title: string;
  message: string;
  /** The OAuth error code, when there is one (shown so a developer can look it up). */
  code?: string;
  chrome?: PageChrome;
}

/** Shown instead of a redirect when the client or redirect_uri cannot be trusted (RFC 6749 §4.1.2.1). */
export function renderError(view: ErrorView): string {
  const body = html`<h1>${view.title}</h1>
    <p role="alert" class="alert">${view.message}</p>
    ${view.code ? html`<p class="muted">Error code: <code>${view.code}</code></p>` : ''}`;
  return renderLayout({ title: view.title, body, chrome: view.chrome });
}
