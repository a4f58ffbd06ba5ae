/** One token as Lucene's analysis chain produces it; offsets are UTF-16 code units into the input. */
export interface Token {
  term: string;
  /** Position in the token stream (the first token is 0); gaps appear where stop words were removed. */
  position: number;
  startOffset: number;
  endOffset: number;
  /** Lucene's token type: <ALPHANUM>, <NUM>, <IDEOGRAPHIC>, <HIRAGANA>, <KATAKANA>, <HANGUL>, <EMOJI>, word. */
  type: string;
}

/** A tokenizer turns text into tokens with consecutive positions starting at 0. */
export type Tokenizer = (text: string) => Token[];

/** A token filter rewrites, drops or keeps tokens; dropping keeps the position gap, as Lucene does. */
export type TokenFilter = (tokens: Token[]) => Token[];
