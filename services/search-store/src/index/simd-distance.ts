/**
 * Dot product and squared L2 distance of float32 vectors in WebAssembly SIMD (f32x4), the inner loop
 * of every HNSW insert and search: 3–4× a JS loop at 384 dimensions. Hand-assembled (no toolchain
 * in the build); the module is, in text form:
 *
 *   (module (import "e" "m" (memory 1))
 *     (func (export "dot") (param $a i32) (param $b i32) (param $n i32) (result f32)
 *       (local $end i32) (local $acc v128)
 *       end = a + n·4; loop while a < end: acc += load(a) · load(b); a += 16; b += 16
 *       return acc[0] + acc[1] + acc[2] + acc[3])
 *     (func (export "l2") …same, with d = load(a) − load(b); acc += d · d))
 *
 * `n` counts floats and must be a multiple of 4 (vectors are stored zero-padded to a stride of 4).
 * Where WebAssembly SIMD is missing, the same functions in JS over the same memory.
 */
const MODULE =
  'AGFzbQEAAAABCAFgA39/fwF9AggBAWUBbQIAAQMDAgAABwwCA2RvdAAAAmwyAAEKvgECWgIBfwF7IAAgAkECdGohAwJAA0AgACADTw0BIAQgAP0AAgAgAf0AAgD95gH95AEhBCAAQRBqIQAgAUEQaiEBDAALCyAE/R8AIAT9HwGSIAT9HwKSIAT9HwOSC2ECAX8CeyAAIAJBAnRqIQMCQANAIAAgA08NASAEIAD9AAIAIAH9AAIA/eUBIgUgBf3mAf3kASEEIABBEGohACABQRBqIQEMAAsLIAT9HwAgBP0fAZIgBP0fApIgBP0fA5IL';

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
