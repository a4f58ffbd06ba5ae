import { escapeHtml, html, SafeHtml, type HtmlValue } from '../views/html';

/**
 * A page's messages in one language. Messages are keyed by their English text (gettext's model): the
 * pages' source is the English catalogue, a language is a file mapping each English message to its
 * translation (i18n/messages/<lang>.json), and a message a file lacks shows in English.
 * Placeholders are `{name}`.
 */
export interface Translator {
  /** BCP 47 tag of the language the messages are in (<html lang>). */
  readonly lang: string;
  /** The message as text (escaped later by the html tag, like any value). */
  t(message: string, params?: Readonly<Record<string, string | number>>): string;
  /** The message as markup: its text escaped, each parameter rendered as the html tag renders values. */
  tHtml(message: string, params: Readonly<Record<string, HtmlValue>>): SafeHtml;
}

const PLACEHOLDER = /\{([a-z_]+)\}/g;

export function createTranslator(lang: string, messages: ReadonlyMap<string, string>): Translator {
  const lookup = (message: string) => messages.get(message) ?? message;
  return {
    lang,
    t(message, params = {}) {
      return lookup(message).replace(PLACEHOLDER, (whole, name: string) =>
        Object.hasOwn(params, name) ? String(params[name]) : whole,
      );
    },
    tHtml(message, params) {
      const text = lookup(message);
      let out = '';
      let last = 0;
      for (const match of text.matchAll(PLACEHOLDER)) {
        const name = match[1] as string;
        out += escapeHtml(text.slice(last, match.index));
        out += Object.hasOwn(params, name) ? html`${params[name] as HtmlValue}`.value : escapeHtml(match[0]);
        last = (match.index ?? 0) + match[0].length;
      }
      return new SafeHtml(out + escapeHtml(text.slice(last)));
    },
  };
}

/** English: the messages as written in the pages. */
export const ENGLISH: Translator = createTranslator('en', new Map());
