import {
  parseJsonWithBigIntegers,
  parseUnsignedLongValue,
  unsignedLongBoundKey,
  unsignedLongKey,
  unsignedLongTermKey,
  UnsignedLongQueryError,
} from '../../src/mapping/unsigned-long';

const key = (n: bigint | number) => unsignedLongKey(BigInt(n));
const MAX = 18446744073709551615n;

describe('unsigned_long values (ES UnsignedLongFieldMapper)', () => {
  it.each([
    [0, undefined, 0n],
    [42, undefined, 42n],
    [1.0, undefined, 1n],
    [Number('18446744073709551615'), '18446744073709551615', MAX],
    [9223372036854775808, '9223372036854775808', 2n ** 63n],
    ['18446744073709551615', undefined, MAX],
    ['+7', undefined, 7n],
    ['1e3', undefined, 1000n],
    ['12.000', undefined, 12n],
  ])('accepts %j (text %s) as %s', (value, raw, expected) => {
    expect(parseUnsignedLongValue(value, raw)).toEqual({ ok: true, value: expected });
  });

  it.each([
    [-1, undefined, 'Value [-1] is out of range for unsigned long.'],
    [
      18446744073709551616,
      '18446744073709551616',
      'Value [18446744073709551616] is out of range for unsigned long',
    ],
    [
      Number('-9223372036854775809'),
      '-9223372036854775809',
      'Value [-9223372036854775809] is out of range for unsigned long',
    ],
    [1.5, undefined, 'Value "1.5" has a decimal part'],
    ['1.5', undefined, 'Value "1.5" has a decimal part'],
    ['-1', undefined, 'Value [-1] is out of range for unsigned long'],
    ['18446744073709551616', undefined, 'Value [18446744073709551616] is out of range for unsigned long'],
    ['foo', undefined, 'For input string: "foo"'],
    [true, undefined, 'For input string: "true"'],
  ])('refuses %j (text %s): %s', (value, raw, reason) => {
    expect(parseUnsignedLongValue(value, raw)).toEqual({ ok: false, reason });
  });

  it('keys sort in numeric order', () => {
    const keys = [MAX, 0n, 2n ** 63n, 10n, 9n].map((n) => unsignedLongKey(n)).sort();
    expect(keys.map((k) => BigInt(k))).toEqual([0n, 9n, 10n, 2n ** 63n, MAX]);
  });

  it('matches terms as ES parseTerm: out of range and fractions match nothing, junk fails', () => {
    expect(unsignedLongTermKey('18446744073709551615')).toBe(key(MAX));
    expect(unsignedLongTermKey(5)).toBe(key(5));
    expect(unsignedLongTermKey('18446744073709551616')).toBeUndefined();
    expect(unsignedLongTermKey(-1)).toBeUndefined();
    expect(unsignedLongTermKey(1.5)).toBeUndefined();
    expect(() => unsignedLongTermKey('foo')).toThrow(UnsignedLongQueryError);
  });

  it('rounds range bounds inwards and clamps them as ES parse(Lower|Upper)RangeTerm', () => {
    expect(unsignedLongBoundKey(0.5, 'lower', true)).toBe(key(1));
    expect(unsignedLongBoundKey(-5, 'lower', true)).toBe(key(0));
    expect(unsignedLongBoundKey(3, 'lower', false)).toBe(key(4));
    expect(unsignedLongBoundKey('18446744073709551615', 'lower', false)).toBeUndefined();
    expect(unsignedLongBoundKey('18446744073709551614.5', 'upper', true)).toBe(key(MAX - 1n));
    expect(unsignedLongBoundKey('18446744073709551614.5', 'upper', false)).toBe(key(MAX - 1n));
    expect(unsignedLongBoundKey(10, 'upper', false)).toBe(key(9));
    expect(unsignedLongBoundKey('1e30', 'upper', true)).toBe(key(MAX));
    expect(unsignedLongBoundKey(-1, 'upper', true)).toBeUndefined();
    expect(unsignedLongBoundKey(0, 'upper', false)).toBeUndefined();
    expect(() => unsignedLongBoundKey('x1', 'upper', true)).toThrow(
      'Character x is neither a decimal digit number, decimal point, nor "e" notation exponential mark.',
    );
  });

  it('parses JSON keeping long integer literals exact, strings untouched', () => {
    expect(
      parseJsonWithBigIntegers(
        '{"a":18446744073709551615,"b":"18446744073709551615","c":[1,-12345678901234567],"d":1.5e300,"e":"x\\"1234567890123456"}',
      ),
    ).toEqual({
      a: MAX,
      b: '18446744073709551615',
      c: [1, -12345678901234567n],
      d: 1.5e300,
      e: 'x"1234567890123456',
    });
  });
});
