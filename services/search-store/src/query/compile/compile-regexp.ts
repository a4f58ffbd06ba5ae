import { keywordNormalizer } from '../../index/analyze-document';
import { compileRegexp, TooComplexToDeterminizeError } from '../../text/regexp-automaton';
import { RegexpSyntaxError } from '../../text/regexp-syntax';
import { NOTHING, type CompileContext } from './compile-context';
import {
  compileExpansions,
  fieldTermPages,
  parseRewriteMethod,
  selectTerms,
  shardFailure,
  walkTerms,
} from './multi-term-rewrite';
import type { Query } from '../query-ast';

/**
 * regexp (ES RegexpQueryBuilder → Lucene RegexpQuery): the pattern, at most `index.max_regex_length`
 * long (ES checks the UTF-16 length), compiled to a DFA (text/regexp-automaton.ts) and run over
 * the field's terms from the pattern's literal prefix on; matching documents score the query's boost
 * (the default rewrite, constant_score). Errors are those ES wraps in query_shard_exception:
 * Lucene's syntax errors (illegal_argument_exception) and too_complex_to_determinize_exception.
 */
const DEFAULT_MAX_REGEX_LENGTH = 1000;

export async function compileRegexpQuery(
  ctx: CompileContext,
  query: Extract<Query, { kind: 'regexp' }>,
  boost: number,
  scoring: boolean,
): Promise<string> {
  const max = Number(ctx.reader.settings['index.max_regex_length'] ?? DEFAULT_MAX_REGEX_LENGTH);
  if (query.value.length > max) {
    throw shardFailure(
      `The length of regex [${query.value.length}] used in the Regexp Query request has exceeded the allowed maximum of [${max}]. This maximum can be set by changing the [index.max_regex_length] index level setting.`,
      'illegal_argument_exception',
    );
  }
  const rewrite = parseRewriteMethod(query.rewrite, { kind: 'constant_score' });
  const field = ctx.reader.fields.get(query.field);
  if (!field) return NOTHING;
  if (field.type !== 'keyword' && field.type !== 'text')
    throw shardFailure(
      `Can only use regexp queries on keyword and text fields - not on [${field.path}] which is of type [${field.type}]`,
      'illegal_argument_exception',
    );
  const pattern =
    field.type === 'keyword' ? keywordNormalizer(field, ctx.reader.settings)(query.value) : query.value;
  let matcher;
  try {
    matcher = compileRegexp(pattern, {
      flags: query.flags,
      caseInsensitive: query.caseInsensitive,
      maxDeterminizedStates: query.maxDeterminizedStates,
    });
  } catch (error) {
    if (error instanceof RegexpSyntaxError) throw shardFailure(error.message, 'illegal_argument_exception');
    if (error instanceof TooComplexToDeterminizeError)
      throw shardFailure(error.message, 'too_complex_to_determinize_exception');
    throw error;
  }
  if (field.fieldId === undefined) return NOTHING;
  const candidates = await walkTerms(
    fieldTermPages(ctx, field),
    field.path,
    'regexp',
    { prefix: matcher.commonPrefix(), minLength: 0, maxLength: 0x7fffffff },
    (term) => (matcher.matches(term) ? 1 : undefined),
  );
  const terms = await selectTerms(ctx, field, candidates, rewrite);
  return compileExpansions(ctx, field, [terms], rewrite, 1, boost, scoring);
}
