import { EsError } from '@acme/common';
import { parseFuzziness } from './parse-fuzziness';
import { suggestParsingError } from './suggest-parsing-error';

/**
 * The completion suggester's options (ES CompletionSuggestionBuilder): `field`, `analyzer`, `size`
 * (5), `skip_duplicates`, `fuzzy` (true or {fuzziness AUTO, transpositions true, min_length 3,
 * prefix_length 1, unicode_aware}), `regex` ({flags, max_determinized_states}); `contexts` is refused.
 */
export interface CompletionSuggester {
  kind: 'completion';
  field: string;
  analyzer?: string;
  size: number;
  skipDuplicates: boolean;
  fuzzy?: { fuzziness: string; transpositions: boolean; minLength: number; prefixLength: number };
  regex?: { flags: string; maxDeterminizedStates: number };
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function intOf(object: Json, key: string, parser: string): number {
  const value = object[key];
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n))
    throw new EsError('x_content_parse_exception', `[${parser}] failed to parse field [${key}]`);
  return n;
}

function parseFuzzy(value: unknown): NonNullable<CompletionSuggester['fuzzy']> {
  const out = { fuzziness: 'AUTO', transpositions: true, minLength: 3, prefixLength: 1 };
  if (value === true) return out;
  if (!isObject(value))
    throw new EsError('x_content_parse_exception', '[completion] failed to parse field [fuzzy]');
  for (const key of Object.keys(value)) {
    switch (key) {
      case 'fuzziness':
        out.fuzziness = parseFuzziness(value.fuzziness);
        break;
      case 'transpositions':
        out.transpositions = value.transpositions === true || value.transpositions === 'true';
        break;
      case 'min_length':
        out.minLength = intOf(value, key, 'fuzzy');
        if (out.minLength < 0)
          throw new EsError('illegal_argument_exception', 'minLength must not be negative');
        break;
      case 'prefix_length':
        out.prefixLength = intOf(value, key, 'fuzzy');
        if (out.prefixLength < 0)
          throw new EsError('illegal_argument_exception', 'prefixLength must not be negative');
        break;
      case 'unicode_aware':
      case 'max_determinized_states':
        break;
      default:
        throw new EsError('x_content_parse_exception', `[fuzzy] unknown field [${key}]`);
    }
  }
  return out;
}

function parseRegexOptions(value: unknown): NonNullable<CompletionSuggester['regex']> {
  if (!isObject(value))
    throw new EsError('x_content_parse_exception', '[completion] failed to parse field [regex]');
  const out = { flags: 'ALL', maxDeterminizedStates: 10_000 };
  for (const key of Object.keys(value)) {
    if (key === 'flags') out.flags = String(value.flags);
    else if (key === 'max_determinized_states') {
      out.maxDeterminizedStates = intOf(value, key, 'regex');
      if (out.maxDeterminizedStates < 0)
        throw new EsError('illegal_argument_exception', 'maxDeterminizedStates must not be negative');
    } else throw new EsError('x_content_parse_exception', `[regex] unknown field [${key}]`);
  }
  return out;
}

export function parseCompletionSuggester(spec: Json): CompletionSuggester {
  const out: Omit<CompletionSuggester, 'field'> & { field?: string } = {
    kind: 'completion',
    size: 5,
    skipDuplicates: false,
  };
  for (const [key, value] of Object.entries(spec)) {
    switch (key) {
      case 'field':
        out.field = String(value);
        break;
      case 'analyzer':
        out.analyzer = String(value);
        break;
      case 'size':
        out.size = intOf(spec, key, 'completion');
        if (out.size <= 0) throw new EsError('illegal_argument_exception', 'size must be positive');
        break;
      case 'shard_size':
        if (intOf(spec, key, 'completion') <= 0)
          throw new EsError('illegal_argument_exception', 'shardSize must be positive');
        break;
      case 'skip_duplicates':
        out.skipDuplicates = value === true || value === 'true';
        break;
      case 'fuzzy':
        out.fuzzy = parseFuzzy(value);
        break;
      case 'regex':
        out.regex = parseRegexOptions(value);
        break;
      case 'contexts':
        throw new EsError(
          'illegal_argument_exception',
          '[contexts] of the completion suggester is not supported by search-store',
        );
      default:
        throw suggestParsingError(spec, key, `[completion] unknown field [${key}]`);
    }
  }
  if (out.field === undefined)
    throw new EsError('illegal_argument_exception', 'suggestion requires [field] to be set');
  return { ...out, field: out.field };
}
