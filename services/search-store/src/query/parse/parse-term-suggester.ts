import { EsError } from '@acme/common';
import { suggestParsingError } from './suggest-parsing-error';

/**
 * The term suggester's options (ES TermSuggestionBuilder, defaults from DirectSpellcheckerSettings):
 * Lucene's DirectSpellChecker over the field's term dictionary.
 */
export interface TermSuggester {
  kind: 'term';
  field: string;
  analyzer?: string;
  size: number;
  /** ES `shard_size`: Math.max(size, 5) when absent (SuggestionBuilder.populateCommonFields). */
  shardSize: number;
  sort: 'score' | 'frequency';
  suggestMode: 'missing' | 'popular' | 'always';
  accuracy: number;
  maxEdits: number;
  maxInspections: number;
  maxTermFreq: number;
  prefixLength: number;
  minWordLength: number;
  minDocFreq: number;
  stringDistance: 'internal';
}

type Json = Record<string, unknown>;

function illegal(reason: string): EsError {
  return new EsError('illegal_argument_exception', reason);
}

/** XContentParser.intValue()/floatValue(): a number or a numeric string (coerced), else 400. */
function numberOf(object: Json, key: string, integer: boolean): number {
  const value = object[key];
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n))
    throw new EsError('x_content_parse_exception', `[term] failed to parse field [${key}]`);
  return integer ? Math.trunc(n) : Math.fround(n);
}

// Enum.valueOf's message for an unknown constant, as ES lets it through.
const ENUM_PREFIX = 'org.elasticsearch.search.suggest.term.TermSuggestionBuilder';

export function parseTermSuggester(spec: Json, parser: 'term' | 'direct_generator' = 'term'): TermSuggester {
  const out: Omit<TermSuggester, 'field' | 'shardSize'> & { field?: string; shardSize?: number } = {
    kind: 'term',
    size: 5,
    sort: 'score',
    suggestMode: 'missing',
    accuracy: 0.5,
    maxEdits: 2,
    maxInspections: 5,
    maxTermFreq: 0.01,
    prefixLength: 1,
    minWordLength: 4,
    minDocFreq: 0,
    stringDistance: 'internal',
  };
  for (const [key, value] of Object.entries(spec)) {
    if (value !== null && typeof value === 'object')
      throw suggestParsingError(spec, key, `suggester[term] parsing failed on [${key}]`);
    switch (key) {
      case 'field':
        out.field = String(value);
        break;
      case 'analyzer':
        out.analyzer = String(value);
        break;
      case 'size':
        out.size = numberOf(spec, key, true);
        if (out.size <= 0) throw illegal('size must be positive');
        break;
      case 'shard_size':
        out.shardSize = numberOf(spec, key, true);
        if (out.shardSize <= 0) throw illegal('shardSize must be positive');
        break;
      case 'suggest_mode': {
        const mode = String(value).toLowerCase();
        if (mode !== 'missing' && mode !== 'popular' && mode !== 'always')
          throw illegal(`No enum constant ${ENUM_PREFIX}.SuggestMode.${String(value).toUpperCase()}`);
        out.suggestMode = mode;
        break;
      }
      case 'accuracy':
        out.accuracy = numberOf(spec, key, false);
        if (out.accuracy < 0 || out.accuracy > 1) throw illegal('accuracy must be between 0 and 1');
        break;
      case 'sort': {
        const sort = String(value).toLowerCase();
        if (sort !== 'score' && sort !== 'frequency')
          throw illegal(`No enum constant ${ENUM_PREFIX}.SortBy.${String(value).toUpperCase()}`);
        out.sort = sort;
        break;
      }
      case 'string_distance':
        // Only Lucene's internal distance (the FuzzyTermsEnum boost) is implemented: docs/COVERAGE.md.
        if (String(value).toLowerCase() !== 'internal') {
          const known = ['damerau_levenshtein', 'levenshtein', 'jaro_winkler', 'ngram'];
          if (known.includes(String(value).toLowerCase()))
            throw illegal(`string_distance [${String(value)}] is not supported by search-store`);
          throw illegal(`Illegal distance option ${String(value)}`);
        }
        break;
      case 'max_edits':
        out.maxEdits = numberOf(spec, key, true);
        if (out.maxEdits < 1 || out.maxEdits > 2) throw illegal('maxEdits must be between 1 and 2');
        break;
      case 'max_inspections':
        out.maxInspections = numberOf(spec, key, true);
        if (out.maxInspections < 0) throw illegal('maxInspections must be positive');
        break;
      case 'max_term_freq':
        out.maxTermFreq = numberOf(spec, key, false);
        if (out.maxTermFreq < 0) throw illegal('maxTermFreq must be positive');
        if (out.maxTermFreq > 1 && out.maxTermFreq !== Math.floor(out.maxTermFreq))
          throw illegal('if maxTermFreq is greater than 1, it must not be a fraction');
        break;
      case 'prefix_length':
        out.prefixLength = numberOf(spec, key, true);
        if (out.prefixLength < 0) throw illegal('prefixLength must be positive');
        break;
      case 'min_word_length':
        out.minWordLength = numberOf(spec, key, true);
        if (out.minWordLength < 1) throw illegal('minWordLength must be greater or equal to 1');
        break;
      case 'min_doc_freq':
        out.minDocFreq = numberOf(spec, key, false);
        if (out.minDocFreq < 0) throw illegal('minDocFreq must be positive');
        if (out.minDocFreq > 1 && out.minDocFreq !== Math.floor(out.minDocFreq))
          throw illegal('if minDocFreq is greater than 1, it must not be a fraction');
        break;
      default:
        throw parser === 'term'
          ? suggestParsingError(spec, key, `suggester[term] doesn't support field [${key}]`)
          : new EsError('x_content_parse_exception', `[direct_generator] unknown field [${key}]`);
    }
  }
  if (out.field === undefined)
    throw new EsError('parse_exception', 'the required field option [field] is missing');
  return { ...out, field: out.field, shardSize: out.shardSize ?? Math.max(out.size, 5) };
}
