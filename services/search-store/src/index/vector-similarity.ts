/**
 * Vector similarities and Elasticsearch's score transforms (ES reference, "Dense vector field type",
 * `similarity`), shared by the exact paths, the HNSW graph and the script functions. Every score is
 * positive and higher is better, as Lucene's `VectorSimilarityFunction` requires.
 */
export type Similarity = 'cosine' | 'dot_product' | 'l2_norm' | 'max_inner_product';

export const SIMILARITIES: readonly Similarity[] = ['cosine', 'dot_product', 'l2_norm', 'max_inner_product'];

export type Vector = Float32Array | Int8Array | readonly number[];

export function dot(a: Vector, b: Vector): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

export function squaredL2(a: Vector, b: Vector): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i]! - b[i]!;
    sum += d * d;
  }
  return sum;
}

export function l1(a: Vector, b: Vector): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum;
}

export function magnitude(a: Vector): number {
  return Math.sqrt(dot(a, a));
}

export function cosine(a: Vector, b: Vector): number {
  const denominator = magnitude(a) * magnitude(b);
  return denominator === 0 ? 0 : dot(a, b) / denominator;
}

/**
 * The `_score` of a document vector for a query vector under `similarity`, as ES computes it:
 * cosine (1 + cos) / 2; dot_product (1 + dot) / 2 on float vectors (unit length by contract), and
 * 0.5 + dot / (dims · 2^15) on byte vectors; l2_norm 1 / (1 + l2²); max_inner_product
 * 1 / (1 − dot) below zero, dot + 1 from zero (Lucene's scaleMaxInnerProductScore).
 */
export function similarityScore(
  similarity: Similarity,
  query: Vector,
  doc: Vector,
  elementType: 'float' | 'byte' = 'float',
): number {
  switch (similarity) {
    case 'cosine':
      return Math.fround((1 + cosine(query, doc)) / 2);
    case 'dot_product': {
      const d = dot(query, doc);
      return Math.fround(elementType === 'byte' ? 0.5 + d / (query.length * 2 ** 15) : (1 + d) / 2);
    }
    case 'l2_norm':
      return Math.fround(1 / (1 + squaredL2(query, doc)));
    case 'max_inner_product': {
      const d = dot(query, doc);
      return Math.fround(d < 0 ? 1 / (1 - d) : d + 1);
    }
  }
}

/**
 * The similarity threshold of a knn search is in the similarity's own units, not the score's: ES
 * turns it into a minimum score (`VectorSimilarity.score` of the threshold). Cosine and dot_product
 * thresholds are the raw cosine / dot product, l2_norm's a distance.
 */
export function thresholdScore(
  similarity: Similarity,
  threshold: number,
  dims: number,
  elementType: 'float' | 'byte',
): number {
  switch (similarity) {
    case 'cosine':
      return Math.fround((1 + threshold) / 2);
    case 'dot_product':
      return Math.fround(elementType === 'byte' ? 0.5 + threshold / (dims * 2 ** 15) : (1 + threshold) / 2);
    case 'l2_norm':
      return Math.fround(1 / (1 + threshold * threshold));
    case 'max_inner_product':
      return Math.fround(threshold < 0 ? 1 / (1 - threshold) : threshold + 1);
  }
}

/** Encodes a vector as stored in `dense_vectors.vec`: float32 little-endian, or int8 for bytes. */
export function encodeVector(values: readonly number[], elementType: 'float' | 'byte'): Buffer {
  if (elementType === 'byte') return Buffer.from(Int8Array.from(values).buffer);
  const out = Buffer.allocUnsafe(values.length * 4);
  for (let i = 0; i < values.length; i++) out.writeFloatLE(values[i]!, i * 4);
  return out;
}

/** Decodes a stored vector (copies, so the result is aligned whatever the Buffer's offset). */
export function decodeVector(bytes: Uint8Array, elementType: 'float' | 'byte'): Float32Array {
  if (elementType === 'byte')
    return Float32Array.from(new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const out = new Float32Array(bytes.byteLength / 4);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/** ES's score from the graph's raw similarity (hnsw-graph.ts: dot product, cosine of normalised vectors, or −l2²). */
export function scoreOfSim(
  similarity: Similarity,
  sim: number,
  dims: number,
  elementType: 'float' | 'byte',
): number {
  switch (similarity) {
    case 'cosine':
      return Math.fround((1 + sim) / 2);
    case 'dot_product':
      return Math.fround(elementType === 'byte' ? 0.5 + sim / (dims * 2 ** 15) : (1 + sim) / 2);
    case 'l2_norm':
      return Math.fround(1 / (1 - sim));
    case 'max_inner_product':
      return Math.fround(sim < 0 ? 1 / (1 - sim) : sim + 1);
  }
}
