import { formatFloat } from './bm25';
import type {
  DecayShape,
  FieldValueModifier,
  FunctionBoostMode,
  FunctionScoreMode,
  MultiValueMode,
} from '../function-score-ast';

/**
 * The arithmetic of ES's FunctionScoreQuery (Lucene's nouns): function values in double, combined by
 * the score mode, then with the query's float score by the boost mode and cast to float, as
 * FunctionScoreQuery.FunctionFactorScorer and CombineFunction do.
 */
const f = Math.fround;

/** FieldValueFactorFunction.Modifier.apply. */
export function applyModifier(modifier: FieldValueModifier, n: number): number {
  switch (modifier) {
    case 'none':
      return n;
    case 'log':
      return Math.log10(n);
    case 'log1p':
      return Math.log10(n + 1);
    case 'log2p':
      return Math.log10(n + 2);
    case 'ln':
      return Math.log(n);
    case 'ln1p':
      return Math.log1p(n);
    case 'ln2p':
      return Math.log1p(n + 1);
    case 'square':
      return Math.pow(n, 2);
    case 'sqrt':
      return Math.sqrt(n);
    case 'reciprocal':
      return 1.0 / n;
  }
}

/** DecayFunction.processScale: the user's scale turned into the constant `evaluate` uses. */
export function decayScale(shape: DecayShape, scale: number, decay: number): number {
  switch (shape) {
    case 'gauss':
      return (0.5 * Math.pow(scale, 2.0)) / Math.log(decay);
    case 'exp':
      return Math.log(decay) / scale;
    case 'linear':
      return scale / (1.0 - decay);
  }
}

/** DecayFunction.evaluate at a distance (already reduced by the offset) with the processed scale. */
export function decayEvaluate(shape: DecayShape, value: number, scale: number): number {
  switch (shape) {
    case 'gauss':
      return Math.exp((0.5 * Math.pow(value, 2.0)) / scale);
    case 'exp':
      return Math.exp(scale * value);
    case 'linear':
      return Math.max(0.0, (scale - value) / scale);
  }
}

/** MultiValueMode.select over a document's sorted distances (ES decay functions' multi_value_mode). */
export function selectMultiValue(mode: MultiValueMode, sorted: number[]): number {
  const n = sorted.length;
  switch (mode) {
    case 'min':
      return sorted[0]!;
    case 'max':
      return sorted[n - 1]!;
    case 'sum':
      return sorted.reduce((a, b) => a + b, 0);
    case 'avg':
      return sorted.reduce((a, b) => a + b, 0) / n;
    case 'median':
      return n % 2 === 1 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
  }
}

/** One function's value for a document, with its weight (1 when absent) for `avg`. */
export interface FunctionValue {
  value: number;
  weight: number;
}

/** FunctionFactorScorer.computeScore over the functions whose filter the document matches. */
export function combineFunctions(mode: FunctionScoreMode, values: FunctionValue[]): number {
  let factor = 1;
  switch (mode) {
    case 'first':
      return values.length > 0 ? values[0]!.value : 1;
    case 'max': {
      let max = Number.NEGATIVE_INFINITY;
      for (const v of values) max = Math.max(v.value, max);
      return max !== Number.NEGATIVE_INFINITY ? max : factor;
    }
    case 'min': {
      let min = Number.POSITIVE_INFINITY;
      for (const v of values) min = Math.min(v.value, min);
      return min !== Number.POSITIVE_INFINITY ? min : factor;
    }
    case 'multiply':
      for (const v of values) factor *= v.value;
      return factor;
    case 'sum':
    case 'avg': {
      let total = 0;
      let weightSum = 0;
      for (const v of values) {
        total += v.value;
        weightSum += v.weight;
      }
      if (weightSum !== 0) factor = mode === 'avg' ? total / weightSum : total;
      return factor;
    }
  }
}

/** CombineFunction.combine: the query's score and the functions' factor (capped by max_boost) → float. */
export function combineWithQuery(
  mode: FunctionBoostMode,
  queryScore: number,
  factor: number,
  maxBoost: number,
): number {
  const capped = Math.min(factor, maxBoost);
  switch (mode) {
    case 'multiply':
      return f(queryScore * capped);
    case 'replace':
      return f(capped);
    case 'sum':
      return f(queryScore + capped);
    case 'avg':
      return f((capped + queryScore) / 2.0);
    case 'min':
      return f(Math.min(queryScore, capped));
    case 'max':
      return f(Math.max(queryScore, capped));
  }
}

/** Java's Float.toString for the messages ES prints (1.0, NaN, -2.5). */
export function javaFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  const shortest = formatFloat(f(x));
  return Number.isInteger(shortest) && Math.abs(shortest) < 1e7 ? shortest.toFixed(1) : String(shortest);
}

/** Java's Double.toString for the messages ES prints. */
export function javaDoubleText(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  return Number.isInteger(x) && Math.abs(x) < 1e7 ? x.toFixed(1) : String(x);
}

/** HPPC BitMixer.mix32 (MurmurHash3's fmix32), which ES's RandomScoreFunction salts and hashes with. */
export function mix32(k: number): number {
  let h = k | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

/** Lucene StringHelper.murmurhash3_x86_32 over bytes. */
export function murmurhash3x86(bytes: Uint8Array, seed: number): number {
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  let h1 = seed | 0;
  const roundedEnd = bytes.length & ~3;
  for (let i = 0; i < roundedEnd; i += 4) {
    let k1 = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    k1 = Math.imul(k1, c1);
    k1 = (k1 << 15) | (k1 >>> 17);
    k1 = Math.imul(k1, c2);
    h1 ^= k1;
    h1 = (h1 << 13) | (h1 >>> 19);
    h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0;
  }
  const tail = bytes.length & 3;
  if (tail > 0) {
    let k1 = 0;
    if (tail === 3) k1 = (bytes[roundedEnd + 2]! & 0xff) << 16;
    if (tail >= 2) k1 |= (bytes[roundedEnd + 1]! & 0xff) << 8;
    k1 |= bytes[roundedEnd]! & 0xff;
    k1 = Math.imul(k1, c1);
    k1 = (k1 << 15) | (k1 >>> 17);
    k1 = Math.imul(k1, c2);
    h1 ^= k1;
  }
  h1 ^= bytes.length;
  return mix32(h1);
}

/** RandomScoreFunction: the low 24 bits of the hash as a float in [0, 1). */
export function randomFromHash(hash: number): number {
  return f((hash & 0x00ffffff) / (1 << 24));
}
