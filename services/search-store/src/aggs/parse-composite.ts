import { EsError } from '@acme/common';
import type { CompositeSource, CompositeSpec, HistogramSpec } from './agg-types';

/** Most sources one composite may have (Elasticsearch has no limit; each is a join here). */
export const MAX_COMPOSITE_SOURCES = 10;

const KINDS = new Set(['terms', 'histogram', 'date_histogram']);
const SOURCE_FIELDS = new Set([
  'field',
  'missing_bucket',
  'missing_order',
  'order',
  'interval',
  'calendar_interval',
  'fixed_interval',
  'offset',
  'format',
  'time_zone',
]);

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

type ParseHistogram = (
  type: 'histogram' | 'date_histogram',
  name: string,
  spec: Record<string, unknown>,
) => HistogramSpec;

/** Parses `composite` (ES CompositeAggregationBuilder.PARSER): sources, size, after. */
export function parseComposite(
  name: string,
  spec: Record<string, unknown>,
  parseHistogram: ParseHistogram,
): CompositeSpec {
  for (const key of Object.keys(spec)) {
    if (!['sources', 'size', 'after'].includes(key))
      throw new EsError('x_content_parse_exception', `[composite] unknown field [${key}]`);
  }
  const list = spec.sources;
  if (!Array.isArray(list) || list.length === 0)
    throw new EsError('illegal_argument_exception', 'Composite [sources] cannot be null or empty');
  if (list.length > MAX_COMPOSITE_SOURCES)
    throw new EsError(
      'illegal_argument_exception',
      `Composite [${name}] has [${list.length}] sources; search-store allows [${MAX_COMPOSITE_SOURCES}]`,
    );
  const names = new Set<string>();
  const sources = list.map((item): CompositeSource => {
    if (!isObject(item) || Object.keys(item).length !== 1)
      throw new EsError('parsing_exception', 'Each [sources] entry must be an object with a single key');
    const [[sourceName, def]] = Object.entries(item) as [[string, unknown]];
    if (names.has(sourceName))
      throw new EsError(
        'illegal_argument_exception',
        `Composite source names must be unique, found duplicates: [${sourceName}]`,
      );
    names.add(sourceName);
    if (!isObject(def) || Object.keys(def).length !== 1)
      throw new EsError('parsing_exception', `[${sourceName}] must hold one source type`);
    const [[kind, body]] = Object.entries(def) as [[string, unknown]];
    if (!KINDS.has(kind)) throw new EsError('parsing_exception', `Unknown composite source type [${kind}]`);
    if (!isObject(body)) throw new EsError('parsing_exception', `Expected [START_OBJECT] under [${kind}]`);
    for (const key of Object.keys(body)) {
      if (!SOURCE_FIELDS.has(key))
        throw new EsError('x_content_parse_exception', `[${kind}] unknown field [${key}]`);
    }
    if (typeof body.field !== 'string')
      throw new EsError(
        'illegal_argument_exception',
        `Required one of fields [field, script], but none were specified.`,
      );
    if (body.order !== undefined && body.order !== 'asc' && body.order !== 'desc')
      throw new EsError('illegal_argument_exception', `Unknown SortOrder [${String(body.order)}]`);
    const source: CompositeSource = {
      name: sourceName,
      kind: kind as CompositeSource['kind'],
      field: body.field,
      missingBucket: body.missing_bucket === true,
      asc: body.order !== 'desc',
    };
    if (kind !== 'terms') {
      const { missing_bucket: _m, missing_order: _o, order: _r, ...rest } = body;
      source.histogram = parseHistogram(kind as 'histogram' | 'date_histogram', sourceName, rest);
    }
    return source;
  });
  const size = spec.size ?? 10;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1)
    throw new EsError(
      'illegal_argument_exception',
      `[size] must be greater than 0. Found [${String(size)}] in [${name}]`,
    );
  const out: CompositeSpec = { sources, size };
  if (spec.after !== undefined) {
    if (!isObject(spec.after)) throw new EsError('parsing_exception', '[after] must be an object');
    out.after = new Map(Object.entries(spec.after));
  }
  return out;
}
