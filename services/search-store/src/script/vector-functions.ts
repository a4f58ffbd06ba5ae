import { cosine, dot, l1, squaredL2 } from '../index/vector-similarity';
import { fail } from './script-runtime';
import type { Value } from './script-values';

/**
 * The vector functions of script_score (ES "Script score query", "Vector functions"):
 * cosineSimilarity, dotProduct, l1norm and l2norm of a query vector and a document's dense_vector
 * field, named by a string. `vectorOf` gives the current document's stored vector of a field.
 */
export const VECTOR_FUNCTIONS = new Set(['cosineSimilarity', 'dotProduct', 'l1norm', 'l2norm']);

function queryVector(value: Value, at: number): number[] {
  if (!Array.isArray(value)) {
    return fail('illegal_argument_exception', `Unsupported query vector type: ${typeof value}`, at);
  }
  return value.map((v) => {
    if (typeof v === 'bigint') return Number(v);
    if (typeof v === 'number') return v;
    return fail('illegal_argument_exception', 'query vector must contain only numbers', at);
  });
}

export function callVectorFunction(
  name: string,
  args: Value[],
  at: number,
  vectorOf: (field: string) => Float32Array | undefined,
): Value | undefined {
  if (!VECTOR_FUNCTIONS.has(name) || args.length !== 2) return undefined;
  const query = queryVector(args[0]!, at);
  const fieldArg = args[1]!;
  if (typeof fieldArg !== 'string') {
    return fail('illegal_argument_exception', `field name must be a String, found [${typeof fieldArg}]`, at);
  }
  const vector = vectorOf(fieldArg);
  if (!vector)
    return fail('illegal_argument_exception', "A document doesn't have a value for a vector field!", at);
  if (vector.length !== query.length) {
    return fail(
      'illegal_argument_exception',
      `The query vector has a different number of dimensions [${query.length}] than the document vectors [${vector.length}].`,
      at,
    );
  }
  switch (name) {
    case 'cosineSimilarity':
      return cosine(query, vector);
    case 'dotProduct':
      return dot(query, vector);
    case 'l1norm':
      return l1(query, vector);
    default:
      return Math.sqrt(squaredL2(query, vector));
  }
}
