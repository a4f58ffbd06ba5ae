import { isIntegerType, isNumericType } from '../mapping/field-types';
import type { DocValueType } from '../script/script-values';

/**
 * How a mapped field's doc values reach aggregations and scripts (numbers, keyword strings, booleans,
 * dates as epoch ms), or undefined when it has none (text). Its own file: both the field resolver and
 * the document loader it calls need it.
 */
export function docValueType(type: string): DocValueType | undefined {
  if (type === 'keyword' || type === 'boolean' || type === 'date') return type;
  if (isIntegerType(type)) return 'long';
  if (isNumericType(type)) return 'double';
  return undefined;
}
