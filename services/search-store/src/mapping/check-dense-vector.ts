import type { EsCause } from '@acme/common';
import type { FieldMapping } from './mapping-types';

const ELEMENT_TYPES = ['float', 'byte'];
const SIMILARITIES = ['l2_norm', 'cosine', 'dot_product', 'max_inner_product'];
const INDEX_TYPES = ['hnsw', 'int8_hnsw', 'int4_hnsw', 'flat', 'int8_flat', 'int4_flat'];

/** ES DenseVectorFieldMapper's parameter checks (messages as ES 8 writes them); the reason, or undefined. */
export function denseVectorMappingError(
  name: string,
  definition: Record<string, unknown>,
): string | undefined {
  const elementType = definition.element_type;
  if (elementType !== undefined && !ELEMENT_TYPES.includes(String(elementType))) {
    return `invalid element_type [${String(elementType)}]; available types are [float, byte]`;
  }
  const similarity = definition.similarity;
  if (similarity !== undefined && !SIMILARITIES.includes(String(similarity))) {
    return `Unknown value [${String(similarity)}] for field [similarity] - accepted values are [${SIMILARITIES.join(', ')}]`;
  }
  if (definition.index === false && similarity !== undefined) {
    return `Field [similarity] can only be specified for a field of type [dense_vector] when it is indexed`;
  }
  const options = definition.index_options;
  if (options === undefined) return undefined;
  if (definition.index === false) {
    return `Field [index_options] can only be specified for a field of type [dense_vector] when it is indexed`;
  }
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    return `[index_options] requires field [type] to be configured`;
  }
  const o = options as Record<string, unknown>;
  if (o.type === undefined) return `[index_options] requires field [type] to be configured`;
  if (!INDEX_TYPES.includes(String(o.type))) {
    return `Unknown vector index options type [${String(o.type)}] for field [${name}]`;
  }
  const quantized = /^int[48]_/.test(String(o.type));
  if (elementType === 'byte' && quantized) {
    return `[element_type] cannot be [byte] when using index type [${String(o.type)}]`;
  }
  // ES 8.15's Int4HnswIndexOptions: two codes a byte.
  if (String(o.type).startsWith('int4') && typeof definition.dims === 'number' && definition.dims % 2 !== 0) {
    return `${String(o.type)} only supports even dimensions; provided=${definition.dims}`;
  }
  for (const key of Object.keys(o)) {
    if (key === 'type') continue;
    if (key === 'confidence_interval' && quantized) {
      // ES814ScalarQuantizedVectorsFormat's range; 0 asks for dynamic quantiles (ES 8.15).
      const ci = o[key];
      if (typeof ci !== 'number' || (ci !== 0 && (ci < 0.9 || ci > 1))) {
        return `confidenceInterval must be between 0.9 and 1.0; confidenceInterval=${typeof ci === 'number' ? javaFloat(ci) : String(ci)}`;
      }
      continue;
    }
    if ((key === 'm' || key === 'ef_construction') && String(o.type).endsWith('hnsw')) {
      const n = o[key];
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 512) {
        return `[${key}] must be an integer between 1 and 512, got [${String(n)}]`;
      }
      continue;
    }
    return `Mapping definition for [${name}] has unsupported parameters:  [${key} : ${String(o[key])}]`;
  }
  return undefined;
}

/** A number as Java prints a float (`1.0`, `0.5`). */
function javaFloat(n: number): string {
  return Number.isInteger(n) ? `${n}.0` : String(n);
}

function previewVector(values: readonly number[]): string {
  const shown = values.slice(0, 10).map((v) => (Number.isInteger(v) ? `${v}.0` : String(v)));
  return `[${shown.join(', ')}${values.length > 10 ? ', ...' : ''}]`;
}

/** A document's vector against the field's element type and similarity (ES's per-value checks). */
export function denseVectorValueCause(field: FieldMapping, values: readonly number[]): EsCause | undefined {
  if (field.element_type === 'byte') {
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      if (!Number.isInteger(v) || v < -128 || v > 127) {
        return {
          type: 'illegal_argument_exception',
          reason: `element_type [byte] vectors only support integers between [-128, 127] but found [${v}] at dim [${i}]; Preview of invalid vector: ${previewVector(values)}`,
        };
      }
    }
  }
  if (field.index === false) return undefined;
  const similarity = field.similarity ?? 'cosine';
  let squared = 0;
  for (const v of values) squared += v * v;
  if (similarity === 'cosine' && squared === 0) {
    return {
      type: 'illegal_argument_exception',
      reason: `The [cosine] similarity does not support vectors with zero magnitude. Preview of invalid vector: ${previewVector(values)}`,
    };
  }
  if (similarity === 'dot_product' && field.element_type !== 'byte' && Math.abs(squared - 1) > 1e-4) {
    return {
      type: 'illegal_argument_exception',
      reason: `The [dot_product] similarity can only be used with unit-length vectors. Preview of invalid vector: ${previewVector(values)}`,
    };
  }
  return undefined;
}
