import { EsError } from '@acme/common';
import { MAX_AGG_DEPTH, aggDepthExceeded, checkAggLimits } from './agg-limits';
import {
  METRIC_TYPES,
  type AggNode,
  type HistogramSpec,
  type MetricType,
  type RangeSpec,
  type TermsOrder,
  type TopHitsSpec,
} from './agg-types';
import { parsePipeline } from './pipeline/parse-pipeline';
import { PIPELINE_TYPES, type PipelineType } from './pipeline/pipeline-types';
import { validatePipelines } from './pipeline/apply-pipelines';
import { parseComposite } from './parse-composite';
import { parseNestedAgg } from './nested-agg';
import { parsePercentiles } from './parse-percentiles';
import { GEO_AGG_TYPES, parseGeoAgg } from './parse-geo-aggs';
import { checkCompositePlacement } from './composite-agg';
import { parseRareTerms } from './parse-rare-terms';
import { parseSignificantTerms } from './parse-significant-terms';

const BUCKET_TYPES = [
  'composite',
  'terms',
  'rare_terms',
  'significant_terms',
  'significant_text',
  'filter',
  'filters',
  'range',
  'date_range',
  'histogram',
  'date_histogram',
  'nested',
  'reverse_nested',
];
const KNOWN = new Set<string>([
  ...METRIC_TYPES,
  ...BUCKET_TYPES,
  'top_hits',
  'percentiles',
  ...PIPELINE_TYPES,
  ...GEO_AGG_TYPES,
]);
/** Keyed by the client's `calendar_interval`: a Map, so `constructor` is no unit (it was a 500). */
const CALENDAR = new Map<string, HistogramSpec['calendar']>([
  ['minute', 'minute'],
  ['1m', 'minute'],
  ['hour', 'hour'],
  ['1h', 'hour'],
  ['day', 'day'],
  ['1d', 'day'],
  ['week', 'week'],
  ['1w', 'week'],
  ['month', 'month'],
  ['1M', 'month'],
  ['quarter', 'quarter'],
  ['1q', 'quarter'],
  ['year', 'year'],
  ['1y', 'year'],
]);
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function parsingError(reason: string): EsError {
  return new EsError('parsing_exception', reason);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Parses `aggs` (Elasticsearch AggregatorFactories.parseAggregators) into a typed tree, within the
 * limits of agg-limits.ts.
 */
export function parseAggs(body: unknown): AggNode[] {
  const nodes = parseLevel(body, 1);
  checkAggLimits(nodes);
  validatePipelines(nodes);
  checkCompositePlacement(nodes);
  return nodes;
}

function parseLevel(body: unknown, level: number): AggNode[] {
  if (level > MAX_AGG_DEPTH) throw aggDepthExceeded();
  if (!isObject(body))
    throw parsingError('Expected [START_OBJECT] under [aggregations], but got a different token');
  return Object.entries(body).map(([name, def]) => parseAgg(name, def, level));
}

function parseAgg(name: string, def: unknown, level: number): AggNode {
  if (/[[\]>]/.test(name)) {
    throw parsingError(
      `Invalid aggregation name [${name}]. Aggregation names can contain any character except '[', ']', and '>'`,
    );
  }
  if (!isObject(def))
    throw parsingError(
      `Aggregation definition for [${name} starts with a [${Array.isArray(def) ? 'START_ARRAY' : 'VALUE'}], expected a [START_OBJECT].`,
    );
  let type: string | undefined;
  let spec: unknown;
  let subs: AggNode[] = [];
  let meta: unknown;
  for (const [key, value] of Object.entries(def)) {
    if (key === 'aggs' || key === 'aggregations') {
      subs = parseLevel(value, level + 1);
    } else if (key === 'meta') {
      if (!isObject(value))
        throw parsingError(`Expected [START_OBJECT] under [meta], but got a different token`);
      meta = value;
    } else {
      if (type !== undefined)
        throw parsingError(`Found two aggregation type definitions in [${name}]: [${type}] and [${key}]`);
      if (!KNOWN.has(key)) throw parsingError(`Unknown aggregation type [${key}]`);
      type = key;
      spec = value;
    }
  }
  if (type === undefined) throw parsingError(`Missing definition for aggregation [${name}]`);
  if (!isObject(spec))
    throw parsingError(`Expected [START_OBJECT] under [${type}], but got a different token`);
  const node = buildNode(type, name, spec, subs);
  if (subs.length > 0 && PIPELINE_TYPES.has(type))
    throw parsingError(`Aggregation [${name}] cannot define sub-aggregations`);
  const leaf =
    type === 'top_hits' || type === 'percentiles' || type === 'geo_bounds' || type === 'geo_centroid';
  if (subs.length > 0 && ((METRIC_TYPES as readonly string[]).includes(type) || leaf)) {
    throw new EsError(
      'illegal_argument_exception',
      `Aggregator [${name}] of type [${type}] cannot accept sub-aggregations`,
    );
  }
  if (meta !== undefined) node.meta = meta;
  return node;
}

function field(type: string, spec: Record<string, unknown>): string {
  const f = spec.field;
  if (typeof f !== 'string') {
    if (spec.script !== undefined)
      throw new EsError(
        'illegal_argument_exception',
        `[script] is not supported in [${type}]; use runtime_mappings`,
      );
    throw new EsError(
      'illegal_argument_exception',
      `Required one of fields [field, script], but none were specified.`,
    );
  }
  return f;
}

function int(v: unknown, what: string, fallback: number): number {
  if (v === undefined) return fallback;
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n))
    throw new EsError('x_content_parse_exception', `[${what}] failed to parse field [${what}]`);
  return n;
}

function buildNode(type: string, name: string, spec: Record<string, unknown>, subs: AggNode[]): AggNode {
  if (PIPELINE_TYPES.has(type))
    return { type: 'pipeline', name, subs, spec: parsePipeline(type as PipelineType, name, spec) };
  switch (type) {
    case 'nested':
    case 'reverse_nested':
      return parseNestedAgg(type, name, spec, subs);
    case 'terms': {
      const size = int(spec.size, 'size', 10);
      if (size <= 0)
        throw new EsError(
          'illegal_argument_exception',
          `[size] must be greater than 0. Found [${size}] in [${name}]`,
        );
      const minDocCount = int(spec.min_doc_count, 'min_doc_count', 1);
      return {
        type,
        name,
        subs,
        spec: {
          field: field(type, spec),
          missing: spec.missing,
          size,
          minDocCount,
          order: parseOrder(spec.order, [{ key: '_count', asc: false }]),
        },
      };
    }
    case 'percentiles':
      return { type, name, subs, spec: parsePercentiles(name, spec, field(type, spec)) };
    case 'geo_bounds':
    case 'geo_centroid':
    case 'geohash_grid':
    case 'geo_distance':
      return { name, subs, ...parseGeoAgg(type, name, spec) } as AggNode;
    case 'rare_terms':
      return { type, name, subs, spec: parseRareTerms(name, spec, field(type, spec)) };
    case 'significant_terms':
    case 'significant_text':
      return { type, name, subs, spec: parseSignificantTerms(name, spec, field(type, spec), type) };
    case 'composite':
      return { type, name, subs, spec: parseComposite(name, spec, parseHistogram) };
    case 'filter':
      return { type, name, subs, query: spec };
    case 'filters': {
      const filters = spec.filters;
      const otherBucketKey =
        typeof spec.other_bucket_key === 'string'
          ? spec.other_bucket_key
          : spec.other_bucket === true
            ? '_other_'
            : undefined;
      if (Array.isArray(filters))
        return {
          type,
          name,
          subs,
          filters: filters.map((q, i) => [String(i), q]),
          keyed: false,
          otherBucketKey,
        };
      if (!isObject(filters)) throw parsingError(`[filters] cannot be empty.`);
      return {
        type,
        name,
        subs,
        filters: Object.entries(filters).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        keyed: spec.keyed !== false,
        otherBucketKey,
      };
    }
    case 'range':
    case 'date_range':
      return { type, name, subs, spec: parseRange(type, spec) };
    case 'histogram':
    case 'date_histogram':
      return { type, name, subs, spec: parseHistogram(type, name, spec) };
    case 'top_hits':
      return { type, name, subs, spec: parseTopHits(spec) };
    default:
      return {
        type: type as MetricType,
        name,
        subs,
        spec: { field: field(type, spec), missing: spec.missing, ...precisionOf(type, name, spec) },
      };
  }
}

/** `order: {"_count": "desc"}` or an array of such; ties always fall back to the key ascending. */
function parseOrder(order: unknown, fallback: TermsOrder): TermsOrder {
  if (order === undefined) return fallback;
  const items = Array.isArray(order) ? order : [order];
  return items.map((item) => {
    if (!isObject(item) || Object.keys(item).length !== 1)
      throw parsingError('Order must be an object with a single key');
    const [[key, dir]] = Object.entries(item) as [[string, unknown]];
    if (dir !== 'asc' && dir !== 'desc') throw parsingError(`Unknown order direction [${String(dir)}]`);
    return { key: key === '_term' ? '_key' : key, asc: dir === 'asc' };
  });
}

function parseRange(type: 'range' | 'date_range', spec: Record<string, unknown>): RangeSpec {
  if (!Array.isArray(spec.ranges) || spec.ranges.length === 0) {
    throw new EsError('illegal_argument_exception', `No [ranges] specified for the [${type}] aggregation`);
  }
  const ranges = spec.ranges.map((r) => {
    if (!isObject(r)) throw parsingError('Expected [START_OBJECT] under [ranges]');
    const out: RangeSpec['ranges'][number] = {};
    if (typeof r.key === 'string') out.key = r.key;
    for (const side of ['from', 'to'] as const) {
      const v = r[side];
      if (v === undefined || v === null) continue;
      if (typeof v === 'number') out[side] = v;
      else if (typeof v === 'string') out[side] = type === 'range' ? Number(v) : v;
      else throw parsingError(`[${side}] must be a number or a string`);
    }
    return out;
  });
  return {
    field: field(type, spec),
    missing: spec.missing,
    ranges,
    keyed: spec.keyed === true,
    format: typeof spec.format === 'string' ? spec.format : undefined,
    timeZone: typeof spec.time_zone === 'string' ? spec.time_zone : undefined,
  };
}

function parseInterval(text: string): number | undefined {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  return m ? Number(m[1]) * (UNIT_MS[m[2] as string] as number) : undefined;
}

export function parseHistogram(
  type: 'histogram' | 'date_histogram',
  name: string,
  spec: Record<string, unknown>,
): HistogramSpec {
  const out: HistogramSpec = {
    field: field(type, spec),
    missing: spec.missing,
    offset: 0,
    minDocCount: int(spec.min_doc_count, 'min_doc_count', 0),
    keyed: spec.keyed === true,
    format: typeof spec.format === 'string' ? spec.format : undefined,
    timeZone: typeof spec.time_zone === 'string' ? spec.time_zone : undefined,
    order: parseOrder(spec.order, [{ key: '_key', asc: true }]),
  };
  if (isObject(spec.extended_bounds))
    out.extendedBounds = spec.extended_bounds as HistogramSpec['extendedBounds'];
  if (isObject(spec.hard_bounds)) out.hardBounds = spec.hard_bounds as HistogramSpec['hardBounds'];
  if (type === 'histogram') {
    const interval = typeof spec.interval === 'string' ? Number(spec.interval) : spec.interval;
    if (typeof interval !== 'number' || !(interval > 0)) {
      throw new EsError(
        'illegal_argument_exception',
        `[interval] must be >0 for histogram aggregation [${name}]`,
      );
    }
    out.interval = interval;
    out.offset = typeof spec.offset === 'number' ? spec.offset : 0;
    return out;
  }
  const { calendar_interval: cal, fixed_interval: fixed, interval } = spec;
  if (interval !== undefined) {
    throw new EsError(
      'illegal_argument_exception',
      `[interval] on [date_histogram] is no longer supported; use [fixed_interval] or [calendar_interval]`,
    );
  }
  if (cal !== undefined && fixed !== undefined)
    throw new EsError(
      'illegal_argument_exception',
      'Cannot use [fixed_interval] with [calendar_interval] configuration option.',
    );
  if (typeof cal === 'string') {
    const unit = CALENDAR.get(cal);
    if (!unit)
      throw new EsError(
        'illegal_argument_exception',
        `The supplied interval [${cal}] could not be parsed as a calendar interval.`,
      );
    out.calendar = unit;
  } else if (typeof fixed === 'string') {
    const ms = parseInterval(fixed);
    if (!ms)
      throw new EsError(
        'illegal_argument_exception',
        `failed to parse setting [date_histogram.fixedInterval] with value [${fixed}] as a time value: unit is missing or unrecognized`,
      );
    out.interval = ms;
  } else {
    throw new EsError(
      'illegal_argument_exception',
      'Invalid interval specified, must be non-null and non-empty',
    );
  }
  if (typeof spec.offset === 'string') {
    const sign = spec.offset.startsWith('-') ? -1 : 1;
    out.offset = sign * (parseInterval(spec.offset.replace(/^[-+]/, '')) ?? 0);
  } else if (typeof spec.offset === 'number') out.offset = spec.offset;
  return out;
}

function parseTopHits(spec: Record<string, unknown>): TopHitsSpec {
  const sortItems = spec.sort === undefined ? [] : Array.isArray(spec.sort) ? spec.sort : [spec.sort];
  const sort = sortItems.map((item) => {
    if (typeof item === 'string') return { field: item, asc: item !== '_score' };
    if (isObject(item) && Object.keys(item).length === 1) {
      const [[f, o]] = Object.entries(item) as [[string, unknown]];
      const dir = isObject(o) ? o.order : o;
      return { field: f, asc: dir === undefined ? f !== '_score' : dir === 'asc' };
    }
    throw parsingError('[sort] must be a string or an object');
  });
  let source: TopHitsSpec['source'] = true;
  const s = spec._source;
  if (s === false) source = false;
  else if (typeof s === 'string' || Array.isArray(s))
    source = { includes: ([] as unknown[]).concat(s).map(String), excludes: [] };
  else if (isObject(s)) {
    const inc = s.includes ?? s.include ?? [];
    const exc = s.excludes ?? s.exclude ?? [];
    source = {
      includes: ([] as unknown[]).concat(inc).map(String),
      excludes: ([] as unknown[]).concat(exc).map(String),
    };
  }
  return { size: int(spec.size, 'size', 3), from: int(spec.from, 'from', 0), sort, source };
}

/** cardinality's precision_threshold (ES caps it at 40,000; a negative one is refused). */
function precisionOf(
  type: string,
  name: string,
  spec: Record<string, unknown>,
): { precisionThreshold?: number } {
  if (type !== 'cardinality' || spec.precision_threshold === undefined) return {};
  const n = int(spec.precision_threshold, 'precision_threshold', 3000);
  if (n < 0)
    throw new EsError(
      'illegal_argument_exception',
      `[precisionThreshold] must be greater than or equal to 0. Found [${n}] in [${name}]`,
    );
  return { precisionThreshold: Math.min(n, 40_000) };
}
