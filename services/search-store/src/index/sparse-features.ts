/**
 * sparse_vector weights as posting frequencies, as Lucene's FeatureField (which ES's sparse_vector
 * field uses): the weight's float32 bits shifted right by 15 (sign bit 0, 8 exponent bits, 8 of the
 * mantissa's 23 kept, truncated), so a weight is the posting's freq and each token's postings are
 * read like a term's. A weight reads back as intBitsToFloat(freq << 15).
 */
const view = new DataView(new ArrayBuffer(4));

export function encodeFeature(weight: number): number {
  view.setFloat32(0, weight);
  // A positive weight below the smallest kept value still matches (Lucene: freq ≥ 1).
  return Math.max(1, view.getUint32(0) >>> 15);
}

export function decodeFeature(freq: number): number {
  view.setUint32(0, (freq << 15) >>> 0);
  return view.getFloat32(0);
}

/** A document's sparse_vector object as (token, freq) pairs (the mapping has checked the weights). */
export function featuresOf(values: unknown[]): [string, number][] {
  const out = new Map<string, number>();
  for (const value of values) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
    for (const [token, weight] of Object.entries(value as Record<string, unknown>)) {
      if (typeof weight === 'number' && weight > 0 && Number.isFinite(weight))
        out.set(token, encodeFeature(weight));
    }
  }
  return [...out];
}

/**
 * SQL: `(doc_key, s)` of the documents holding any of the terms `termIds` (bigint[] SQL) of one
 * field, s = Σ query weight × decoded stored weight (float8 sum, then float4), × `boost`. The decode
 * is intBitsToFloat for the positive normal floats a freq << 15 can be: (1 + mantissa / 2^23) ·
 * 2^(exponent − 127).
 */
export function sparseScores(indexId: string, termIds: string, weights: string, boost: string): string {
  return `SELECT p.doc_key, (sum(w.weight * (1 + ((p.freq << 15) & 8388607)::float8 / 8388608)
                              * power(2::float8, ((p.freq << 15) >> 23) - 127)) * ${boost})::float4 AS s
          FROM unnest(${termIds}, ${weights}) AS w(term_id, weight)
          JOIN postings p ON p.index_id = ${indexId} AND p.term_id = w.term_id
          GROUP BY p.doc_key`;
}
