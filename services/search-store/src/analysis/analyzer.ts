import { copyDictionary, EsError, newDictionary } from '@acme/common';
import { keywordTokenizer, letterTokenizer, whitespaceTokenizer } from './simple-tokenizers';
import { standardTokenizer } from './standard-tokenizer';
import type { Token, TokenFilter, Tokenizer } from './token';
import {
  ENGLISH_STOP_WORDS,
  asciiFoldingFilter,
  lowercaseFilter,
  stopFilter,
  uppercaseFilter,
} from './token-filters';

/** An analyzer: one tokenizer, then token filters in order. */
export interface Analyzer {
  name: string;
  tokenizer: Tokenizer;
  filters: TokenFilter[];
}

/**
 * True for the standard tokenizer (default max_token_length) followed by lowercase and nothing else:
 * the built-in standard analyzer and its equivalents, which the indexer runs fused on ASCII text
 * (index/batch-analyzer.ts) with the same tokens as `analyze`.
 */
export function isStandardLowercase(analyzer: Analyzer): boolean {
  return (
    analyzer.tokenizer === TOKENIZERS.standard &&
    analyzer.filters.length === 1 &&
    analyzer.filters[0] === lowercaseFilter
  );
}

export function analyze(analyzer: Analyzer, text: string): Token[] {
  return analyzer.filters.reduce((tokens, filter) => filter(tokens), analyzer.tokenizer(text));
}

/** Analyzes every value of a multi-valued field; positions continue with Lucene's gap of 100 between values. */
export function analyzeValues(analyzer: Analyzer, values: string[], positionIncrementGap = 100): Token[] {
  if (values.length === 1) return analyze(analyzer, values[0]!);
  const all: Token[] = [];
  let base = 0;
  let offsetBase = 0;
  values.forEach((value, i) => {
    if (i > 0) base += positionIncrementGap;
    const tokens = analyze(analyzer, value);
    for (const t of tokens) {
      all.push({
        ...t,
        position: base + t.position,
        startOffset: offsetBase + t.startOffset,
        endOffset: offsetBase + t.endOffset,
      });
    }
    const last = tokens.at(-1);
    if (last) base += last.position + 1;
    offsetBase += value.length + 1; // Lucene's default offset gap is 1
  });
  return all;
}

// The built-in tables are looked up by names from mappings and index settings: null-prototype copies,
// so an analyzer, tokenizer or filter named `constructor` or `toString` is not found here (and is
// then read from the index's settings or refused as ES refuses it) instead of being `Object` (issue 17).
const TOKENIZERS: Record<string, Tokenizer> = copyDictionary({
  standard: (text) => standardTokenizer(text),
  whitespace: whitespaceTokenizer,
  keyword: keywordTokenizer,
  letter: letterTokenizer,
});

const FILTERS: Record<string, TokenFilter> = copyDictionary({
  lowercase: lowercaseFilter,
  uppercase: uppercaseFilter,
  asciifolding: asciiFoldingFilter(),
  stop: stopFilter(ENGLISH_STOP_WORDS),
});

export const BUILT_IN_ANALYZERS: Record<string, Analyzer> = copyDictionary({
  standard: { name: 'standard', tokenizer: TOKENIZERS.standard!, filters: [lowercaseFilter] },
  simple: { name: 'simple', tokenizer: letterTokenizer, filters: [lowercaseFilter] },
  whitespace: { name: 'whitespace', tokenizer: whitespaceTokenizer, filters: [] },
  keyword: { name: 'keyword', tokenizer: keywordTokenizer, filters: [] },
  stop: {
    name: 'stop',
    tokenizer: letterTokenizer,
    filters: [lowercaseFilter, stopFilter(ENGLISH_STOP_WORDS)],
  },
});

/** Settings may arrive flat ("index.analysis.analyzer.a.tokenizer") or nested; this reads both. */
export function flattenSettings(settings: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const flat = newDictionary<unknown>(); // keys carry analyzer, tokenizer and filter names
  for (const [key, value] of Object.entries(settings)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      Object.assign(flat, flattenSettings(value as Record<string, unknown>, path));
    } else {
      flat[path] = value;
    }
  }
  return flat;
}

/** Reads a list setting written as an array, a comma string, or numbered keys (`filter.0`). */
function listSetting(flat: Record<string, unknown>, key: string): string[] | undefined {
  const value = flat[key];
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === 'string')
    return value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const numbered = Object.keys(flat)
    .filter((k) => k.startsWith(`${key}.`) && /^\d+$/.test(k.slice(key.length + 1)))
    .sort((a, b) => Number(a.slice(key.length + 1)) - Number(b.slice(key.length + 1)));
  return numbered.length > 0 ? numbered.map((k) => String(flat[k])) : undefined;
}

/** Flat settings with every key under `index.` (ES accepts `analysis.…` as shorthand for `index.analysis.…`). */
function indexSettings(settings: Record<string, unknown>): Record<string, unknown> {
  const flat = flattenSettings(settings);
  return copyDictionary(
    Object.fromEntries(Object.entries(flat).map(([k, v]) => [k.startsWith('index.') ? k : `index.${k}`, v])),
  );
}

/** Resolves a token filter by name: built-in, or `index.analysis.filter.<name>` of the index. */
export function findTokenFilter(name: string, settings: Record<string, unknown> = {}): TokenFilter {
  const builtIn = FILTERS[name];
  if (builtIn) return builtIn;
  const flat = indexSettings(settings);
  const base = `index.analysis.filter.${name}`;
  const type = flat[`${base}.type`];
  if (type === 'stop') {
    const words = listSetting(flat, `${base}.stopwords`) ?? ['_english_'];
    const list = words.flatMap((w) => (w === '_english_' ? ENGLISH_STOP_WORDS : w === '_none_' ? [] : [w]));
    return stopFilter(list, String(flat[`${base}.ignore_case`]) === 'true');
  }
  if (type === 'asciifolding')
    return asciiFoldingFilter(String(flat[`${base}.preserve_original`]) === 'true');
  if (typeof type === 'string' && FILTERS[type]) return FILTERS[type];
  throw new EsError('illegal_argument_exception', `failed to find global token filter under [${name}]`);
}

export function findTokenizer(name: string, settings: Record<string, unknown> = {}): Tokenizer {
  const builtIn = TOKENIZERS[name];
  if (builtIn) return builtIn;
  const flat = indexSettings(settings);
  const base = `index.analysis.tokenizer.${name}`;
  const type = flat[`${base}.type`];
  if (type === 'standard') {
    const max = Number(flat[`${base}.max_token_length`] ?? 255);
    return (text) => standardTokenizer(text, max);
  }
  if (typeof type === 'string' && TOKENIZERS[type]) return TOKENIZERS[type];
  throw new EsError('illegal_argument_exception', `failed to find global tokenizer under [${name}]`);
}

/**
 * Finds an analyzer by name: the index's custom analyzers (`index.analysis.analyzer.<name>`, type custom
 * or a built-in type with options) first, then the built-in ones.
 */
export function findAnalyzer(name: string, settings: Record<string, unknown> = {}): Analyzer {
  const flat = indexSettings(settings);
  const base = `index.analysis.analyzer.${name}`;
  const type = flat[`${base}.type`];
  const tokenizerName = flat[`${base}.tokenizer`];
  if (typeof tokenizerName === 'string' && (type === undefined || type === 'custom')) {
    const filters = (listSetting(flat, `${base}.filter`) ?? []).map((f) => findTokenFilter(f, settings));
    return { name, tokenizer: findTokenizer(tokenizerName, settings), filters };
  }
  if (type === 'standard' || type === 'stop') {
    const configured = listSetting(flat, `${base}.stopwords`);
    const words = (configured ?? (type === 'stop' ? ['_english_'] : [])).flatMap((w) =>
      w === '_english_' ? ENGLISH_STOP_WORDS : w === '_none_' ? [] : [w],
    );
    const tokenizer = type === 'standard' ? TOKENIZERS.standard! : letterTokenizer;
    return {
      name,
      tokenizer,
      filters: words.length > 0 ? [lowercaseFilter, stopFilter(words)] : [lowercaseFilter],
    };
  }
  if (typeof type === 'string' && BUILT_IN_ANALYZERS[type]) return { ...BUILT_IN_ANALYZERS[type], name };
  const builtIn = BUILT_IN_ANALYZERS[name];
  if (builtIn) return builtIn;
  throw new EsError('illegal_argument_exception', `failed to find analyzer [${name}]`);
}

/**
 * A keyword normalizer (ES "Normalizers"): the built-in `lowercase`, or `index.analysis.normalizer.<name>`
 * with char-level filters (lowercase, uppercase, asciifolding). Applies to the whole value, no tokenizing.
 */
export function findNormalizer(
  name: string,
  settings: Record<string, unknown> = {},
): (value: string) => string {
  if (name === 'lowercase') return (value) => value.toLowerCase();
  const flat = indexSettings(settings);
  const base = `index.analysis.normalizer.${name}`;
  const filters = listSetting(flat, `${base}.filter`);
  if (filters === undefined)
    throw new EsError('illegal_argument_exception', `failed to find normalizer [${name}]`);
  const chain = filters.map((f) => findTokenFilter(f, settings));
  return (value) => {
    const tokens = chain.reduce(
      (t, filter) => filter(t),
      [{ term: value, position: 0, startOffset: 0, endOffset: value.length, type: 'word' }],
    );
    return tokens[0]?.term ?? value;
  };
}
