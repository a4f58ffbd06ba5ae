/**
 * Dot product and squared L2 distance of float32 vectors in WebAssembly SIMD (f32x4), the inner loop
 * of every HNSW insert and search: 3–4× a JS loop at 384 dimensions. Hand-assembled (no toolchain
 * in the build); the module is, in text form:
 *
 *   (module (import "e" "m" (memory 1))
 *     (func (export "dot") (param $a i32) (param $b i32) (param $n i32) (result f32)
 *       (local $end i32) (local $acc0 $acc1 $acc2 $acc3 v128)
 *       end = a + n·4; loop while a < end:
 *         acc0 += load(a) · load(b); acc1 += load(a + 16) · load(b + 16); … acc3 at + 48
 *         a += 64; b += 64
 *       acc0 = (acc0 + acc1) + (acc2 + acc3); return acc0[0] + acc0[1] + acc0[2] + acc0[3])
 *     (func (export "l2") …same, with d = load(a) − load(b); acc += d · d))
 *
 * Four accumulators, so the adds do not wait on each other (one accumulator was ~15% slower at 384
 * dims). `n` counts floats and must be a multiple of 16 (vectors are stored zero-padded to a stride
 * of 16, which leaves dot products and distances unchanged).
 * Where WebAssembly SIMD is missing, the same functions in JS over the same memory.
 */
const MODULE =
  'AGFzbQEAAAABCAFgA39/fwF9AggBAWUBbQIAAQMDAgAABwwCA2RvdAAAAmwyAAEKgwMCsQECAX8FeyAAIAJBAnRqIQMCQANAIAAgA08NASAEIAD9AAQAIAH9AAQA/eYB/eQBIQQgBSAA/QAEECAB/QAEEP3mAf3kASEFIAYgAP0ABCAgAf0ABCD95gH95AEhBiAHIAD9AAQwIAH9AAQw/eYB/eQBIQcgAEHAAGohACABQcAAaiEBDAALCyAEIAX95AEgBiAH/eQB/eQBIQQgBP0fACAE/R8BkiAE/R8CkiAE/R8DkgvNAQIBfwV7IAAgAkECdGohAwJAA0AgACADTw0BIAQgAP0ABAAgAf0ABAD95QEiCCAI/eYB/eQBIQQgBSAA/QAEECAB/QAEEP3lASIIIAj95gH95AEhBSAGIAD9AAQgIAH9AAQg/eUBIgggCP3mAf3kASEGIAcgAP0ABDAgAf0ABDD95QEiCCAI/eYB/eQBIQcgAEHAAGohACABQcAAaiEBDAALCyAEIAX95AEgBiAH/eQB/eQBIQQgBP0fACAE/R8BkiAE/R8CkiAE/R8Dkgs=';

/**
 * Σ a[i]·b[i] over int8 codes (the quantised vectors of hnsw-graph.ts), in SIMD: per 16 bytes, each
 * half sign-extended to i16x8 and multiplied pairwise into i32x4 (i32x4.dot_i16x8_s), summed into
 * one i32x4 accumulator. `n` counts bytes and must be a multiple of 16. In text form:
 *
 *   (module (import "e" "m" (memory 1))
 *     (func (export "dot8") (param $a i32) (param $b i32) (param $n i32) (result i32)
 *       (local $end i32) (local $acc $va $vb v128)
 *       end = a + n; loop while a < end:
 *         va = load(a); vb = load(b)
 *         acc += dot(extend_low(va), extend_low(vb)) + dot(extend_high(va), extend_high(vb))
 *         a += 16; b += 16
 *       return acc[0] + acc[1] + acc[2] + acc[3]))
 *
 * A 384-dim code is 384 bytes against the float vector's 1,536: the graph's walks, which read
 * thousands of vectors at random per insert, are bound by memory, not arithmetic.
 */
const MODULE8 =
  'AGFzbQEAAAABCAFgA39/fwF/AggBAWUBbQIAAQMCAQAHCAEEZG90OAAACncBdQIBfwN7IAAgAmohAwJAA0AgACADTw0BIAD9AAAAIQUgAf0AAAAhBiAEIAX9hwEgBv2HAf26Af2uASAF/YgBIAb9iAH9ugH9rgEhBCAAQRBqIQAgAUEQaiEBDAALCyAE/RsAIAT9GwFqIAT9GwJqIAT9GwNqCw==';

/** The few WebAssembly APIs used here (the project's TS libs do not declare WebAssembly). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Memory: new (descriptor: { initial: number }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
  validate(bytes: Uint8Array): boolean;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

export interface DistanceKernel {
  readonly memory: WasmMemory;
  /** Σ a[i]·b[i] over n floats at byte offsets a and b. */
  dot(a: number, b: number, n: number): number;
  /** Σ (a[i] − b[i])² over n floats at byte offsets a and b. */
  l2(a: number, b: number, n: number): number;
}

const bytes = Buffer.from(MODULE, 'base64');
const compiled = wasm.validate(bytes) ? new wasm.Module(bytes) : undefined;

/** A kernel over its own memory of `pages` × 64 KiB (the caller grows it). */
export function createKernel(pages: number): DistanceKernel {
  const memory = new wasm.Memory({ initial: pages });
  if (compiled) {
    const exports = new wasm.Instance(compiled, { e: { m: memory } }).exports as {
      dot(a: number, b: number, n: number): number;
      l2(a: number, b: number, n: number): number;
    };
    return { memory, dot: exports.dot, l2: exports.l2 };
  }
  return {
    memory,
    dot(a, b, n) {
      const f = new Float32Array(memory.buffer);
      let sum = 0;
      for (let i = 0; i < n; i++) sum += f[a / 4 + i]! * f[b / 4 + i]!;
      return sum;
    },
    l2(a, b, n) {
      const f = new Float32Array(memory.buffer);
      let sum = 0;
      for (let i = 0; i < n; i++) {
        const d = f[a / 4 + i]! - f[b / 4 + i]!;
        sum += d * d;
      }
      return sum;
    },
  };
}

export interface CodeKernel {
  readonly memory: WasmMemory;
  /** Σ a[i]·b[i] over n int8 codes at byte offsets a and b. */
  dot8(a: number, b: number, n: number): number;
}

const bytes8 = Buffer.from(MODULE8, 'base64');
const compiled8 = wasm.validate(bytes8) ? new wasm.Module(bytes8) : undefined;

/** An int8 kernel over its own memory of `pages` × 64 KiB (the caller grows it). */
export function createCodeKernel(pages: number): CodeKernel {
  const memory = new wasm.Memory({ initial: pages });
  if (compiled8) {
    const exports = new wasm.Instance(compiled8, { e: { m: memory } }).exports as {
      dot8(a: number, b: number, n: number): number;
    };
    return { memory, dot8: exports.dot8 };
  }
  return {
    memory,
    dot8(a, b, n) {
      const c = new Int8Array(memory.buffer);
      let sum = 0;
      for (let i = 0; i < n; i++) sum += c[a + i]! * c[b + i]!;
      return sum;
    },
  };
}
