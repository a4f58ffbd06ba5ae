import { levenshteinSimilarity, unrecognizedMessage } from '../../src/http/check-params';
import { embedSql } from '../../src/query/compile/embed-sql';
import { SqlParams } from '../../src/query/compile/sql-params';

describe('unrecognized parameter messages (ES BaseRestHandler)', () => {
  it('scores similarity as Lucene LevenshteinDistance does', () => {
    expect(levenshteinSimilarity('refresh', 'refresh')).toBe(1);
    expect(levenshteinSimilarity('refesh', 'refresh')).toBeCloseTo(1 - 1 / 7, 6);
    expect(levenshteinSimilarity('abc', 'xyz')).toBe(0);
  });

  it('suggests one or several candidates above 0.5, best first', () => {
    expect(unrecognizedMessage('/i/_doc/1', ['versio'], ['version', 'version_type', 'routing'])).toBe(
      'request [/i/_doc/1] contains unrecognized parameter: [versio] -> did you mean [version]?',
    );
    expect(unrecognizedMessage('/i/_search', ['sourc'], ['_source', 'source', 'size'])).toBe(
      'request [/i/_search] contains unrecognized parameter: [sourc] -> did you mean any of [source, _source]?',
    );
  });
});

describe('embedSql', () => {
  it('renumbers a fragment after the statement parameters, reusing a placeholder used twice', () => {
    const params = new SqlParams();
    params.add('first');
    const text = embedSql(params, 'SELECT $1::int, $2::text, $1::int', [7, 'x']);
    expect(text).toBe('SELECT $2::int, $3::text, $2::int');
    expect(params.values).toEqual(['first', 7, 'x']);
  });
});
