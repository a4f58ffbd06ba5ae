import {
  byteaLength,
  countIntArray,
  parseByteArray,
  parseInt4Array,
  PgArrayError,
  readIntArray,
  readPackedHex,
} from '../../../src/search/fast-match/parse-pg-int-array';

describe('parseInt4Array reads Postgres int4[] text into an Int32Array', () => {
  it.each([
    ['{}', []],
    ['{0}', [0]],
    ['{3,17,250000}', [3, 17, 250000]],
    ['{-2,2147483647,-2147483648}', [-2, 2147483647, -2147483648]],
  ])('parses %s', (text, expected) => {
    const out = parseInt4Array(text);
    expect(out).toBeInstanceOf(Int32Array);
    expect([...out]).toEqual(expected);
  });

  it.each(['', '3,4', '{3,,4}', '{NULL}', '{1, 2}', '{{1,2}}', '{-}'])('refuses %j', (text) => {
    expect(() => parseInt4Array(text)).toThrow(PgArrayError);
  });

  it('parses a 128-element block as Postgres prints it', () => {
    const values = Array.from({ length: 128 }, (_, i) => i * 37);
    expect([...parseInt4Array(`{${values.join(',')}}`)]).toEqual(values);
  });
});

describe('parseByteArray reads int2[] norm bytes into a Uint8Array', () => {
  it('keeps the full 0–255 range', () => {
    const out = parseByteArray('{0,1,127,128,255}');
    expect(out).toBeInstanceOf(Uint8Array);
    expect([...out]).toEqual([0, 1, 127, 128, 255]);
  });
});

describe('readIntArray writes blocks one after the other into one array', () => {
  it('adds the block base and returns where the next block starts', () => {
    const docs = new Float64Array(5);
    const at = readIntArray('{0,4,9}', docs, 0, 1000);
    expect(at).toBe(3);
    expect(readIntArray('{0,1}', docs, at, 2048)).toBe(5);
    expect([...docs]).toEqual([1000, 1004, 1009, 2048, 2049]);
    expect(countIntArray('{0,4,9}')).toBe(3);
    expect(countIntArray('{}')).toBe(0);
  });
});

describe('readPackedHex reads a packed posting column (bytea hex, migration 0030) into typed arrays', () => {
  it('reads each width big-endian, adds the base, and writes after what is there', () => {
    const docs = new Float64Array(5);
    expect(byteaLength('\\x000a0100')).toBe(4);
    expect(readPackedHex('\\x000a0100', 2, docs, 0, 1000)).toBe(2);
    expect(readPackedHex('\\x00FFfe', 3, docs, 2, 7)).toBe(5);
    expect([...docs]).toEqual([1010, 1256, 7, 262, 261]);
    const wide = new Float64Array(2);
    readPackedHex('\\x0000007f7fffffff', 2, wide);
    expect([...wide]).toEqual([127, 2147483647]);
    const three = new Int32Array(2);
    readPackedHex('\\x010203fffffe', 2, three);
    expect([...three]).toEqual([0x010203, 0xfffffe]);
  });

  it('refuses text that is not hex, or a length that is no width of the count', () => {
    const out = new Int32Array(4);
    expect(() => byteaLength('{1,2}')).toThrow(PgArrayError);
    expect(() => readPackedHex('\\x0102', 3, out)).toThrow(PgArrayError);
    expect(() => readPackedHex('\\x0102030405', 1, out)).toThrow(PgArrayError);
    expect(() => readPackedHex('\\x01zz', 1, out)).toThrow(PgArrayError);
    expect(() => readPackedHex('\\x010', 1, out)).toThrow(PgArrayError);
  });
});
