import { html, type SafeHtml } from './html';

export interface LayoutOptions {
  title: string;
  body: SafeHtml;
}

/**
 * The page shell: language, charset, viewport and a single <main> landmark. No scripts, styles or
 * images from anywhere (RFC 9700 §4.2.4: no third-party resources on authorization pages).
 */
export function renderLayout({ title, body }: LayoutOptions): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title}</title>
      </head>
      <body>
        <main>${body}</main>
      </body>
    </html> `.value;
}

/** A hidden CSRF field; every form carries one. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="csrf_token" value="${token}" />`;
}
