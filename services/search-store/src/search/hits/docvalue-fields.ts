import { formatDecimal } from '../../aggs/pipeline/decimal-format';
import { formatDate } from '../../aggs/format-date';
import { DEFAULT_DATE_FORMAT } from '../../mapping/mapping-types';
import { docValuesOf } from '../../query/compile/search-runtime-fields';
import { matchFieldPattern, type IndexReader, type ReaderField } from '../../query/index-reader';
import { ShardQueryError } from '../../query/shard-query-error';
import { extractFields } from './hit-fields';

/** ES IndexSettings.MAX_DOCVALUE_FIELDS_SEARCH_SETTING's default. */
const DEFAULT_MAX_DOCVALUE_FIELDS = 100;

type Requested = { field: string; format?: string };

/** One resolved docvalue field of one index: the mapped field and the format asked for it. */
interface Resolved {
  field: ReaderField;
  format?: string;
}

function shardFailure(reason: string): ShardQueryError {
  return new ShardQueryError({ type: 'illegal_argument_exception', reason });
}

function fielddataDisabled(reader: IndexReader, path: string): ShardQueryError {
  return shardFailure(
    `Fielddata is disabled on [${path}] in [${reader.name}]. Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [${path}] in order to load field data by uninverting the inverted index. Note that this can use significant memory.`,
  );
}

const FORMATLESS = new Set(['keyword', 'boolean', 'ip', 'flattened', 'text', 'wildcard', 'constant_keyword']);

/**
 * The fields of one index a request's docvalue_fields name (FetchDocValuesContext): wildcards expand
 * over the mapped fields that have doc values; a field named exactly must have them (a text field
 * fails as ES's fielddata error); more than `index.max_docvalue_fields_search` fields fail the shard.
 */
export function resolveDocvalueFields(reader: IndexReader, requested: Requested[]): Resolved[] {
  const out: Resolved[] = [];
  const seen = new Set<string>();
  for (const { field: pattern, format } of requested) {
    const wildcard = pattern.includes('*');
    const test = matchFieldPattern(pattern);
    for (const field of reader.fields.values()) {
      if (!test(field.path) || seen.has(field.path)) continue;
      const hasDocValues = field.type !== 'text' || field.mapping.fielddata === true;
      if (!hasDocValues) {
        if (wildcard) continue;
        throw fielddataDisabled(reader, field.path);
      }
      if (format !== undefined && field.type && FORMATLESS.has(field.type)) {
        throw shardFailure(`Field [${field.path}] of type [${field.type}] doesn't support formats.`);
      }
      seen.add(field.path);
      out.push({ field, format });
    }
  }
  const raw = reader.settings['index.max_docvalue_fields_search'];
  const max = raw === undefined ? DEFAULT_MAX_DOCVALUE_FIELDS : Number(raw);
  if (out.length > max) {
    throw shardFailure(
      `Trying to retrieve too many docvalue_fields. Must be less than or equal to: [${max}] but was [${out.length}]. This limit can be set by changing the [index.max_docvalue_fields_search] index level setting.`,
    );
  }
  return out;
}

/** A number as its doc value holds it: float and half_float fields keep float precision, as ES prints them. */
function numberValue(type: string, n: number): number {
  if (type === 'float' || type === 'half_float') return Math.fround(n);
  return n;
}

/**
 * The hit's values of the resolved docvalue fields (FetchDocValuesPhase): sorted and deduplicated as doc
 * values are; dates in the field's format (or the one asked for: a pattern, `epoch_millis`, …) as strings;
 * numbers as numbers, or strings through a DecimalFormat pattern.
 */
export function docvalueFieldValues(
  reader: IndexReader,
  resolved: Resolved[],
  source: Record<string, unknown>,
  sourceText: string,
): [string, unknown[]][] {
  const out: [string, unknown[]][] = [];
  for (const { field, format } of resolved) {
    const type = field.type ?? '';
    const values = docValuesOf(reader, field.path, source);
    if (values && values.values.length > 0) {
      if (values.type === 'date') {
        const pattern = format ?? field.mapping.format ?? DEFAULT_DATE_FORMAT;
        out.push([field.path, values.values.map((ms) => formatDate(Number(ms), pattern))]);
      } else if (values.type === 'long' || values.type === 'double') {
        out.push([
          field.path,
          values.values.map((v) => {
            const n = numberValue(type, Number(v));
            return format === undefined ? n : formatDecimal(format, n);
          }),
        ]);
      } else out.push([field.path, values.values]);
      continue;
    }
    if (values) continue; // a doc-values type without a value in this document
    // Types docValuesOf does not read (ip, unsigned_long, date_nanos, …): their `fields` form.
    const fetched = extractFields(reader, source, [{ field: field.path }], sourceText);
    const own = fetched?.[field.path];
    if (own && own.length > 0) out.push([field.path, own]);
  }
  return out;
}
