import type { Token } from '../analysis/token';
import {
  analyzeValues,
  findAnalyzer,
  findNormalizer,
  flattenSettings,
  type Analyzer,
} from '../analysis/analyzer';
import { intToByte4 } from './small-float';
import { DEFAULT_DATE_FORMAT, parseDateValue } from './date-value';
import { isIntegerType, isNumericType } from '../mapping/field-types';
import { valuesAtPath, type IndexedField } from './indexed-fields';
import { ipKey } from '../mapping/ip-value';
import { geohashesOf, geoPointKeys } from './geo-point-keys';
import { flattenedEntries } from '../mapping/flattened-value';
import { dateNanosKey, DEFAULT_DATE_NANOS_FORMAT, parseDateNanos } from '../mapping/date-nanos';
import { notedUnsignedLongs, unsignedLongKey, unsignedLongOf } from '../mapping/unsigned-long';
import { featuresOf } from './sparse-features';

/** One document's contribution to one field: its terms, its length and its doc values. */
export interface FieldContribution {
  path: string;
  type: string;
  /** Text: the analysed tokens (term and position; gaps where stop words were removed, 100 between values). */
  tokens: readonly Token[] | null;
  /** Keyword: each distinct (normalized) value once, in the order of the source. */
  terms: readonly string[] | null;
  /** Lucene's one-byte norm of the field length (1 for fields without norms). */
  norm: number;
  /** Tokens for text, distinct terms for keyword, values for the rest: what field_stats adds up. */
  length: number;
  numbers: number[];
  keywords: string[];
  /** sparse_vector: (token, weight encoded as a freq) pairs (sparse-features.ts). */
  features?: readonly (readonly [string, number])[];
}

/** The analyzer a text field indexes with: its own, the index default, else standard. */
export function indexAnalyzerFor(field: IndexedField, settings: Record<string, unknown>): Analyzer {
  const name = field.mapping.analyzer ?? (hasAnalyzer(settings, 'default') ? 'default' : 'standard');
  return findAnalyzer(name, settings);
}

/** The analyzer a query on a text field uses: search_analyzer, analyzer, default_search, default, standard. */
export function searchAnalyzerFor(field: IndexedField, settings: Record<string, unknown>): Analyzer {
  const name =
    field.mapping.search_analyzer ??
    field.mapping.analyzer ??
    (hasAnalyzer(settings, 'default_search')
      ? 'default_search'
      : hasAnalyzer(settings, 'default')
        ? 'default'
        : 'standard');
  return findAnalyzer(name, settings);
}

function hasAnalyzer(settings: Record<string, unknown>, name: string): boolean {
  const flat = flattenSettings(settings);
  return Object.keys(flat).some(
    (k) => k.startsWith(`index.analysis.analyzer.${name}.`) || k.startsWith(`analysis.analyzer.${name}.`),
  );
}

// Resolving an analyzer reads the index settings; once per field object (one batch's field list) is enough.
const resolved = new WeakMap<IndexedField, Map<string, unknown>>();
function cached<T>(field: IndexedField, kind: string, make: () => T): T {
  let entry = resolved.get(field);
  if (!entry) resolved.set(field, (entry = new Map()));
  if (!entry.has(kind)) entry.set(kind, make());
  return entry.get(kind) as T;
}

/** A field's scalar values in a source, undefined when it has none or the field is not indexed. */
export function indexedValues(field: IndexedField, source: Record<string, unknown>): unknown[] | undefined {
  // Fields with doc values stay searchable without an index (ES "index": doc-value queries).
  if (
    field.mapping.index === false &&
    field.type !== 'keyword' &&
    field.type !== 'ip' &&
    field.type !== 'unsigned_long' &&
    field.type !== 'date_nanos' &&
    field.type !== 'geo_point' &&
    !isNumericType(field.type)
  )
    return undefined;
  if (field.type === 'geo_point') return geoPointKeys(field, source);
  if (field.parent) return geohashesOf(field, field.parent, source);
  // completion inputs go to their own table (completion-writer.ts), not to postings.
  if (field.type === 'completion') return undefined;
  if (field.type === 'sparse_vector') {
    const objects = valuesAtPath(source, field.sourcePath).filter((v) => typeof v === 'object');
    return objects.length === 0 ? undefined : objects;
  }
  // unsigned_long: the exact values noted when the document was mapped from its text, if it was.
  if (field.type === 'flattened') {
    const whole = valuesAtPath(source, field.sourcePath);
    return whole.length === 0 ? undefined : whole;
  }
  const exact = field.type === 'unsigned_long' ? notedUnsignedLongs(source, field.sourcePath) : undefined;
  const values = exact ?? valuesAtPath(source, field.sourcePath).filter((v) => typeof v !== 'object');
  return values.length === 0 ? undefined : values;
}

/** The analyzer a text field indexes with, resolved once per field object. */
export function textAnalyzer(field: IndexedField, settings: Record<string, unknown>): Analyzer {
  return cached(field, 'analyzer', () => indexAnalyzerFor(field, settings));
}

/** One field's contribution from its values (`indexedValues`), undefined when it indexes nothing. */
export function contribute(
  field: IndexedField,
  values: unknown[],
  settings: Record<string, unknown>,
): FieldContribution | undefined {
  const base = {
    path: field.path,
    type: field.type,
    tokens: null,
    terms: null,
    norm: 1,
    length: 0,
    numbers: [],
    keywords: [],
  };
  if (field.type === 'text') {
    const tokens = analyzeValues(textAnalyzer(field, settings), values.map(String));
    if (tokens.length === 0) return undefined;
    return { ...base, tokens, norm: intToByte4(tokens.length), length: tokens.length };
  }
  if (field.type === 'keyword') {
    const ignoreAbove = field.mapping.ignore_above ?? Infinity;
    const normalize = cached(field, 'normalizer', () => keywordNormalizer(field, settings));
    // ignore_above looks at the original value; the normalized value is what is indexed.
    const terms = [
      ...new Set(
        values
          .map(String)
          .filter((v) => [...v].length <= ignoreAbove)
          .map(normalize),
      ),
    ];
    if (terms.length === 0) return undefined;
    return { ...base, terms, length: terms.length, keywords: [...terms].sort() };
  }
  if (field.type === 'geo_point') {
    // Doc values only: the points' keys from indexedValues (index/geo-point-keys.ts).
    const keys = values as string[];
    return { ...base, length: keys.length, keywords: keys };
  }
  if (field.type === 'ip') {
    // Doc values only (no terms): the address as 16 bytes in hex (mapping/ip-value.ts). A malformed
    // value reaches here only under ignore_malformed, and is left out.
    const keys = [...new Set(values.map((v) => ipKey(String(v))).filter((k) => k !== undefined))];
    if (keys.length === 0) return undefined;
    return { ...base, length: keys.length, keywords: keys.sort() };
  }
  if (field.type === 'flattened') {
    // Doc values only: each leaf under the root and under its key (mapping/flattened-value.ts).
    const keywords = flattenedEntries(values, field.mapping.ignore_above ?? Infinity);
    if (keywords.length === 0) return undefined;
    return { ...base, length: keywords.length, keywords };
  }
  if (field.type === 'date_nanos') {
    // Doc values only: nanoseconds as 19 zero-padded digits in kw (mapping/date-nanos.ts).
    const format = field.mapping.format ?? DEFAULT_DATE_NANOS_FORMAT;
    const keys = values.flatMap((v) => {
      const parsed = parseDateNanos(v, format);
      return parsed.ok ? [dateNanosKey(parsed.nanos)] : [];
    });
    if (keys.length === 0) return undefined;
    return { ...base, length: keys.length, keywords: keys.sort() };
  }
  if (field.type === 'unsigned_long') {
    // Doc values only: 20 zero-padded digits in kw (mapping/unsigned-long.ts); every value, repeats
    // included, as numeric doc values keep them (value_count, sum).
    const keys = values
      .map(unsignedLongOf)
      .filter((v) => v !== undefined)
      .map(unsignedLongKey);
    if (keys.length === 0) return undefined;
    return { ...base, length: keys.length, keywords: keys.sort() };
  }
  if (field.type === 'sparse_vector') {
    const features = featuresOf(values);
    return features.length === 0 ? undefined : { ...base, features, length: features.length };
  }
  const numbers = values.map((v) => toNumber(field, v)).filter((n): n is number => n !== undefined);
  if (numbers.length === 0) return undefined;
  return { ...base, length: numbers.length, numbers };
}

/** The normalizer of a keyword field (identity without one). */
export function keywordNormalizer(
  field: IndexedField,
  settings: Record<string, unknown>,
): (value: string) => string {
  const name = field.mapping.normalizer;
  return typeof name === 'string' ? findNormalizer(name, settings) : (value) => value;
}

function toNumber(field: IndexedField, value: unknown): number | undefined {
  if (field.type === 'date') return parseDateValue(value, field.mapping.format ?? DEFAULT_DATE_FORMAT);
  if (field.type === 'boolean') {
    if (value === true || value === 'true') return 1;
    if (value === false || value === 'false' || value === '') return 0;
    return undefined;
  }
  if (!isNumericType(field.type)) return undefined;
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && value.trim() !== ''
        ? Number(value)
        : NaN;
  if (!Number.isFinite(n)) return undefined;
  if (isIntegerType(field.type)) return Math.trunc(n);
  if (field.type === 'float') return Math.fround(n);
  if (field.type === 'scaled_float') {
    const factor = Number(field.mapping.scaling_factor ?? 1);
    return Math.round(n * factor) / factor;
  }
  return n;
}
