import type { Token } from './token';

/** Lucene's WhitespaceTokenizer: splits on Unicode whitespace only; type "word". */
export function whitespaceTokenizer(text: string): Token[] {
  return matchTokens(text, /\S+/gu);
}

/** Lucene's LetterTokenizer (the simple analyzer's): maximal runs of letters; type "word". */
export function letterTokenizer(text: string): Token[] {
  return matchTokens(text, /\p{L}+/gu);
}

/** Lucene's KeywordTokenizer: the whole input is one token (none for empty input). */
export function keywordTokenizer(text: string): Token[] {
  return text.length === 0
    ? []
    : [{ term: text, position: 0, startOffset: 0, endOffset: text.length, type: 'word' }];
}

function matchTokens(text: string, pattern: RegExp): Token[] {
  const tokens: Token[] = [];
  for (const match of text.matchAll(pattern)) {
    const start = match.index;
    tokens.push({
      term: match[0],
      position: tokens.length,
      startOffset: start,
      endOffset: start + match[0].length,
      type: 'word',
    });
  }
  return tokens;
}
