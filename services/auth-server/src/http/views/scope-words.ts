import type { Translator } from '../i18n/translator';

/**
 * A scope in the page's language: the domain's English words (domain/consent/describe-scopes.ts) are
 * the message; an unknown scope keeps its own name ("Use the "x" permission").
 */
export function scopeWords(i18n: Translator, item: { scope: string; description: string }): string {
  const unknown = `Use the "${item.scope}" permission`;
  return item.description === unknown
    ? i18n.t('Use the "{scope}" permission', { scope: item.scope })
    : i18n.t(item.description);
}
