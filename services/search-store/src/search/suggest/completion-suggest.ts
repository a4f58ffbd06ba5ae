import { EsError } from '@acme/common';
import { completionKey } from '../../index/completion-key';
import type { IndexReader } from '../../query/index-reader';
import { fuzzinessEdits } from '../../query/parse/parse-fuzziness';
import type { CompletionSuggester } from '../../query/parse/parse-completion-suggester';
import { resolveRegexpFlags } from '../../query/parse/parse-regexp';
import {
  findCompletionDocuments,
  findTopCompletions,
  scanCompletions,
  type CompletionRow,
} from '../../storage/completion-entries.repo';
import type { Queryable } from '../../storage/queryable';
import { codePoints, LevenshteinAutomaton } from '../../text/levenshtein-automaton';
import { compileRegexp, TooComplexToDeterminizeError } from '../../text/regexp-automaton';
import { RegexpSyntaxError } from '../../text/regexp-syntax';
import { shardIllegal } from './term-suggest';

/**
 * The completion suggester (ES CompletionSuggester over Lucene's NRTSuggester) on one index. The
 * prefix is analysed with the field's search analyzer into the same key the inputs were stored
 * under (index/completion-key.ts); the entries whose key starts with it are read from a btree
 * range, one per document (its heaviest), heaviest first. `_score` is the weight; with `fuzzy` it
 * is weight × the length of the exact common prefix (Lucene FuzzyCompletionWeight's boost,
 * CompletionScorer.score); `regex` matches a prefix of the key with the linear-time DFA.
 */
export interface CompletionOption {
  text: string;
  _index: string;
  _id: string;
  _score: number;
  _source: unknown;
  /** For ordering only (not rendered). */
  key: string;
}

/** Most entries a fuzzy or regex suggestion reads from one index. */
export const MAX_SCANNED_COMPLETIONS = 100_000;

interface Scored {
  row: CompletionRow;
  score: number;
}

export async function completionSuggest(
  db: Queryable,
  reader: IndexReader,
  s: CompletionSuggester,
  text: string,
  regex: string | undefined,
): Promise<CompletionOption[]> {
  const field = reader.fields.get(s.field);
  if (!field) throw shardIllegal(`no mapping found for field [${s.field}]`);
  if (field.type !== 'completion') throw shardIllegal(`Field [${s.field}] is not a completion suggest field`);
  const mapping = field.mapping;
  const analyzer = s.analyzer ?? String(mapping.search_analyzer ?? mapping.analyzer ?? 'simple');
  const limit = s.skipDuplicates ? Math.min(s.size * 10 + 100, 10_000) : s.size;
  let scored: Scored[];
  if (regex !== undefined) scored = await regexMatches(db, reader, s, regex);
  else {
    const key = completionKey(mapping, reader.settings, text, analyzer);
    const fuzzy = s.fuzzy;
    if (fuzzy && codePoints(key).length >= fuzzy.minLength && fuzzinessEdits(fuzzy.fuzziness, key) > 0)
      scored = await fuzzyMatches(db, reader, s, key);
    else
      scored = (await findTopCompletions(db, reader.indexId, s.field, key, limit)).map((row) => ({
        row,
        score: row.weight,
      }));
  }
  const best = bestPerDocument(scored).slice(0, limit);
  const docs = await findCompletionDocuments(
    db,
    reader.indexId,
    best.map((b) => String(b.row.doc_key)),
  );
  return best.flatMap(({ row, score }) => {
    const doc = docs.get(String(row.doc_key));
    if (!doc) return [];
    return [
      {
        text: row.input,
        _index: reader.name,
        _id: doc.id,
        _score: score,
        _source: JSON.parse(doc.sourceText) as unknown,
        key: row.analyzed,
      },
    ];
  });
}

/** One entry per document, its best; ordered by score, then key, then doc key. */
function bestPerDocument(scored: Scored[]): Scored[] {
  const byDoc = new Map<string, Scored>();
  for (const s of scored) {
    const seen = byDoc.get(String(s.row.doc_key));
    if (!seen || s.score > seen.score || (s.score === seen.score && s.row.analyzed < seen.row.analyzed))
      byDoc.set(String(s.row.doc_key), s);
  }
  return [...byDoc.values()].sort(
    (a, b) =>
      b.score - a.score ||
      (a.row.analyzed < b.row.analyzed ? -1 : a.row.analyzed > b.row.analyzed ? 1 : 0) ||
      Number(a.row.doc_key) - Number(b.row.doc_key),
  );
}

async function scan(
  db: Queryable,
  reader: IndexReader,
  field: string,
  prefix: string,
): Promise<CompletionRow[]> {
  const rows = await scanCompletions(db, reader.indexId, field, prefix, MAX_SCANNED_COMPLETIONS + 1);
  if (rows.length > MAX_SCANNED_COMPLETIONS)
    throw shardIllegal(
      `[completion] suggestion on field [${field}] would read more than [${MAX_SCANNED_COMPLETIONS}] entries; use a longer prefix`,
    );
  return rows;
}

/** Lucene CompletionScorer.score: the weight, the boost when the weight is 0, else their product. */
function completionScore(weight: number, boost: number): number {
  if (boost === 0) return weight;
  if (weight === 0) return boost;
  return Math.fround(weight * boost);
}

async function fuzzyMatches(
  db: Queryable,
  reader: IndexReader,
  s: CompletionSuggester,
  key: string,
): Promise<Scored[]> {
  const fuzzy = s.fuzzy!;
  const query = codePoints(key);
  const edits = fuzzinessEdits(fuzzy.fuzziness, key);
  const prefixLength = Math.min(fuzzy.prefixLength, query.length);
  const literal = String.fromCodePoint(...query.slice(0, prefixLength));
  const automaton = new LevenshteinAutomaton(
    String.fromCodePoint(...query.slice(prefixLength)),
    edits,
    fuzzy.transpositions,
  );
  const out: Scored[] = [];
  for (const row of await scan(db, reader, s.field, literal)) {
    const points = codePoints(row.analyzed);
    // Some prefix of the key lies within the edits of the query (FuzzyCompletionQuery's automaton
    // accepts prefixes): try each length the edits allow.
    let matched = false;
    for (
      let n = Math.max(prefixLength, query.length - edits);
      n <= Math.min(points.length, query.length + edits);
      n++
    ) {
      if (automaton.distanceOf(points.slice(prefixLength, n)) >= 0) {
        matched = true;
        break;
      }
    }
    if (!matched) continue;
    let common = 0;
    while (common < query.length && common < points.length && query[common] === points[common]) common++;
    out.push({ row, score: completionScore(row.weight, common) });
  }
  return out;
}

async function regexMatches(
  db: Queryable,
  reader: IndexReader,
  s: CompletionSuggester,
  pattern: string,
): Promise<Scored[]> {
  let matcher;
  try {
    matcher = compileRegexp(pattern, {
      flags: resolveRegexpFlags(s.regex?.flags ?? 'ALL'),
      caseInsensitive: false,
      maxDeterminizedStates: s.regex?.maxDeterminizedStates ?? 10_000,
    });
  } catch (error) {
    if (error instanceof RegexpSyntaxError || error instanceof TooComplexToDeterminizeError)
      throw shardIllegal(error.message);
    if (error instanceof EsError) throw error;
    throw error;
  }
  const out: Scored[] = [];
  for (const row of await scan(db, reader, s.field, matcher.commonPrefix())) {
    // RegexCompletionQuery matches a prefix of the key: try each prefix (keys are ≤ max_input_length).
    const points = codePoints(row.analyzed);
    for (let n = 0; n <= points.length; n++) {
      if (matcher.matches(String.fromCodePoint(...points.slice(0, n)))) {
        out.push({ row, score: row.weight });
        break;
      }
    }
  }
  return out;
}
