import type { Request } from 'express';
import { negotiateLocale } from './i18n/negotiate-locale';
import type { MessageCatalogue } from './i18n/message-catalogue';
import type { PageAssets } from './page-assets';
import type { PageChrome } from './views/layout.view';

/**
 * `ui_locales` of the authorization request a page belongs to: on /authorize itself, or carried in
 * the login form's `return_to` and the consent form's `authorize_query` (so the language holds from
 * the first page to the last). A parameter, never a cookie: nothing is remembered about the browser.
 */
function uiLocalesOf(req: Request): string | undefined {
  const direct = req.query.ui_locales;
  if (typeof direct === 'string') return direct;
  const body = (req.body ?? {}) as Record<string, unknown>;
  for (const carried of [req.query.return_to, body.return_to, body.authorize_query]) {
    if (typeof carried !== 'string' || carried.length > 8192) continue;
    const query = carried.startsWith('/authorize?') ? carried.slice('/authorize?'.length) : carried;
    const value = new URLSearchParams(query).get('ui_locales');
    if (value !== null) return value;
  }
  return undefined;
}

/**
 * Each page's language (ui_locales, then Accept-Language), brand and stylesheets. `uiLocales`: the parsed
 * authorization request's, which wins over the query's (a pushed request or a request object carries its
 * own, RFC 9126 §4 and RFC 9101 §6.3: the query's other parameters are ignored).
 */
export function createPageChrome(
  brand: string,
  assets: PageAssets,
  catalogue: MessageCatalogue,
  features: { passkeys?: boolean } = {},
): (req: Request, uiLocales?: string) => PageChrome {
  return (req, uiLocales) => {
    const accept = req.headers['accept-language'];
    const lang = negotiateLocale(
      catalogue.languages,
      uiLocales ?? uiLocalesOf(req),
      typeof accept === 'string' ? accept : undefined,
    );
    return {
      lang,
      brand,
      stylesheets: assets.stylesheets,
      i18n: catalogue.translator(lang),
      ...(features.passkeys ? { passkeys: true } : {}),
    };
  };
}
