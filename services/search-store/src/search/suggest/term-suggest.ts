import { analyze, findAnalyzer, type Analyzer } from '../../analysis/analyzer';
import { searchAnalyzerFor } from '../../index/analyze-document';
import { findTerms, scanTermTexts } from '../../index/term-dictionary-reader';
import { compareTerms, type TermPageReader } from '../../query/compile/multi-term-rewrite';
import { expandFuzzy } from '../../query/compile/compile-fuzzy';
import type { IndexReader, ReaderField } from '../../query/index-reader';
import type { TermSuggester } from '../../query/parse/parse-term-suggester';
import { ShardQueryError } from '../../query/shard-query-error';
import type { Queryable } from '../../storage/queryable';
import { codePoints } from '../../text/levenshtein-automaton';

/**
 * The term suggester (ES TermSuggester → Lucene DirectSpellChecker.suggestSimilar) on one index:
 * each token of the analyzed text becomes an entry `{text, offset, length}` whose options are the
 * dictionary terms within `max_edits` of it, found by FuzzyTermsEnum (compile-fuzzy.ts's walk: the
 * first `prefix_length` code points fixed, the Levenshtein automaton with transpositions over the
 * rest). With the internal string distance an option's score is FuzzyTermsEnum's boost,
 * 1 − edits / min(len(candidate), len(token)) in code points, as float32.
 */
export interface TermOption {
  text: string;
  score: number;
  freq: number;
}

export interface TermEntry {
  text: string;
  offset: number;
  length: number;
  options: TermOption[];
}

const f = Math.fround;

export function shardIllegal(reason: string): ShardQueryError {
  return new ShardQueryError({ type: 'illegal_argument_exception', reason });
}

/** SuggestionBuilder.populateCommonFields: the named analyzer, else the field's search analyzer. */
export function suggestAnalyzer(reader: IndexReader, field: ReaderField, name?: string): Analyzer {
  if (name !== undefined) {
    try {
      return findAnalyzer(name, reader.settings);
    } catch {
      throw shardIllegal(`analyzer [${name}] doesn't exists`);
    }
  }
  return field.type === 'text' ? searchAnalyzerFor(field, reader.settings) : findAnalyzer('keyword');
}

export function mappedField(reader: IndexReader, path: string): ReaderField {
  const field = reader.fields.get(path);
  if (!field) throw shardIllegal(`no mapping found for field [${path}]`);
  return field;
}

/** `Score` or `Frequency` (ES TermSuggestion's comparators): the ties fall to the other, then the text. */
export function compareOptions(sort: 'score' | 'frequency'): (a: TermOption, b: TermOption) => number {
  return (a, b) => {
    const byScore = b.score - a.score;
    const byFreq = b.freq - a.freq;
    const first = sort === 'score' ? byScore : byFreq;
    const second = sort === 'score' ? byFreq : byScore;
    return first || second || compareTerms(a.text, b.text);
  };
}

export async function termSuggest(
  db: Queryable,
  reader: IndexReader,
  suggester: TermSuggester,
  text: string,
  maxDoc: number,
): Promise<TermEntry[]> {
  const field = mappedField(reader, suggester.field);
  const tokens = analyze(suggestAnalyzer(reader, field, suggester.analyzer), text);
  const entries: TermEntry[] = [];
  for (const token of tokens) {
    entries.push({
      text: token.term,
      offset: token.startOffset,
      length: token.endOffset - token.startOffset,
      options: await suggestSimilar(db, reader, field, suggester, token.term, maxDoc),
    });
  }
  return entries;
}

/** DirectSpellChecker.suggestSimilar with ES's settings (lowerCaseTerms false). */
export async function suggestSimilar(
  db: Queryable,
  reader: IndexReader,
  field: ReaderField,
  s: TermSuggester,
  term: string,
  maxDoc: number,
): Promise<TermOption[]> {
  if (codePoints(term).length < s.minWordLength || field.fieldId === undefined) return [];
  const fieldId = field.fieldId;
  const own = await findTerms(db, reader.indexId, fieldId, [term]);
  let docFreq = own[0]?.doc_freq === undefined ? 0 : Number(own[0].doc_freq);
  if (s.suggestMode === 'missing' && docFreq > 0) return [];
  if (s.maxTermFreq >= 1 ? docFreq > s.maxTermFreq : docFreq > Math.ceil(f(s.maxTermFreq * maxDoc)))
    return [];
  if (s.suggestMode !== 'popular') docFreq = 0;
  if (s.minDocFreq >= 1) docFreq = Math.max(docFreq, Math.trunc(s.minDocFreq));
  else if (s.minDocFreq > 0) docFreq = Math.max(docFreq, Math.trunc(f(s.minDocFreq * maxDoc)) - 1);
  const read: TermPageReader = (page) => scanTermTexts(db, reader.indexId, fieldId, page);
  // "try ed=1 first, in case we get lucky", then max_edits with the prefix at least max_edits − 1.
  const boosts = new Map<string, number>();
  const passes = s.maxEdits > 1 ? [1, s.maxEdits] : [1];
  for (const edits of passes) {
    const prefixLength = Math.max(s.prefixLength, edits - 1);
    const found = await expandFuzzy(read, field.path, term, {
      fuzziness: String(edits),
      prefixLength,
      transpositions: true,
    });
    for (const { term: candidate, boost } of found)
      if (candidate !== term && boost >= f(s.accuracy)) boosts.set(candidate, boost);
  }
  if (boosts.size === 0) return [];
  const freqs = await findTerms(db, reader.indexId, fieldId, [...boosts.keys()]);
  const candidates: TermOption[] = freqs
    .map((row) => ({ text: row.term, score: boosts.get(row.term)!, freq: Number(row.doc_freq) }))
    .filter((option) => option.freq > docFreq);
  // The inspection queue keeps numSug × max_inspections of highest boost (ties: the smaller term).
  candidates.sort((a, b) => b.score - a.score || compareTerms(a.text, b.text));
  const inspected = candidates.slice(0, s.shardSize * s.maxInspections);
  return inspected.sort(compareOptions(s.sort)).slice(0, s.shardSize);
}
