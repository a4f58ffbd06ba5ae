import type { FieldType } from './field-types';

/**
 * The mapping as Elasticsearch writes it (GET /<index>/_mapping), typed. Shared by the document store
 * (validation, dynamic mapping) and the search engine (which analyzer, which doc values).
 */
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

/** The default date format (ES `DateFieldMapper.DEFAULT_DATE_TIME_FORMATTER`). */
export const DEFAULT_DATE_FORMAT = 'strict_date_optional_time||epoch_millis';
