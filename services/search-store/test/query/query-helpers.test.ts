import { resolveDateMath } from '../../src/query/parse/date-math';
import { phraseFrequency } from '../../src/query/compile/phrase-frequency';
import { parseDateValue } from '../../src/index/date-value';

const NOW = Date.UTC(2024, 4, 15, 13, 45, 30, 123);

describe('date math', () => {
  it.each<[string, boolean, number]>([
    ['now', false, NOW],
    ['now-1d', false, NOW - 86_400_000],
    ['now/d', false, Date.UTC(2024, 4, 15)],
    ['now/d', true, Date.UTC(2024, 4, 16) - 1],
    ['now-1d/d', false, Date.UTC(2024, 4, 14)],
    ['now+1M/M', false, Date.UTC(2024, 5, 1)],
    ['now/y', true, Date.UTC(2025, 0, 1) - 1],
    ['now/w', false, Date.UTC(2024, 4, 13)],
    ['2024-01-31||+1M', false, Date.UTC(2024, 2, 2)],
    ['2024-01-10||/M', false, Date.UTC(2024, 0, 1)],
    ['2024-01-10T10:00:00Z', false, Date.UTC(2024, 0, 10, 10)],
  ])('%s (round up: %s)', (expression, roundUp, expected) => {
    expect(resolveDateMath(expression, { now: NOW, roundUp })).toBe(expected);
  });

  it('reads custom formats and time zones', () => {
    expect(resolveDateMath('15/05/2024', { now: NOW, roundUp: false, format: 'dd/MM/yyyy' })).toBe(
      Date.UTC(2024, 4, 15),
    );
    expect(resolveDateMath('2024-05-15', { now: NOW, roundUp: false, timeZone: '+02:00' })).toBe(
      Date.UTC(2024, 4, 14, 22),
    );
  });

  it('parses dates in the default and epoch formats, and rejects impossible dates', () => {
    expect(parseDateValue('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
    expect(parseDateValue('1700000000000')).toBe(1_700_000_000_000);
    expect(parseDateValue(1_700_000_000_000)).toBe(1_700_000_000_000);
    expect(parseDateValue('2023-02-29')).toBeUndefined();
    expect(parseDateValue('2024-01-01 10:00:00', 'yyyy-MM-dd HH:mm:ss')).toBe(Date.UTC(2024, 0, 1, 10));
  });
});

describe('phrase frequency', () => {
  it('counts exact phrases', () => {
    expect(
      phraseFrequency(
        [
          [0, 5],
          [1, 9],
        ],
        [0, 1],
        0,
      ),
    ).toBe(1);
    expect(
      phraseFrequency(
        [
          [0, 1, 2],
          [1, 2, 3],
        ],
        [0, 1],
        0,
      ),
    ).toBe(3);
    expect(phraseFrequency([[3], [1]], [0, 1], 0)).toBe(0);
  });

  it('gives sloppy matches 1/(1+distance)', () => {
    expect(phraseFrequency([[0], [2]], [0, 1], 1)).toBe(Math.fround(0.5));
    expect(phraseFrequency([[0], [3]], [0, 1], 1)).toBe(0);
    expect(phraseFrequency([[0], [1]], [0, 1], 2)).toBe(1);
  });
});
