import { EsError } from '@acme/common';
import { levenshteinSimilarity } from './check-params';

/**
 * ObjectParser's refusal of a field it does not declare (ES `SuggestingErrorOnUnknown`):
 * `x_content_parse_exception` "[line:col] [parser] unknown field [x]", followed by " did you mean [y]?"
 * or " did you mean any of [y, z]?" naming the declared fields whose Lucene Levenshtein similarity to
 * the unknown one is above 0.5, best first.
 */
export function unknownFieldError(
  parser: string,
  field: string,
  candidates: readonly string[],
  at: { line: number; col: number } = { line: 1, col: 2 },
): EsError {
  return new EsError(
    'x_content_parse_exception',
    `[${at.line}:${at.col}] [${parser}] unknown field [${field}]${suggestFields(field, candidates)}`,
  );
}

/** " did you mean [y]?" / " did you mean any of [y, z]?" or '' (no declared field is close enough). */
export function suggestFields(field: string, candidates: readonly string[]): string {
  const scored = candidates
    .map((candidate) => ({ candidate, score: levenshteinSimilarity(field, candidate) }))
    .filter((s) => s.score > 0.5)
    .sort((a, b) => b.score - a.score || (a.candidate < b.candidate ? -1 : 1))
    .map((s) => s.candidate);
  if (scored.length === 0) return '';
  return scored.length === 1
    ? ` did you mean [${scored[0]}]?`
    : ` did you mean any of [${scored.join(', ')}]?`;
}
