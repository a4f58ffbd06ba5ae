/**
 * The 64-bit hashes Elasticsearch's cardinality aggregation feeds HyperLogLog++ (ES
 * CardinalityAggregator): MurmurHash3 x64_128's h1 (seed 0) of a keyword's UTF-8 bytes, and
 * BitMixer.mix64 of a long (or of a double's IEEE bits). BigInt arithmetic modulo 2^64.
 */
const M64 = (1n << 64n) - 1n;
const C1 = 0x87c37b91114253d5n;
const C2 = 0x4cf5ad432745937fn;

function rotl(x: bigint, r: bigint): bigint {
  return ((x << r) | (x >> (64n - r))) & M64;
}

function fmix(k: bigint): bigint {
  k ^= k >> 33n;
  k = (k * 0xff51afd7ed558ccdn) & M64;
  k ^= k >> 33n;
  k = (k * 0xc4ceb9fe1a85ec53n) & M64;
  k ^= k >> 33n;
  return k;
}

function readLong(bytes: Uint8Array, at: number, length = 8): bigint {
  let v = 0n;
  for (let i = length - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[at + i] as number);
  return v;
}

/** MurmurHash3 x64_128 h1 of `bytes` with seed 0 (Lucene/ES MurmurHash3.hash128(…).h1). */
export function murmur3H1(bytes: Uint8Array): bigint {
  let h1 = 0n;
  let h2 = 0n;
  const blocks = Math.floor(bytes.length / 16);
  for (let i = 0; i < blocks; i++) {
    let k1 = readLong(bytes, i * 16);
    let k2 = readLong(bytes, i * 16 + 8);
    k1 = (rotl((k1 * C1) & M64, 31n) * C2) & M64;
    h1 ^= k1;
    h1 = (((rotl(h1, 27n) + h2) & M64) * 5n + 0x52dce729n) & M64;
    k2 = (rotl((k2 * C2) & M64, 33n) * C1) & M64;
    h2 ^= k2;
    h2 = (((rotl(h2, 31n) + h1) & M64) * 5n + 0x38495ab5n) & M64;
  }
  const tail = blocks * 16;
  const rest = bytes.length - tail;
  if (rest > 8) {
    let k2 = readLong(bytes, tail + 8, rest - 8);
    k2 = (rotl((k2 * C2) & M64, 33n) * C1) & M64;
    h2 ^= k2;
  }
  if (rest > 0) {
    let k1 = readLong(bytes, tail, Math.min(rest, 8));
    k1 = (rotl((k1 * C1) & M64, 31n) * C2) & M64;
    h1 ^= k1;
  }
  const len = BigInt(bytes.length);
  h1 ^= len;
  h2 ^= len;
  h1 = (h1 + h2) & M64;
  h2 = (h2 + h1) & M64;
  h1 = fmix(h1);
  h2 = fmix(h2);
  return (h1 + h2) & M64;
}

/** com.carrotsearch.hppc.BitMixer.mix64 (ES hashes numeric values with it). */
export function mix64(z: bigint): bigint {
  z &= M64;
  z = ((z ^ (z >> 32n)) * 0x4cd6944c5cc20b6dn) & M64;
  z = ((z ^ (z >> 29n)) * 0xfc12c5b19d3259e9n) & M64;
  return z ^ (z >> 32n);
}

const view = new DataView(new ArrayBuffer(8));

/** The hash of a numeric value: longs as themselves, doubles by their bits (Double.doubleToLongBits). */
export function hashNumber(v: number, integer: boolean): bigint {
  if (integer) return mix64(BigInt.asUintN(64, BigInt(Math.trunc(v))));
  view.setFloat64(0, v === 0 ? 0 : v);
  return mix64(view.getBigUint64(0));
}

const encoder = new TextEncoder();

export function hashKeyword(v: string): bigint {
  return murmur3H1(encoder.encode(v));
}
