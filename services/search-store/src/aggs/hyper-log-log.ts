/**
 * HyperLogLog++ as Elasticsearch's cardinality aggregation (HyperLogLogPlusPlus): linear counting
 * (a set of hashes, exact but for hash collisions) until it holds more than 2^p / 4 hashes, then 2^p
 * registers with HLL++'s small-range linear counting (Heule et al. 2013). Without the paper's
 * empirical bias tables (see cardinality()).
 */
const THRESHOLDS = [10, 20, 40, 80, 220, 400, 900, 1800, 3100, 6500, 11500, 20000, 50000, 120000, 350000];
export const MIN_PRECISION = 4;
export const MAX_PRECISION = 18;

/** ES HyperLogLogPlusPlus.precisionFromThreshold (default precision_threshold 3000 → 14). */
export function precisionFromThreshold(threshold: number): number {
  const entries = Math.ceil(threshold / 0.75);
  const bits = Math.max(1, Math.ceil(Math.log2(entries * 4 + 1)));
  return Math.min(MAX_PRECISION, Math.max(MIN_PRECISION, bits));
}

export class HyperLogLog {
  private set: Set<bigint> | null = new Set();
  private registers: Uint8Array | null = null;
  private readonly m: number;

  constructor(private readonly p: number) {
    this.m = 1 << p;
  }

  add(hash: bigint): void {
    if (this.set) {
      this.set.add(hash);
      if (this.set.size > this.m / 4) this.upgrade();
      return;
    }
    this.addToRegisters(hash);
  }

  private upgrade(): void {
    this.registers = new Uint8Array(this.m);
    for (const h of this.set as Set<bigint>) this.addToRegisters(h);
    this.set = null;
  }

  private addToRegisters(hash: bigint): void {
    const p = BigInt(this.p);
    const index = Number(hash >> (64n - p));
    const rest = (hash << p) & ((1n << 64n) - 1n);
    let rho = 1;
    for (let bit = 63n; bit >= p && ((rest >> bit) & 1n) === 0n; bit--) rho++;
    const regs = this.registers as Uint8Array;
    if (rho > (regs[index] as number)) regs[index] = rho;
  }

  cardinality(): number {
    if (this.set) return this.set.size;
    const regs = this.registers as Uint8Array;
    let sum = 0;
    let zeros = 0;
    for (const r of regs) {
      sum += 2 ** -r;
      if (r === 0) zeros++;
    }
    const m = this.m;
    const alpha = m === 16 ? 0.673 : m === 32 ? 0.697 : m === 64 ? 0.709 : 0.7213 / (1 + 1.079 / m);
    const raw = (alpha * m * m) / sum;
    if (zeros > 0) {
      const linear = m * Math.log(m / zeros);
      // HLL++ switches at its empirical thresholds and bias-corrects the raw estimate up to 5m with tables we
      // do not carry; without them the raw estimate is ~20% high near 1.2m, so linear counting (whose error
      // stays small while registers are empty) also covers the original HLL's small range, raw ≤ 2.5m.
      if (linear <= (THRESHOLDS[this.p - MIN_PRECISION] as number) || raw <= 2.5 * m)
        return Math.round(linear);
    }
    return Math.round(raw);
  }
}
