import { html } from './html';
import { DEFAULT_CHROME, renderLayout, type PageChrome } from './layout.view';

export interface ErrorView {
  /** Title and message in English: shown in the page's language when its catalogue has them. */
  title: string;
  message: string;
  /** The OAuth error code, when there is one (shown so a developer can look it up). */
  code?: string;
  chrome?: PageChrome;
}

/** Shown instead of a redirect when the client or redirect_uri cannot be trusted (RFC 6749 §4.1.2.1). */
export function renderError(view: ErrorView): string {
  const chrome = view.chrome ?? DEFAULT_CHROME;
  const { t, tHtml } = chrome.i18n;
  const title = t(view.title);
  const body = html`<h1>${title}</h1>
    <p role="alert" class="alert">${t(view.message)}</p>
    ${view.code ? html`<p class="muted">${tHtml('Error code: {code}', { code: html`<code>${view.code}</code>` })}</p>` : ''}`;
  return renderLayout({ title, body, chrome });
}
