import type { Token, TokenFilter } from './token';

/** Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, Elasticsearch's `_english_`. */
export const ENGLISH_STOP_WORDS: readonly string[] = [
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'but',
  'by',
  'for',
  'if',
  'in',
  'into',
  'is',
  'it',
  'no',
  'not',
  'of',
  'on',
  'or',
  'such',
  'that',
  'the',
  'their',
  'then',
  'there',
  'these',
  'they',
  'this',
  'to',
  'was',
  'will',
  'with',
];

/**
 * Lowercases each token (Unicode, locale-independent, as Lucene's LowerCaseFilter). A token already in
 * lower case is kept as it is (tokens are never mutated): most are, and a copy per token was a large
 * share of an ingest's garbage.
 */
export const lowercaseFilter: TokenFilter = (tokens) =>
  tokens.map((t) => {
    const term = t.term.toLowerCase();
    return term === t.term ? t : { ...t, term };
  });

export const uppercaseFilter: TokenFilter = (tokens) =>
  tokens.map((t) => ({ ...t, term: t.term.toUpperCase() }));

/** Drops stop words; the positions of the remaining tokens keep their gaps (Lucene's StopFilter). */
export function stopFilter(
  stopWords: readonly string[] = ENGLISH_STOP_WORDS,
  ignoreCase = false,
): TokenFilter {
  const set = new Set(ignoreCase ? stopWords.map((w) => w.toLowerCase()) : stopWords);
  return (tokens) => tokens.filter((t) => !set.has(ignoreCase ? t.term.toLowerCase() : t.term));
}

// Letters that Unicode decomposition does not reduce to ASCII; from Lucene's ASCIIFoldingFilter table.
const SPECIAL_FOLDS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  Æ: 'AE',
  ø: 'o',
  Ø: 'O',
  œ: 'oe',
  Œ: 'OE',
  đ: 'd',
  Đ: 'D',
  ł: 'l',
  Ł: 'L',
  þ: 'th',
  Þ: 'TH',
  ð: 'd',
  Ð: 'D',
  ı: 'i',
  ĸ: 'q',
  ŀ: 'l',
  Ŀ: 'L',
  ŉ: "'n",
  ŋ: 'n',
  Ŋ: 'N',
  ſ: 's',
  ƒ: 'f',
  ħ: 'h',
  Ħ: 'H',
  ŧ: 't',
  Ŧ: 'T',
  '\u2018': "'",
  '\u2019': "'",
  '\u201c': '"',
  '\u201d': '"',
  '\u2013': '-',
  '\u2014': '-',
};

/** Folds characters to their ASCII equivalents (café → cafe); with preserveOriginal both are kept. */
export function asciiFoldingFilter(preserveOriginal = false): TokenFilter {
  return (tokens) =>
    tokens.flatMap((t) => {
      const folded = foldToAscii(t.term);
      if (folded === t.term) return [t];
      const foldedToken: Token = { ...t, term: folded };
      return preserveOriginal ? [foldedToken, t] : [foldedToken];
    });
}

export function foldToAscii(term: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\u0000-\u007f]*$/.test(term)) return term;
  let out = '';
  for (const char of term) {
    const special = SPECIAL_FOLDS[char];
    if (special !== undefined) {
      out += special;
      continue;
    }
    const stripped = char.normalize('NFKD').replace(/\p{M}/gu, '');
    // eslint-disable-next-line no-control-regex
    out += /^[\u0000-\u007f]+$/.test(stripped) ? stripped : char;
  }
  return out;
}
