import type { FieldMapping, IndexMapping } from '../mapping/mapping-types';
import { listIndexedFields } from './indexed-fields';
import type { GraphOptions } from './hnsw-graph';
import type { Similarity } from './vector-similarity';

/** A dense_vector field with Elasticsearch 8's defaults filled in ("Dense vector field type"). */
export interface DenseVectorField {
  path: string;
  dims: number | undefined;
  elementType: 'float' | 'byte';
  /** `index: false` stores vectors for script_score only; knn refuses the field. */
  indexed: boolean;
  similarity: Similarity;
  /**
   * `flat`, `int8_flat`, `int4_flat`: exact search only, no graph; `hnsw`, `int8_hnsw`, `int4_hnsw`:
   * an HNSW graph (hnsw-graph.ts), walked on int8 / int4 codes for the quantised types.
   */
  indexType: 'hnsw' | 'int8_hnsw' | 'int4_hnsw' | 'flat' | 'int8_flat' | 'int4_flat';
  m: number;
  efConstruction: number;
  /** `index_options.confidence_interval` of the quantised types. */
  confidenceInterval: number | undefined;
}

export const DEFAULT_HNSW_M = 16;
export const DEFAULT_EF_CONSTRUCTION = 100;

/** The effective options of a dense_vector mapping (defaults: cosine; int8_hnsw for floats, hnsw for bytes). */
export function denseVectorField(path: string, mapping: FieldMapping): DenseVectorField {
  const elementType = mapping.element_type === 'byte' ? 'byte' : 'float';
  const options = (mapping.index_options ?? {}) as Record<string, unknown>;
  const indexType =
    (options.type as DenseVectorField['indexType'] | undefined) ??
    (elementType === 'byte' ? 'hnsw' : 'int8_hnsw');
  return {
    path,
    dims: mapping.dims,
    elementType,
    indexed: mapping.index !== false,
    similarity: (mapping.similarity as Similarity | undefined) ?? 'cosine',
    indexType,
    m: typeof options.m === 'number' ? options.m : DEFAULT_HNSW_M,
    efConstruction:
      typeof options.ef_construction === 'number' ? options.ef_construction : DEFAULT_EF_CONSTRUCTION,
    confidenceInterval:
      typeof options.confidence_interval === 'number' ? options.confidence_interval : undefined,
  };
}

/** Below this many dimensions the graph walks floats only (codes would save nothing worth their memory). */
const MIN_CODED_DIMS = 32;

/** The options of a field's in-memory graph. */
export function graphOptionsOf(field: DenseVectorField, dims: number): GraphOptions {
  const bits = field.indexType === 'int8_hnsw' ? 8 : field.indexType === 'int4_hnsw' ? 4 : undefined;
  return {
    dims,
    similarity: field.similarity,
    linked: hasGraph(field),
    m: field.m,
    efConstruction: field.efConstruction,
    ...(bits !== undefined && { quantization: { bits, confidenceInterval: field.confidenceInterval } }),
    // hnsw fields search floats, but inserts walk codes: the walks are bound by memory reads, and a
    // code is a quarter of a float vector (hnsw-graph.ts, `quantizedBuild`).
    quantizedBuild: dims >= MIN_CODED_DIMS,
  };
}

/** Whether a field keeps an HNSW graph (indexed, and not a flat index type). */
export function hasGraph(field: DenseVectorField): boolean {
  return field.indexed && field.indexType.endsWith('hnsw');
}

/** The dense_vector fields of a mapping, in path order. */
export function listDenseVectorFields(mappings: IndexMapping): DenseVectorField[] {
  return listIndexedFields(mappings)
    .filter((f) => f.type === 'dense_vector')
    .map((f) => denseVectorField(f.path, f.mapping));
}
