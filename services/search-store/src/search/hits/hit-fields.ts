import { newDictionary } from '@acme/common';
import { formatDateValue, parseDateValue } from '../../index/date-value';
import { valuesAtPath } from '../../index/indexed-fields';
import { isIntegerType, isNumericType } from '../../mapping/field-types';
import { canonicalIp } from '../../mapping/ip-value';
import { geoFieldValues } from './geo-field-values';
import { DEFAULT_DATE_NANOS_FORMAT, formatDateNanos, parseDateNanos } from '../../mapping/date-nanos';
import { parseJsonWithBigIntegers, unsignedLongJson, unsignedLongOf } from '../../mapping/unsigned-long';
import { matchFieldPattern, type IndexReader, type ReaderField } from '../../query/index-reader';

/** `fields: [...]`: values of mapped fields from `_source`, always arrays, dates in ISO form. */
export function extractFields(
  reader: IndexReader,
  source: Record<string, unknown>,
  requested: { field: string; format?: string }[],
  sourceText?: string,
): Record<string, unknown[]> | undefined {
  if (requested.length === 0) return undefined;
  // Keyed by field path: `out.constructor` must not be Object (it would hide a field named so).
  const out = newDictionary<unknown[]>();
  let exact: unknown;
  for (const { field: pattern, format } of requested) {
    const test = matchFieldPattern(pattern);
    for (const field of reader.fields.values()) {
      if (!test(field.path) || out[field.path]) continue;
      if (field.type === 'geo_point') {
        const points = geoFieldValues(field, source, format);
        if (points.length > 0) out[field.path] = points;
        continue;
      }
      // unsigned_long values are read from the text again: JSON.parse rounds them past 2^53.
      const from =
        field.type === 'unsigned_long' && sourceText ? (exact ??= exactSource(sourceText)) : source;
      // A flattened field's values are its objects, as ES returns them.
      const values = valuesAtPath(from, field.sourcePath)
        .filter((v) => typeof v !== 'object' || field.type === 'flattened')
        .map((v) => fieldValue(field, v))
        .filter((v) => v !== undefined);
      if (values.length > 0) out[field.path] = values;
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function exactSource(text: string): unknown {
  return parseJsonWithBigIntegers(text);
}

function fieldValue(field: ReaderField, value: unknown): unknown {
  if (field.type === 'text' || field.type === 'keyword') {
    const text = String(value);
    const ignoreAbove = field.mapping.ignore_above;
    return ignoreAbove !== undefined && [...text].length > ignoreAbove ? undefined : text;
  }
  if (field.type === 'date') {
    const ms = parseDateValue(value, field.mapping.format);
    return ms === undefined ? undefined : formatDateValue(ms);
  }
  if (field.type === 'boolean') return value === true || value === 'true';
  if (field.type === 'date_nanos') {
    const parsed = parseDateNanos(value, field.mapping.format ?? DEFAULT_DATE_NANOS_FORMAT);
    return parsed.ok ? formatDateNanos(parsed.nanos) : undefined;
  }
  if (field.type === 'unsigned_long') {
    const exact = unsignedLongOf(value);
    return exact === undefined ? undefined : unsignedLongJson(exact);
  }
  // ES re-parses the address and prints it canonically; a malformed (ignored) value is left out.
  if (field.type === 'ip') return canonicalIp(String(value));
  if (isNumericType(field.type)) {
    const n = Number(value);
    if (!Number.isFinite(n)) return undefined;
    return isIntegerType(field.type) ? Math.trunc(n) : n;
  }
  return value;
}
