/**
 * The mapping as Elasticsearch writes it (GET /<index>/_mapping), typed. Shared by the document store
 * (validation, dynamic mapping) and the search engine (which analyzer, which doc values).
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
  'boolean',
  'binary',
  'dense_vector',
  'sparse_vector',
  'object',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export type DynamicSetting = 'true' | 'false' | 'strict' | 'runtime';

export interface FieldMapping {
  type?: FieldType; // absent on objects written with only `properties`
  properties?: Record<string, FieldMapping>;
  /** Multi-fields: the same value indexed another way (`title.keyword`). */
  fields?: Record<string, FieldMapping>;
  dynamic?: DynamicSetting | boolean;
  analyzer?: string;
  search_analyzer?: string;
  format?: string;
  ignore_above?: number;
  dims?: number;
  element_type?: 'float' | 'byte';
  index?: boolean;
  doc_values?: boolean;
  scaling_factor?: number;
  [parameter: string]: unknown;
}

export interface RuntimeFieldMapping {
  type: 'keyword' | 'long' | 'double' | 'date' | 'boolean' | 'ip' | 'geo_point';
  script?: { source: string; params?: Record<string, unknown>; lang?: string };
}

export interface IndexMapping {
  dynamic?: DynamicSetting | boolean;
  properties?: Record<string, FieldMapping>;
  runtime?: Record<string, RuntimeFieldMapping>;
  date_detection?: boolean;
  numeric_detection?: boolean;
  dynamic_date_formats?: string[];
  dynamic_templates?: unknown[];
  _source?: { enabled?: boolean };
  _meta?: Record<string, unknown>;
}

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

export function isNumericType(type: FieldType | undefined): type is NumericType {
  return (NUMERIC_TYPES as readonly string[]).includes(type ?? '');
}

/** The default date format (ES `DateFieldMapper.DEFAULT_DATE_TIME_FORMATTER`). */
export const DEFAULT_DATE_FORMAT = 'strict_date_optional_time||epoch_millis';
