/** At most this many language ranges are read from a header or ui_locales: the rest are ignored. */
const MAX_RANGES = 20;
const MAX_HEADER = 1024;
const LANGUAGE_RANGE = /^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/;

/**
 * The page's language: the first of `ui_locales` (OIDC Core §3.1.2.1: the End-User's preferred
 * languages, space-separated, in order) the pages speak, else the best of Accept-Language
 * (RFC 9110 §12.5.4, q-values), else English. A tag matches a language exactly or by its primary
 * subtag (RFC 4647 §3.4 lookup: de-AT → de); ranges are matched case-insensitively.
 */
export function negotiateLocale(
  available: readonly string[],
  uiLocales: string | undefined,
  acceptLanguage: string | undefined,
): string {
  const byLower = new Map(available.map((lang) => [lang.toLowerCase(), lang]));
  const find = (range: string): string | undefined => {
    if (!LANGUAGE_RANGE.test(range)) return undefined;
    const subtags = range.toLowerCase().split('-');
    for (let n = subtags.length; n > 0; n--) {
      const match = byLower.get(subtags.slice(0, n).join('-'));
      if (match) return match;
    }
    return undefined;
  };
  for (const range of (uiLocales ?? '').slice(0, MAX_HEADER).split(' ').slice(0, MAX_RANGES)) {
    const match = find(range);
    if (match) return match;
  }
  const weighted = (acceptLanguage ?? '')
    .slice(0, MAX_HEADER)
    .split(',')
    .slice(0, MAX_RANGES)
    .map((part, order) => {
      const [range = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(p)?.[1]).find(Boolean);
      return { range: range.trim(), q: q === undefined ? 1 : Number(q), order };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q || a.order - b.order);
  for (const { range } of weighted) {
    const match = find(range);
    if (match) return match;
  }
  return 'en';
}
