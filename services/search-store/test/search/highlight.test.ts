import { BUILT_IN_ANALYZERS } from '../../src/analysis/analyzer';
import { highlightValues } from '../../src/search/hits/highlight';

const standard = BUILT_IN_ANALYZERS.standard!;
const options = { preTag: '<em>', postTag: '</em>', fragmentSize: 30, numberOfFragments: 5 };

describe('plain highlighter', () => {
  it('wraps each matching token, keeping the original case and text between tokens', () => {
    expect(
      highlightValues(['The Quick, quick fox!'], standard, new Set(['quick']), {
        ...options,
        numberOfFragments: 0,
      }),
    ).toEqual(['The <em>Quick</em>, <em>quick</em> fox!']);
  });

  it('cuts long text into fragments at token boundaries and keeps only fragments with a match', () => {
    const text = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho';
    const fragments = highlightValues([text], standard, new Set(['beta', 'omicron']), options);
    expect(fragments).toEqual([
      'alpha <em>beta</em> gamma delta epsilon',
      'lambda mu nu xi <em>omicron</em> pi rho',
    ]);
  });

  it('highlights each value of a multi-valued field separately and caps the number of fragments', () => {
    expect(
      highlightValues(['a fox', 'no match', 'fox b'], standard, new Set(['fox']), {
        ...options,
        numberOfFragments: 1,
      }),
    ).toEqual(['a <em>fox</em>']);
  });
});
