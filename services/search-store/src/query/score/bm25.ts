import { LENGTH_TABLE } from '../../index/small-float';

/**
 * BM25 as Elasticsearch 8 scores it on one shard (LegacyBM25Similarity over Lucene's BM25Similarity):
 * float32 throughout, k1 1.2, b 0.75, weight = boost·(1+k1)·idf, and the per-field normInverse cache.
 * API-NOTES §A2.1. Every arithmetic step goes through Math.fround, as Java float arithmetic does.
 */
const f = Math.fround;
export const K1 = f(1.2);
export const B = f(0.75);
export const K1_PLUS_ONE = f(1 + K1);

export interface FieldStats {
  /** Documents with at least one term in the field. */
  docCount: number;
  /** Tokens in the field over all documents. */
  sumTotalTermFreq: number;
}

/** idf = (float) ln(1 + (N − n + 0.5) / (n + 0.5)), computed in double. */
export function idf(docFreq: number, docCount: number): number {
  return f(Math.log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5)));
}

/** Lucene's idfExplain over several terms (phrases): float idfs summed in double, then cast. */
export function idfSum(docFreqs: number[], docCount: number): number {
  return f(docFreqs.reduce((sum, df) => sum + idf(df, docCount), 0));
}

export function avgFieldLength(stats: FieldStats): number {
  return stats.docCount === 0 ? 1 : f(stats.sumTotalTermFreq / stats.docCount);
}

/** weight = boost × (1 + k1) × idf, in float32 (LegacyBM25Similarity passes boost·(1+k1) as the boost). */
export function termWeight(boost: number, idfValue: number): number {
  return f(f(f(boost) * K1_PLUS_ONE) * idfValue);
}

/** normInverse[byte] = 1 / (k1 × ((1 − b) + b × LENGTH_TABLE[byte] / avgdl)) for the 256 norm bytes. */
export function normInverseCache(avgdl: number): number[] {
  const oneMinusB = f(1 - B);
  return LENGTH_TABLE.map((len) => f(1 / f(K1 * f(oneMinusB + f(f(B * len) / avgdl)))));
}

/** score = weight − weight / (1 + freq × normInverse). */
export function termScore(weight: number, freq: number, normInverse: number): number {
  return f(weight - f(weight / f(1 + f(f(freq) * normInverse))));
}

/** Java's Float.toString for the values ES prints: the shortest decimal that round-trips to the float. */
export function formatFloat(value: number): number {
  for (let p = 1; p <= 9; p++) {
    const candidate = Number(value.toPrecision(p));
    if (f(candidate) === value) return candidate;
  }
  return value;
}
