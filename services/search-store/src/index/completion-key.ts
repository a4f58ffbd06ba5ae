import { analyze, findAnalyzer } from '../analysis/analyzer';
import type { FieldMapping } from '../mapping/mapping-types';

/**
 * The key a completion input is found by, as Lucene's CompletionAnalyzer (ConcatenateGraphFilter)
 * builds it: the analysed tokens concatenated, separated by U+001F when `preserve_separators`, and
 * with one more separator per skipped position (a removed stop word) when
 * `preserve_position_increments`. The suggester builds the key of its prefix the same way.
 */
export const COMPLETION_SEPARATOR = '\u001f';

export function completionKey(
  mapping: FieldMapping,
  settings: Record<string, unknown>,
  text: string,
  analyzerName: string,
): string {
  const tokens = analyze(findAnalyzer(analyzerName, settings), text);
  const separators = mapping.preserve_separators !== false;
  const increments = mapping.preserve_position_increments !== false;
  let key = '';
  let last = -1;
  for (const token of tokens) {
    if (last >= 0) {
      const gap = increments ? Math.max(1, token.position - last) : 1;
      if (separators) key += COMPLETION_SEPARATOR.repeat(gap);
      else if (increments && gap > 1) key += COMPLETION_SEPARATOR.repeat(gap - 1);
    } else if (increments && token.position > 0) key += COMPLETION_SEPARATOR.repeat(token.position);
    key += token.term;
    last = token.position;
  }
  return key;
}

/** The first `max` code points of an input (ES truncates inputs to max_input_length). */
export function truncateInput(input: string, max: number): string {
  const points = [...input];
  return points.length <= max ? input : points.slice(0, max).join('');
}
