import {
  combineFunctions,
  combineWithQuery,
  javaFloat,
  mix32,
  murmurhash3x86,
} from '../../src/query/score/function-score';
import { javaStringHash } from '../../src/query/parse/parse-function-score';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('random_score hashing (Lucene StringHelper.murmurhash3_x86_32, HPPC BitMixer.mix32)', () => {
  it('matches MurmurHash3 x86_32 reference vectors', () => {
    expect(murmurhash3x86(bytes(''), 0) >>> 0).toBe(0);
    expect(murmurhash3x86(bytes(''), 1) >>> 0).toBe(0x514e28b7);
    expect(murmurhash3x86(bytes(''), 0xffffffff) >>> 0).toBe(0x81f16f39);
    expect(murmurhash3x86(new Uint8Array(4), 0) >>> 0).toBe(0x2362f9de);
    expect(murmurhash3x86(bytes('aaaa'), 0x9747b28c) >>> 0).toBe(0x5a97808a);
    expect(murmurhash3x86(bytes('abc'), 0) >>> 0).toBe(0xb3dd93fa);
    expect(murmurhash3x86(bytes('Hello, world!'), 0x9747b28c) >>> 0).toBe(0x24884cba);
  });

  it('mixes like fmix32 and hashes strings like Java', () => {
    expect(mix32(0)).toBe(0);
    expect(mix32(1) >>> 0).toBe(0x514e28b7);
    expect(javaStringHash('hello')).toBe(99162322);
    expect(javaStringHash('polygenelubricants')).toBe(-2147483648);
  });
});

describe('FunctionFactorScorer and CombineFunction arithmetic', () => {
  it('combines function values by score mode, 1 when none applies', () => {
    const values = [
      { value: 2, weight: 2 },
      { value: 8, weight: 4 },
    ];
    expect(combineFunctions('multiply', values)).toBe(16);
    expect(combineFunctions('sum', values)).toBe(10);
    expect(combineFunctions('avg', values)).toBe(10 / 6);
    expect(combineFunctions('first', values)).toBe(2);
    expect(combineFunctions('max', values)).toBe(8);
    expect(combineFunctions('min', values)).toBe(2);
    for (const mode of ['multiply', 'sum', 'avg', 'first', 'max', 'min'] as const)
      expect(combineFunctions(mode, [])).toBe(1);
  });

  it('casts the combination to float after capping by max_boost', () => {
    expect(combineWithQuery('multiply', 0.1, 3, Infinity)).toBe(Math.fround(0.1 * 3));
    expect(combineWithQuery('sum', 1, 10, 2)).toBe(3);
    expect(combineWithQuery('avg', 1, 2, Infinity)).toBe(1.5);
    expect(javaFloat(-1)).toBe('-1.0');
    expect(javaFloat(Number.NaN)).toBe('NaN');
  });
});
