import { BUILT_IN_STYLESHEET } from '../page-assets';
import { ENGLISH, type Translator } from '../i18n/translator';
import { html, type SafeHtml } from './html';

/** What every page carries besides its content: language, brand and stylesheets (http/page-chrome.ts). */
export interface PageChrome {
  /** BCP 47 tag of the page's language, for <html lang>. */
  lang: string;
  /** The operator's product name in the header (UI_BRAND_NAME); none when empty. */
  brand: string;
  /** Same-origin stylesheets, in order: the built-in design, then the operator's theme. */
  stylesheets: readonly string[];
  /** The page's messages, in its language (i18n/). */
  i18n: Translator;
  /** The sign-in page offers passkeys (not on an issuer whose host is an IP address). */
  passkeys?: boolean;
}

/** English, no brand, the built-in design: pages rendered outside a request (tests, early errors). */
export const DEFAULT_CHROME: PageChrome = {
  lang: 'en',
  brand: '',
  stylesheets: [BUILT_IN_STYLESHEET.href],
  i18n: ENGLISH,
};

export interface LayoutOptions {
  title: string;
  body: SafeHtml;
  chrome?: PageChrome;
  /** A wide card for tables (the admin console). */
  wide?: boolean;
  /** Same-origin scripts (page-assets.ts, content-hashed), deferred; only pages that need one (WebAuthn). */
  scripts?: readonly string[];
}

/**
 * The page shell: language, charset, viewport, the stylesheets, a header with the brand and a single
 * <main> landmark. No scripts, inline styles or images from elsewhere (RFC 9700 §4.2.4: no
 * third-party resources on authorization pages; the CSP allows only 'self').
 */
export function renderLayout({
  title,
  body,
  chrome = DEFAULT_CHROME,
  wide,
  scripts = [],
}: LayoutOptions): string {
  return html`<!doctype html>
    <html lang="${chrome.lang}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <meta name="color-scheme" content="light" />
        <title>${chrome.brand ? `${title} · ${chrome.brand}` : title}</title>
        ${chrome.stylesheets.map((href) => html`<link rel="stylesheet" href="${href}" />`)}
        ${scripts.map((src) => html`<script src="${src}" defer></script>`)}
      </head>
      <body>
        ${chrome.brand ? html`<header class="site-header"><span class="brand">${chrome.brand}</span></header>` : ''}
        <main class="${wide ? 'card card-wide' : 'card'}">${body}</main>
      </body>
    </html> `.value;
}

/** A hidden CSRF field; every form carries one. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="csrf_token" value="${token}" />`;
}
