import fc from 'fast-check';
import { EsError } from '@acme/common';
import { locatorFor, rawNumberFor } from '../../src/http/locate-json-path';
import { mapDocument } from '../../src/mapping/map-document';
import type { FieldType } from '../../src/mapping/field-types';
import { isDecimalOutsideLong } from '../../src/mapping/raw-number';

const RUNS = 500;
const BOUNDS: Record<'byte' | 'short' | 'integer' | 'long', [bigint, bigint]> = {
  byte: [-128n, 127n],
  short: [-32768n, 32767n],
  integer: [-(2n ** 31n), 2n ** 31n - 1n],
  long: [-(2n ** 63n), 2n ** 63n - 1n],
};

/** True when the document `{"n":<literal>}` is accepted by a field of `type`. */
function accepts(type: FieldType, literal: string): boolean {
  const text = `{"n":${literal}}`;
  try {
    mapDocument(
      { properties: { n: { type } } },
      JSON.parse(text) as Record<string, unknown>,
      '1',
      locatorFor(text),
      {
        rawNumber: rawNumberFor(text),
      },
    );
    return true;
  } catch (error) {
    if (error instanceof EsError && error.type === 'document_parsing_exception') return false;
    throw error;
  }
}

/** Integers within ±2^k of a bound, where doubles are at their coarsest. */
const nearBound = (bound: bigint) =>
  fc.bigInt({ min: -(2n ** 12n), max: 2n ** 12n }).map((delta) => bound + delta);

describe('integer ranges on the literal as written (property)', () => {
  it.each(Object.entries(BOUNDS))(
    `%s accepts exactly the integer literals in its range (${RUNS} inputs each)`,
    (type, [min, max]) => {
      fc.assert(
        fc.property(
          fc.oneof(nearBound(min), nearBound(max), fc.bigInt({ min: min * 2n, max: max * 2n })),
          (n) => {
            expect(accepts(type as FieldType, n.toString())).toBe(n >= min && n <= max);
          },
        ),
        { numRuns: RUNS },
      );
    },
  );

  it(`compares decimal strings with the long range exactly, as BigDecimal does (${RUNS} inputs)`, () => {
    const limit = 2n ** 63n;
    fc.assert(
      fc.property(
        fc.oneof(nearBound(limit), nearBound(-limit), nearBound(-limit - 1n)),
        fc.integer({ min: 0, max: 9 }),
        (n, fractionDigit) => {
          const text = fractionDigit === 0 ? n.toString() : `${n.toString()}.${fractionDigit}`;
          // Outside when value ≥ 2^63 or value ≤ -2^63-1 (fractions count toward the comparison).
          const tenths = n * 10n + (n < 0n ? -BigInt(fractionDigit) : BigInt(fractionDigit));
          const expected = tenths >= limit * 10n || tenths <= (-limit - 1n) * 10n;
          expect(isDecimalOutsideLong(text)).toBe(expected);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
