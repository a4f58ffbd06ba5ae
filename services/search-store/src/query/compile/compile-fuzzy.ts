import { keywordNormalizer } from '../../index/analyze-document';
import { codePoints, LevenshteinAutomaton } from '../../text/levenshtein-automaton';
import { NOTHING, type CompileContext } from './compile-context';
import {
  compileExpansions,
  fieldTermPages,
  parseRewriteMethod,
  selectTerms,
  shardFailure,
  walkTerms,
  type ScoredTerm,
  type TermPageReader,
} from './multi-term-rewrite';
import type { ReaderField } from '../index-reader';
import type { Query } from '../query-ast';
import { fuzzinessEdits } from '../parse/parse-fuzziness';

/**
 * fuzzy (ES FuzzyQueryBuilder → Lucene FuzzyQuery) and match/multi_match with `fuzziness` (ES
 * MatchQueryParser builds one FuzzyQuery per analyzed token).
 *
 * FuzzyTermsEnum keeps the terms that start with the query's first `prefix_length` code points and
 * whose rest is within `fuzziness` edits of the query's rest; each gets the boost
 * `1 − edits / min(termLength, queryLength)` in code points (1 for the exact term), in float32.
 * The default rewrite, TopTermsBlendedFreqScoringRewrite(max_expansions), keeps the
 * `max_expansions` terms of highest boost (ties: the smaller term) and scores each as BM25 with the
 * largest document frequency among them (BlendedTermQuery), times its boost: multi-term-rewrite.ts.
 */
const f = Math.fround;

export interface FuzzyOptions {
  fuzziness: string;
  prefixLength: number;
  maxExpansions: number;
  transpositions: boolean;
  rewrite?: string;
}

export async function compileFuzzy(
  ctx: CompileContext,
  query: Extract<Query, { kind: 'fuzzy' }>,
  boost: number,
  scoring: boolean,
): Promise<string> {
  const field = ctx.reader.fields.get(query.field);
  if (!field) return NOTHING; // ES: MatchNoDocsQuery("unknown field")
  checkFuzzyField(field);
  const value =
    field.type === 'keyword' ? keywordNormalizer(field, ctx.reader.settings)(query.value) : query.value;
  return compileFuzzyClauses(ctx, field, [value], 1, query, boost, scoring);
}

/** MappedFieldType.fuzzyQuery refuses every type but the string ones. */
export function checkFuzzyField(field: ReaderField): void {
  if (field.type !== 'keyword' && field.type !== 'text')
    throw shardFailure(
      `Can only use fuzzy queries on keyword and text fields - not on [${field.path}] which is of type [${field.type}]`,
      'illegal_argument_exception',
    );
}

/** One FuzzyQuery per term, `required` of them needed (BooleanQuery of the match's operator). */
export async function compileFuzzyClauses(
  ctx: CompileContext,
  field: ReaderField,
  terms: string[],
  required: number,
  options: FuzzyOptions,
  boost: number,
  scoring: boolean,
): Promise<string> {
  if (options.prefixLength < 0)
    throw shardFailure('prefixLength cannot be negative.', 'illegal_argument_exception');
  if (options.maxExpansions <= 0)
    throw shardFailure('maxExpansions must be positive.', 'illegal_argument_exception');
  const rewrite = parseRewriteMethod(options.rewrite, { kind: 'blended', size: options.maxExpansions });
  const clauses = [];
  for (const term of terms) {
    const candidates =
      field.fieldId === undefined
        ? []
        : await expandFuzzy(fieldTermPages(ctx, field), field.path, term, options);
    clauses.push(await selectTerms(ctx, field, candidates, rewrite));
  }
  return compileExpansions(ctx, field, clauses, rewrite, required, boost, scoring);
}

/** The dictionary terms within the fuzziness of `term`, each with its FuzzyTermsEnum boost. */
export async function expandFuzzy(
  read: TermPageReader,
  path: string,
  term: string,
  options: Omit<FuzzyOptions, 'maxExpansions' | 'rewrite'>,
): Promise<ScoredTerm[]> {
  const maxEdits = fuzzinessEdits(options.fuzziness, term);
  const query = codePoints(term);
  // FuzzyQuery.getTermsEnum: no edits, or a prefix covering the term (UTF-16 length), is the term itself.
  if (maxEdits === 0 || options.prefixLength >= term.length) return [{ term, boost: 1 }];
  const prefixLength = Math.min(options.prefixLength, query.length);
  const prefix = String.fromCodePoint(...query.slice(0, prefixLength));
  const automaton = new LevenshteinAutomaton(
    String.fromCodePoint(...query.slice(prefixLength)),
    maxEdits,
    options.transpositions,
  );
  return walkTerms(
    read,
    path,
    'fuzzy',
    { prefix, minLength: Math.max(0, query.length - maxEdits), maxLength: query.length + maxEdits },
    (candidate) => {
      const points = codePoints(candidate);
      const edits = automaton.distanceOf(points.slice(prefixLength));
      if (edits < 0) return undefined;
      if (edits === 0) return 1;
      // FuzzyTermsEnum.next(): 1.0f - (float) ed / (float) min(codePointCount, termLength).
      return f(1 - f(edits / Math.min(points.length, query.length)));
    },
  );
}
