/**
 * The mapping types (ES "Field data types") this store accepts, and the families that the index,
 * queries, sorts and aggregations classify fields by: defined once here.
 */
export const FIELD_TYPES = [
  'text',
  'keyword',
  'long',
  'integer',
  'short',
  'byte',
  'double',
  'float',
  'half_float',
  'scaled_float',
  'date',
  'date_nanos',
  'boolean',
  'binary',
  'ip',
  'geo_point',
  'unsigned_long',
  'dense_vector',
  'sparse_vector',
  'flattened',
  'completion',
  'object',
  'nested',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** Types that hold numbers (doc values in `num`). */
export const NUMERIC_TYPES = [
  'long',
  'integer',
  'short',
  'byte',
  'double',
  'float',
  'half_float',
  'scaled_float',
] as const;
export type NumericType = (typeof NUMERIC_TYPES)[number];

export function isNumericType(type: string | null | undefined): type is NumericType {
  return (NUMERIC_TYPES as readonly (string | null | undefined)[]).includes(type);
}

/** Numeric types that hold whole numbers: values are truncated toward zero (doc values, `fields`). */
export const INTEGER_TYPES = ['long', 'integer', 'short', 'byte'] as const satisfies readonly NumericType[];
export type IntegerType = (typeof INTEGER_TYPES)[number];

export function isIntegerType(type: string | null | undefined): type is IntegerType {
  return (INTEGER_TYPES as readonly (string | null | undefined)[]).includes(type);
}
