import type { EsCause } from '@acme/common';

/**
 * The completion field type (ES CompletionFieldMapper): mapping parameters with their defaults, and
 * the values a document may hold: a string, an array of strings, `{input, weight}` (input a string
 * or an array of strings, weight an integer in 0..2^31−1), or an array of such objects.
 */
export const COMPLETION_PARAMETERS = [
  'analyzer',
  'search_analyzer',
  'preserve_separators',
  'preserve_position_increments',
  'max_input_length',
] as const;

/** The defaults ES fills in and GET _mapping shows (search_analyzer only when set). */
export function completionDefaults(definition: Record<string, unknown>): Record<string, unknown> {
  return {
    analyzer: definition.analyzer ?? 'simple',
    ...(definition.search_analyzer === undefined ? {} : { search_analyzer: definition.search_analyzer }),
    preserve_separators: definition.preserve_separators ?? true,
    preserve_position_increments: definition.preserve_position_increments ?? true,
    max_input_length: definition.max_input_length ?? 50,
  };
}

/** The reason a completion mapping is refused, if it is. */
export function completionMappingError(
  name: string,
  definition: Record<string, unknown>,
): string | undefined {
  for (const key of ['preserve_separators', 'preserve_position_increments']) {
    const value = definition[key];
    if (value !== undefined && typeof value !== 'boolean')
      return `Failed to parse mapping: Cannot parse value [${String(value)}] as only [true] or [false] are allowed.`;
  }
  const max = definition.max_input_length;
  if (max !== undefined && (typeof max !== 'number' || !Number.isInteger(max) || max <= 0))
    return `[max_input_length] must be > 0 but was [${String(max)}]`;
  if (definition.contexts !== undefined)
    return `[contexts] of completion field [${name}] is not supported by search-store`;
  return undefined;
}

export interface CompletionInput {
  input: string;
  weight: number;
}

const MAX_WEIGHT = 2 ** 31 - 1;

function illegal(reason: string): EsCause {
  return { type: 'illegal_argument_exception', reason };
}

function weightOf(value: unknown): number | EsCause {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n))
    return {
      type: 'parsing_exception',
      reason: 'weight must be a number or string, but was [' + typeof value + ']',
    };
  if (!Number.isInteger(n)) return illegal(`weight must be an integer, but was [${String(value)}]`);
  if (n < 0 || n > MAX_WEIGHT)
    return illegal(`weight must be in the interval [0..2147483647], but was [${n}]`);
  return n;
}

/** One value of the field (arrays already flattened) as inputs, or the cause it is refused for. */
export function completionInputs(value: unknown): CompletionInput[] | EsCause {
  if (typeof value === 'string') return [{ input: value, weight: 1 }];
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return {
      type: 'parsing_exception',
      reason: `failed to parse [${String(value)}]: expected text or object`,
    };
  const record = value as Record<string, unknown>;
  let inputs: string[] = [];
  let weight = 1;
  for (const [key, v] of Object.entries(record)) {
    if (key === 'input') {
      const list = Array.isArray(v) ? v : [v];
      if (!list.every((item) => typeof item === 'string'))
        return { type: 'parsing_exception', reason: 'input array must have string values' };
      inputs = list as string[];
    } else if (key === 'weight') {
      const w = weightOf(v);
      if (typeof w !== 'number') return w;
      weight = w;
    } else if (key === 'contexts') {
      return illegal('contexts are not supported by search-store');
    } else {
      return illegal(`unknown field name [${key}], must be one of [input, weight, contexts]`);
    }
  }
  return inputs.map((input) => ({ input, weight }));
}
