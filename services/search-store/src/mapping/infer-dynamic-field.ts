import type { FieldMapping, IndexMapping, RuntimeFieldMapping } from './mapping-types';
import { parseDate } from './parse-date';

export interface DynamicField {
  field?: FieldMapping;
  runtime?: RuntimeFieldMapping;
}

/** ES `dynamic_date_formats` default: the first one maps to a plain `date`. */
const DEFAULT_DYNAMIC_DATE_FORMATS = ['strict_date_optional_time', 'yyyy/MM/dd HH:mm:ss||yyyy/MM/dd Z'];

/**
 * The field dynamic mapping creates for a new leaf value (ES "Dynamic field mapping" table): a string
 * becomes `date` when date detection matches, a number when numeric detection is on and it parses,
 * otherwise `text` with a `keyword` sub-field (ignore_above 256); an integer `long`, a fraction
 * `float`, a boolean `boolean`. With `dynamic: runtime` the same values become runtime fields
 * (keyword, long, double, boolean, date).
 */
export function inferDynamicField(
  value: unknown,
  mapping: IndexMapping,
  runtime: boolean,
  /** False when the JSON text wrote the number with a fraction or exponent (`1.0`, `1e3`): a float token. */
  integerLiteral = true,
): DynamicField {
  if (typeof value === 'boolean') return make({ type: 'boolean' }, runtime);
  if (typeof value === 'number') {
    if (Number.isInteger(value) && integerLiteral) return make({ type: 'long' }, runtime);
    return runtime ? { runtime: { type: 'double' } } : { field: { type: 'float' } };
  }
  const text = String(value);
  if (mapping.date_detection !== false) {
    const formats = mapping.dynamic_date_formats ?? DEFAULT_DYNAMIC_DATE_FORMATS;
    for (const [i, format] of formats.entries()) {
      if (parseDate(text, format) !== undefined) {
        const isDefault = mapping.dynamic_date_formats === undefined && i === 0;
        if (runtime) return { runtime: { type: 'date' } };
        return { field: isDefault ? { type: 'date' } : { type: 'date', format } };
      }
    }
  }
  if (mapping.numeric_detection === true && /^-?\d+(\.\d+)?$/.test(text.trim())) {
    const integral = /^-?\d+$/.test(text.trim());
    if (runtime) return { runtime: { type: integral ? 'long' : 'double' } };
    return { field: { type: integral ? 'long' : 'float' } };
  }
  if (runtime) return { runtime: { type: 'keyword' } };
  return { field: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } } };
}

function make(field: { type: 'boolean' | 'long' }, runtime: boolean): DynamicField {
  return runtime ? { runtime: { type: field.type } } : { field };
}
