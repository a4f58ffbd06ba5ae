import { EsError } from '@acme/common';
import { parseTermSuggester, type TermSuggester } from './parse-term-suggester';
import { suggestParsingError } from './suggest-parsing-error';

/**
 * The phrase suggester's options (ES PhraseSuggestionBuilder): the noisy channel model of
 * NoisyChannelSpellChecker over candidates from `direct_generator`s (DirectSpellChecker settings,
 * defaults as ES's DirectCandidateGeneratorBuilder), scored by a smoothing model.
 */
export interface PhraseSuggester {
  kind: 'phrase';
  field: string;
  analyzer?: string;
  size: number;
  gramSize?: number;
  realWordErrorLikelihood: number;
  confidence: number;
  maxErrors: number;
  separator: string;
  tokenLimit: number;
  highlight?: { preTag: string; postTag: string };
  smoothing: { kind: 'stupid_backoff'; discount: number } | { kind: 'laplace'; alpha: number };
  generators: TermSuggester[];
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function illegal(reason: string): EsError {
  return new EsError('illegal_argument_exception', reason);
}

function num(spec: Json, key: string): number {
  const value = spec[key];
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n))
    throw new EsError('x_content_parse_exception', `[phrase] failed to parse field [${key}]`);
  return n;
}

function parseSmoothing(value: unknown): PhraseSuggester['smoothing'] {
  if (!isObject(value) || Object.keys(value).length !== 1)
    throw new EsError('parsing_exception', 'suggester[phrase] smoothing must have exactly one model');
  const [[name, options]] = Object.entries(value) as [[string, unknown]];
  const o = isObject(options) ? options : {};
  if (name === 'stupid_backoff')
    return { kind: 'stupid_backoff', discount: o.discount === undefined ? 0.4 : num(o, 'discount') };
  if (name === 'laplace') return { kind: 'laplace', alpha: o.alpha === undefined ? 0.5 : num(o, 'alpha') };
  if (name === 'linear_interpolation')
    throw illegal('[linear_interpolation] smoothing is not supported by search-store');
  throw new EsError('parsing_exception', `suggester[phrase] doesn't support object field [${name}]`);
}

/** A direct_generator: the term suggester's options, with ES's generator defaults. */
function parseGenerator(spec: unknown): TermSuggester {
  if (!isObject(spec))
    throw new EsError('parsing_exception', 'suggester[phrase] direct_generator must be an object');
  for (const key of ['pre_filter', 'post_filter'])
    if (spec[key] !== undefined)
      throw illegal(`[${key}] of a direct_generator is not supported by search-store`);
  const generator = parseTermSuggester(spec, 'direct_generator');
  // DirectCandidateGenerator draws `size` candidates per token (no shard_size floor of 5).
  return { ...generator, shardSize: generator.size };
}

export function parsePhraseSuggester(spec: Json): PhraseSuggester {
  const out: Omit<PhraseSuggester, 'field'> & { field?: string } = {
    kind: 'phrase',
    size: 5,
    realWordErrorLikelihood: 0.95,
    confidence: 1,
    maxErrors: 1,
    separator: ' ',
    tokenLimit: 10,
    smoothing: { kind: 'stupid_backoff', discount: 0.4 },
    generators: [],
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
        out.size = Math.trunc(num(spec, key));
        if (out.size <= 0) throw illegal('size must be positive');
        break;
      case 'shard_size':
        if (num(spec, key) <= 0) throw illegal('shardSize must be positive');
        break;
      case 'gram_size':
        out.gramSize = Math.trunc(num(spec, key));
        if (out.gramSize < 1) throw illegal('gramSize must be >= 1');
        break;
      case 'real_word_error_likelihood':
        out.realWordErrorLikelihood = num(spec, key);
        if (out.realWordErrorLikelihood <= 0) throw illegal('real_word_error_likelihood must be > 0.0');
        break;
      case 'confidence':
        out.confidence = num(spec, key);
        if (out.confidence < 0) throw illegal('confidence must be >= 0.0');
        break;
      case 'max_errors':
        out.maxErrors = num(spec, key);
        if (out.maxErrors <= 0) throw illegal('max_error must be > 0.0');
        break;
      case 'separator':
        out.separator = String(value);
        break;
      case 'token_limit':
        out.tokenLimit = Math.trunc(num(spec, key));
        if (out.tokenLimit <= 0) throw illegal('token_limit must be >= 1');
        break;
      case 'force_unigrams':
        break;
      case 'highlight': {
        const h = isObject(value) ? value : {};
        if (h.pre_tag === undefined || h.post_tag === undefined)
          throw illegal('Pre and post tag must both be null or both not be null.');
        out.highlight = { preTag: String(h.pre_tag), postTag: String(h.post_tag) };
        break;
      }
      case 'smoothing':
        out.smoothing = parseSmoothing(value);
        break;
      case 'direct_generator':
        out.generators = (Array.isArray(value) ? value : [value]).map(parseGenerator);
        break;
      case 'collate':
        throw illegal('[collate] of the phrase suggester is not supported by search-store');
      default:
        throw suggestParsingError(spec, key, `suggester[phrase] doesn't support field [${key}]`);
    }
  }
  if (out.field === undefined) throw illegal('suggestion requires [field] to be set');
  const field = out.field;
  // PhraseSuggestionBuilder.build: without generators, one DirectCandidateGenerator on the field.
  if (out.generators.length === 0) out.generators.push(parseTermSuggester({ field }, 'direct_generator'));
  return { ...out, field };
}
