import type { DocValueType } from '../script/script-values';

const NUMERIC = new Set([
  'long',
  'integer',
  'short',
  'byte',
  'double',
  'float',
  'half_float',
  'scaled_float',
  'unsigned_long',
]);

export function isNumericType(type: string | null): boolean {
  return type !== null && NUMERIC.has(type);
}

export function isIntegralType(type: string | null): boolean {
  return (
    type === 'long' || type === 'integer' || type === 'short' || type === 'byte' || type === 'unsigned_long'
  );
}

/**
 * How a mapped field's doc values reach aggregations and scripts (numbers, keyword strings, booleans,
 * dates as epoch ms), or undefined when it has none (text). Its own file: both the field resolver and
 * the document loader it calls need it.
 */
export function docValueType(type: string): DocValueType | undefined {
  if (type === 'keyword' || type === 'boolean' || type === 'date') return type;
  if (isIntegralType(type)) return 'long';
  if (NUMERIC.has(type)) return 'double';
  return undefined;
}
