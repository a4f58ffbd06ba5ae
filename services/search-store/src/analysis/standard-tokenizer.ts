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
const NUMERIC = /^[\p{Nd}.,]+$/u;
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

export function standardTokenizer(text: string, maxTokenLength = MAX_TOKEN_LENGTH): Token[] {
  const tokens: Token[] = [];
  const push = (term: string, start: number, type: string): void => {
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
  };
  for (const { segment, index, isWordLike } of segmenter.segment(text)) {
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
  return tokens;
}

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
