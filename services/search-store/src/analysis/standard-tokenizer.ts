import type { Token } from './token';

/**
 * Lucene's StandardTokenizer: Unicode word segmentation (UAX #29), keeping word-like segments.
 * Built on Intl.Segmenter, with the differences from Lucene's JFlex grammar fixed where they matter:
 * - ICU segments Han text by dictionary ("北京"); Lucene emits each ideograph as its own token.
 * - Emoji are not "word-like" to ICU; Lucene emits them as <EMOJI> tokens.
 * - Tokens longer than max_token_length (255) are split at that length, not dropped.
 * Apostrophes inside words (MidLetter) and 3.14 / 1,000 (MidNum) already stay one token in ICU.
 */
export const MAX_TOKEN_LENGTH = 255;

const segmenter = new Intl.Segmenter('und', { granularity: 'word' });
const IDEOGRAPH = /\p{Script=Han}/u;
const HIRAGANA = /^\p{Script=Hiragana}+$/u;
const KATAKANA = /^[\p{Script=Katakana}\u30fc]+$/u;
const HANGUL = /^\p{Script=Hangul}+$/u;
const SOUTHEAST_ASIAN = /^[\p{Script=Thai}\p{Script=Lao}\p{Script=Myanmar}\p{Script=Khmer}]+$/u;
const NUMERIC = /^[\p{Nd}.,;']+$/u;
const ASCII_NUMERIC = /^[0-9.,;']+$/;
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

export function standardTokenizer(text: string, maxTokenLength = MAX_TOKEN_LENGTH): Token[] {
  return tokenize(text, maxTokenLength, isAscii(text) ? scanAscii : scanWithSegmenter);
}

/** The segmenter path for any text; exported so a test can hold the ASCII fast path to it. */
export function segmenterStandardTokenizer(text: string, maxTokenLength = MAX_TOKEN_LENGTH): Token[] {
  return tokenize(text, maxTokenLength, scanWithSegmenter);
}

type Push = (term: string, start: number, type: string) => void;

function tokenize(text: string, maxTokenLength: number, scan: (text: string, push: Push) => void): Token[] {
  const tokens: Token[] = [];
  scan(text, (term, start, type) => {
    // Lucene splits an over-long token into max_token_length pieces (each piece is a token).
    for (let at = 0; at < term.length; at += maxTokenLength) {
      const piece = term.slice(at, at + maxTokenLength);
      tokens.push({
        term: piece,
        position: tokens.length,
        startOffset: start + at,
        endOffset: start + at + piece.length,
        type,
      });
    }
  });
  return tokens;
}

function scanWithSegmenter(text: string, push: Push): void {
  for (const { segment, index, isWordLike } of segmenter.segment(text)) {
    // ICU calls a run of underscores word-like; Lucene emits no token without a letter or digit.
    if (isWordLike && /^_+$/.test(segment)) continue;
    if (!isWordLike) {
      if (EMOJI.test(segment)) push(segment, index, '<EMOJI>');
      continue;
    }
    if (IDEOGRAPH.test(segment)) {
      splitIdeographs(segment, index, push);
      continue;
    }
    push(segment, index, typeOf(segment));
  }
}

// ASCII character classes of UAX #29: letter, digit, ExtendNumLet (_), MidLetter (:), MidNumLet (. '), MidNum (, ;).
const LETTER = 1;
const DIGIT = 2;
const EXTEND = 3;
const CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  CLASS[c] = /[A-Za-z]/.test(ch) ? LETTER : /[0-9]/.test(ch) ? DIGIT : ch === '_' ? EXTEND : 0;
}

/**
 * The same word boundaries for pure-ASCII text, without the ICU segmenter (several times faster):
 * letters, digits and `_` join (WB5, WB8–WB10, WB13a/b); a letter, `:` `.` or `'`, letter joins (WB6/7);
 * a digit, `,` `;` `.` or `'`, digit joins (WB11/12). A unit test checks it against Intl.Segmenter.
 */
function scanAscii(text: string, push: Push): void {
  const words: number[] = [];
  scanAsciiWords(text, words);
  for (let w = 0; w < words.length; w += 2) {
    const start = words[w]!;
    const term = text.slice(start, words[w + 1]);
    // typeOf for ASCII: only <NUM> or <ALPHANUM> can apply, without the Unicode property tests.
    push(term, start, ASCII_NUMERIC.test(term) ? '<NUM>' : '<ALPHANUM>');
  }
}

/** True when every code unit of `text` is ASCII: `scanAsciiWords` applies. */
// eslint-disable-next-line no-control-regex
export const isAscii = (text: string): boolean => /^[\u0000-\u007f]*$/.test(text);

/**
 * The words of pure-ASCII text as [start, end) offsets appended in pairs to `words`, before the
 * max_token_length split: the standard tokenizer's ASCII path, and the indexer's (index/batch-analyzer.ts),
 * which interns each word's code units from the lowercased value without making a string of it.
 */
export function scanAsciiWords(text: string, words: { push(offset: number): unknown }): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (CLASS[text.charCodeAt(i)] === 0) {
      i += 1;
      continue;
    }
    const start = i;
    let hasWordChar = CLASS[text.charCodeAt(i)] !== EXTEND;
    i += 1;
    while (i < n) {
      const cls = CLASS[text.charCodeAt(i)]!;
      if (cls !== 0) {
        if (cls !== EXTEND) hasWordChar = true;
        i += 1;
        continue;
      }
      const prev = CLASS[text.charCodeAt(i - 1)];
      const next = i + 1 < n ? CLASS[text.charCodeAt(i + 1)] : 0;
      const mid = text.charCodeAt(i);
      const letters =
        prev === LETTER && next === LETTER && (mid === COLON || mid === DOT || mid === APOSTROPHE);
      const digits =
        prev === DIGIT &&
        next === DIGIT &&
        (mid === COMMA || mid === SEMICOLON || mid === DOT || mid === APOSTROPHE);
      if (!letters && !digits) break;
      i += 2;
    }
    if (hasWordChar) {
      words.push(start);
      words.push(i);
    }
  }
}

const COLON = 58;
const DOT = 46;
const APOSTROPHE = 39;
const COMMA = 44;
const SEMICOLON = 59;

/** Each Han character becomes its own <IDEOGRAPHIC> token; runs of other letters in between stay whole. */
function splitIdeographs(
  segment: string,
  start: number,
  push: (term: string, start: number, type: string) => void,
): void {
  let run = '';
  let runStart = 0;
  let offset = 0;
  for (const char of segment) {
    if (IDEOGRAPH.test(char)) {
      if (run) push(run, start + runStart, typeOf(run));
      run = '';
      push(char, start + offset, '<IDEOGRAPHIC>');
    } else {
      if (!run) runStart = offset;
      run += char;
    }
    offset += char.length;
  }
  if (run) push(run, start + runStart, typeOf(run));
}

function typeOf(segment: string): string {
  if (NUMERIC.test(segment)) return '<NUM>';
  if (HIRAGANA.test(segment)) return '<HIRAGANA>';
  if (KATAKANA.test(segment)) return '<KATAKANA>';
  if (HANGUL.test(segment)) return '<HANGUL>';
  if (SOUTHEAST_ASIAN.test(segment)) return '<SOUTHEAST_ASIAN>';
  return '<ALPHANUM>';
}
