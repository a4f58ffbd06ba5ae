import { EsError } from '@acme/common';
import { parseJsonWithLocations } from '../../src/query/parse/json-locations';
import { parseQuery } from '../../src/query/parse/parse-query';
import { parseSearchRequest } from '../../src/query/parse/search-request';

const parse = (json: string) => {
  const body = parseJsonWithLocations(json) as { query: unknown };
  return parseQuery(body.query, body as Record<string, unknown>, 'query');
};

function errorOf(fn: () => unknown): ReturnType<EsError['toBody']> {
  try {
    fn();
  } catch (error) {
    if (error instanceof EsError) return error.toBody();
    throw error;
  }
  throw new Error('expected an EsError');
}

describe('query DSL parser', () => {
  it('parses match in short and long form', () => {
    expect(parse('{"query":{"match":{"title":"quick fox"}}}')).toEqual({
      kind: 'match',
      field: 'title',
      query: 'quick fox',
      operator: 'or',
      zeroTermsQuery: 'none',
      boost: 1,
    });
    expect(
      parse(
        '{"query":{"match":{"title":{"query":"a b","operator":"AND","minimum_should_match":"75%","boost":2}}}}',
      ),
    ).toMatchObject({
      operator: 'and',
      minimumShouldMatch: '75%',
      boost: 2,
    });
  });

  it('parses bool with object and array clauses', () => {
    const q = parse(
      '{"query":{"bool":{"must":{"term":{"a":1}},"should":[{"exists":{"field":"b"}}],"minimum_should_match":1}}}',
    );
    expect(q).toEqual({
      kind: 'bool',
      must: [{ kind: 'term', field: 'a', value: 1, caseInsensitive: false, boost: 1 }],
      should: [{ kind: 'exists', field: 'b', boost: 1 }],
      filter: [],
      mustNot: [],
      minimumShouldMatch: '1',
      boost: 1,
    });
  });

  it('rejects an unknown query with parsing_exception and its position', () => {
    expect(errorOf(() => parse('{"query":{\n  "fuzzy_wuzzy":{"a":1}}}'))).toEqual({
      error: {
        root_cause: [{ type: 'parsing_exception', reason: 'unknown query [fuzzy_wuzzy]', line: 2, col: 17 }],
        type: 'parsing_exception',
        reason: 'unknown query [fuzzy_wuzzy]',
        line: 2,
        col: 17,
        caused_by: { type: 'named_object_not_found_exception', reason: '[2:17] unknown field [fuzzy_wuzzy]' },
      },
      status: 400,
    });
  });

  it('names Elasticsearch queries it does not implement instead of calling them unknown', () => {
    expect(errorOf(() => parse('{"query":{"intervals":{"a":{}}}}')).error).toMatchObject({
      type: 'parsing_exception',
      reason: '[intervals] query is not supported by search-store',
    });
  });

  it('suggests close query names as Elasticsearch does', () => {
    expect(errorOf(() => parse('{"query":{"mach":{"a":1}}}')).error.reason).toBe(
      'unknown query [mach] did you mean [match]?',
    );
    expect(errorOf(() => parse('{"query":{"terms_se":{}}}')).error.reason).toBe(
      'unknown query [terms_se] did you mean any of [terms_set, terms]?',
    );
  });

  it('rejects match on two fields as Elasticsearch does', () => {
    expect(errorOf(() => parse('{"query":{"match":{"a":"x","b":"y"}}}')).error.reason).toBe(
      "[match] query doesn't support multiple fields, found [a] and [b]",
    );
  });

  it('rejects an unknown parameter of a known query', () => {
    expect(errorOf(() => parse('{"query":{"term":{"a":{"value":1,"bogus":2}}}}')).error.reason).toBe(
      '[term] query does not support [bogus]',
    );
  });

  it('reads match fuzziness as ES does: AUTO kept, 0 the plain match, bad values refused', () => {
    expect(
      parse('{"query":{"match":{"a":{"query":"x","fuzziness":"auto","prefix_length":1}}}}'),
    ).toMatchObject({
      kind: 'match',
      fuzzy: { fuzziness: 'AUTO', prefixLength: 1, maxExpansions: 50, transpositions: true },
    });
    expect(parse('{"query":{"match":{"a":{"query":"x","fuzziness":0}}}}')).not.toHaveProperty('fuzzy');
    expect(errorOf(() => parse('{"query":{"match":{"a":{"query":"x","fuzziness":3}}}}')).error).toMatchObject(
      {
        type: 'illegal_argument_exception',
        reason: 'Valid edit distances are [0, 1, 2] but was [3]',
      },
    );
    expect(
      errorOf(() => parse('{"query":{"multi_match":{"query":"x","type":"phrase","fuzziness":1}}}')).error,
    ).toMatchObject({ type: 'parsing_exception', reason: 'Fuzziness not allowed for type [phrase]' });
  });

  it('rejects two queries in one object', () => {
    expect(errorOf(() => parse('{"query":{"match_all":{},"term":{"a":1}}}')).error.reason).toBe(
      '[match_all] malformed query, expected [END_OBJECT] but found [FIELD_NAME]',
    );
  });

  it('reports malformed JSON as x_content_parse_exception and truncated JSON as x_content_e_o_f_exception', () => {
    expect(errorOf(() => parseJsonWithLocations('{"query": x}')).error.type).toBe(
      'x_content_parse_exception',
    );
    expect(errorOf(() => parseJsonWithLocations('{"query": {"match_all": {}')).error).toMatchObject({
      type: 'x_content_e_o_f_exception',
      reason: expect.stringMatching(/^\[1:27\] Unexpected end-of-input/),
    });
  });

  it('rejects an unknown top-level search key', () => {
    expect(errorOf(() => parseSearchRequest(parseJsonWithLocations('{"qeury":{}}'), {})).error).toMatchObject(
      {
        type: 'parsing_exception',
        reason: 'Unknown key for a START_OBJECT in [qeury].',
      },
    );
  });

  it('rejects a negative size with action_request_validation_exception', () => {
    expect(errorOf(() => parseSearchRequest({ size: -1 }, {})).error.reason).toBe(
      'Validation Failed: 1: [size] parameter cannot be negative, found [-1];',
    );
  });

  it('parses sort in every form', () => {
    const r = parseSearchRequest(
      { sort: ['_score', { n: 'desc' }, { d: { order: 'asc', missing: '_first' } }, 'k', { _doc: {} }] },
      {},
    );
    expect(r.sort).toEqual([
      { kind: 'score', order: 'desc' },
      {
        kind: 'field',
        field: 'n',
        order: 'desc',
        missing: '_last',
        unmappedType: undefined,
        mode: undefined,
      },
      {
        kind: 'field',
        field: 'd',
        order: 'asc',
        missing: '_first',
        unmappedType: undefined,
        mode: undefined,
      },
      { kind: 'field', field: 'k', order: 'asc', missing: '_last', unmappedType: undefined, mode: undefined },
      { kind: 'doc', order: 'asc' },
    ]);
  });
});

describe('hostile queries', () => {
  it('accepts 30 nested queries and refuses the 31st as ES 8 does (indices.query.bool.max_nested_depth)', () => {
    const nest = (bools: number, leaf: unknown = { match_all: {} }) => {
      let query = leaf;
      for (let i = 0; i < bools; i++) query = { bool: { must: [query] } };
      return query;
    };
    expect(parseQuery(nest(29)).kind).toBe('bool');
    // Under bools (ObjectParser in ES 8), x_content_parse_exception per bool down to the refusal.
    const { error } = errorOf(() => parse(JSON.stringify({ query: nest(30) })));
    const tooDeep = {
      type: 'illegal_argument_exception',
      reason:
        'The nested depth of the query exceeds the maximum nested depth for queries set in [indices.query.bool.max_nested_depth]',
    };
    expect(error).toMatchObject({
      root_cause: [
        {
          type: 'x_content_parse_exception',
          reason: expect.stringMatching(/^\[1:\d+\] \[bool\] failed to parse field \[must\]$/),
        },
      ],
      type: 'x_content_parse_exception',
    });
    let cause = error as { caused_by?: unknown; type?: string };
    let wraps = 0;
    while (cause.type === 'x_content_parse_exception') {
      cause = cause.caused_by as typeof cause;
      wraps += 1;
    }
    expect(wraps).toBe(30);
    expect(cause).toEqual(tooDeep);
    // Without a bool above it (constant_score, dis_max parse by hand in ES): the refusal itself.
    let plain: unknown = { match_all: {} };
    for (let i = 0; i < 30; i++) plain = { constant_score: { filter: plain } };
    expect(errorOf(() => parseQuery(plain)).error).toMatchObject(tooDeep);
    // The counter is back to zero for the next request.
    expect(parseQuery(nest(29)).kind).toBe('bool');
  });

  it('refuses a 10,000-level nested JSON body as Jackson does instead of overflowing the stack', () => {
    const text = '{"query":' + '{"bool":{"must":['.repeat(10000) + ']}}'.repeat(10000) + '}';
    expect(errorOf(() => parse(text)).error).toMatchObject({
      type: 'x_content_parse_exception',
      reason: expect.stringContaining('Document nesting depth (1001) exceeds the maximum allowed (1000'),
    });
  });
});
