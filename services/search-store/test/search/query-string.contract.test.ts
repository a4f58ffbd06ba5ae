import {
  startSearchFixture,
  expectedTermScore,
  formatFloat,
  sumScores,
  type SearchFixture,
} from './search-fixture';

/**
 * query_string, simple_query_string, match_bool_prefix and multi_match bool_prefix/cross_fields
 * through the official client and raw HTTP, on the articles fixture (search-fixture.ts). Each is
 * checked against the query kinds it compiles to, whose BM25 equals Elasticsearch's float32 scores
 * (search-scoring.contract.test.ts), and against the formula where it adds its own statistics.
 */
let fx: SearchFixture;
beforeAll(async () => (fx = await startSearchFixture()));
afterAll(() => fx.stop());

const BODY = { docCount: 4, sumTtf: 29 };
const TITLE = { docCount: 3, sumTtf: 9 };

async function scores(query: Record<string, unknown>): Promise<Record<string, number | null | undefined>> {
  const res = await fx.es.search({ index: fx.articles.name, query });
  return Object.fromEntries(res.hits.hits.map((h) => [h._id, h._score]));
}

/** The parts of a raw answer the tests read: a search body or an ES error body. */
interface RawBody {
  status: number;
  hits: { hits: { _id: string }[] };
  error: {
    type: string;
    reason: string;
    root_cause: Record<string, unknown>[];
    failed_shards: { reason: { caused_by: { type: string; reason: string; caused_by: { type: string } } } }[];
  };
}

async function raw(path: string, body?: unknown): Promise<{ status: number; json: RawBody }> {
  const res = await fetch(`${fx.store.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as RawBody };
}

describe('query_string', () => {
  it('scores field:value as the term query it is (1.135697)', async () => {
    expect(await scores({ query_string: { query: 'title:fox' } })).toEqual({ '1': 1.135697 });
  });

  it('scores bare terms on default_field as match, and AND as operator and', async () => {
    expect(await scores({ query_string: { query: 'quick fox', default_field: 'body' } })).toEqual(
      await scores({ match: { body: 'quick fox' } }),
    );
    expect(await scores({ query_string: { query: 'quick AND fox', default_field: 'body' } })).toEqual(
      await scores({ match: { body: { query: 'quick fox', operator: 'and' } } }),
    );
    expect(
      await scores({ query_string: { query: 'quick fox', default_field: 'body', default_operator: 'AND' } }),
    ).toEqual({
      '1': sumScores(
        expectedTermScore({ ...BODY, df: 2, freq: 1, dl: 9 }),
        expectedTermScore({ ...BODY, df: 2, freq: 1, dl: 9 }),
      ),
    });
  });

  it('applies NOT, -, +, ||, && and grouping', async () => {
    expect(Object.keys(await scores({ query_string: { query: 'body:fox -title:fox' } }))).toEqual(['4']);
    expect(Object.keys(await scores({ query_string: { query: 'body:fox AND NOT title:fox' } }))).toEqual([
      '4',
    ]);
    expect(Object.keys(await scores({ query_string: { query: '+body:quick !title:quick' } }))).toEqual(['3']);
    expect(
      Object.keys(await scores({ query_string: { query: '(body:hill || body:sleeps) && tags:farm' } })),
    ).toEqual(['3']);
    expect(Object.keys(await scores({ query_string: { query: 'title:(lazy OR barn)' } })).sort()).toEqual([
      '2',
      '3',
    ]);
  });

  it('boosts a term as a boosted term query', async () => {
    expect(await scores({ query_string: { query: 'title:fox^2' } })).toEqual({
      '1': formatFloat(expectedTermScore({ ...TITLE, df: 1, freq: 1, dl: 2, boost: 2 })),
    });
  });

  it('scores phrases (with slop) as match_phrase', async () => {
    expect(await scores({ query_string: { query: 'body:"quick brown"' } })).toEqual(
      await scores({ match_phrase: { body: 'quick brown' } }),
    );
    expect(await scores({ query_string: { query: 'body:"quick fox"' } })).toEqual({});
    expect(await scores({ query_string: { query: 'body:"quick fox"~1' } })).toEqual(
      await scores({ match_phrase: { body: { query: 'quick fox', slop: 1 } } }),
    );
    expect(await scores({ query_string: { query: 'body:"quick fox"', phrase_slop: 1 } })).toEqual(
      await scores({ match_phrase: { body: { query: 'quick fox', slop: 1 } } }),
    );
  });

  it('answers prefixes and wildcards with a constant score, normalised for text fields', async () => {
    expect(await scores({ query_string: { query: 'title:QU*' } })).toEqual({ '1': 1 });
    expect(await scores({ query_string: { query: 'title:qu?ck' } })).toEqual({ '1': 1 });
    expect(await scores({ query_string: { query: 'tags:fa*^3' } })).toEqual({ '1': 3, '3': 3 });
    expect(Object.keys(await scores({ query_string: { query: 'title:*' } })).sort()).toEqual(['1', '2', '3']);
  });

  it('answers ranges, >=, < and _exists_', async () => {
    expect(await scores({ query_string: { query: 'views:[5 TO 10]' } })).toEqual({ '1': 1, '2': 1 });
    expect(await scores({ query_string: { query: 'views:{5 TO *]' } })).toEqual({ '1': 1, '3': 1 });
    expect(Object.keys(await scores({ query_string: { query: 'views:>=10' } })).sort()).toEqual(['1', '3']);
    expect(Object.keys(await scores({ query_string: { query: 'views:<10' } }))).toEqual(['2']);
    expect(Object.keys(await scores({ query_string: { query: '_exists_:title' } })).sort()).toEqual([
      '1',
      '2',
      '3',
    ]);
  });

  it('spreads terms over fields with boosts as multi_match best_fields, and over * by default', async () => {
    expect(await scores({ query_string: { query: 'fox', fields: ['title^2', 'body'] } })).toEqual(
      await scores({ multi_match: { query: 'fox', fields: ['title^2', 'body'] } }),
    );
    expect(
      await scores({ query_string: { query: 'lazy dog', fields: ['title', 'body'], tie_breaker: 0.3 } }),
    ).toEqual(
      await scores({ multi_match: { query: 'lazy dog', fields: ['title', 'body'], tie_breaker: 0.3 } }),
    );
    expect(await scores({ query_string: { query: 'fox' } })).toEqual(
      await scores({ multi_match: { query: 'fox', fields: ['*'] } }),
    );
    expect(await scores({ query_string: { query: 'fox', fields: ['ti*'] } })).toEqual(
      await scores({ multi_match: { query: 'fox', fields: ['title', 'title.keyword'] } }),
    );
  });

  it('applies minimum_should_match to the top-level clauses', async () => {
    expect(
      Object.keys(
        await scores({
          query_string: { query: 'quick fox hill', default_field: 'body', minimum_should_match: 2 },
        }),
      ).sort(),
    ).toEqual(['1', '3']);
  });

  it('unescapes reserved characters', async () => {
    expect(await scores({ query_string: { query: 'title:quick\\ fox' } })).toEqual(
      await scores({ match: { title: 'quick fox' } }),
    );
  });

  it('is lenient on demand and by default on all fields (ES: lenient unless set, for `*`)', async () => {
    for (const options of [{ default_field: 'title' }, { lenient: false }]) {
      const { status, json } = await raw(`/${fx.articles.name}/_search`, {
        query: { query_string: { query: 'views:foo', ...options } },
      });
      expect(status).toBe(400);
      expect(json.error.root_cause[0]).toEqual(
        expect.objectContaining({
          type: 'query_shard_exception',
          reason: 'failed to create query: For input string: "foo"',
        }),
      );
    }
    expect(await scores({ query_string: { query: 'views:foo' } })).toEqual({});
    expect(
      await scores({ query_string: { query: 'views:foo', default_field: 'title', lenient: true } }),
    ).toEqual({});
    expect(await scores({ query_string: { query: 'title:fox OR views:foo' } })).toEqual({ '1': 1.135697 });
  });

  it('answers a syntax error as ES: 400, query_shard_exception caused by parse_exception', async () => {
    const { status, json } = await raw(`/${fx.articles.name}/_search`, {
      query: { query_string: { query: 'title:(fox' } },
    });
    expect(status).toBe(400);
    expect(json.error.type).toBe('search_phase_execution_exception');
    expect(json.error.root_cause).toEqual([
      expect.objectContaining({
        type: 'query_shard_exception',
        reason: 'Failed to parse query [title:(fox]',
        index: fx.articles.name,
        index_uuid: expect.any(String),
      }),
    ]);
    const cause = json.error.failed_shards[0]!.reason.caused_by;
    expect(cause.type).toBe('parse_exception');
    expect(cause.reason).toMatch(
      /^Cannot parse 'title:\(fox': Encountered "<EOF>" at line 1, column 10\.\nWas expecting one of:/,
    );
    expect(cause.caused_by.type).toBe('parse_exception');
    expect(json.status).toBe(400);
  });

  it('runs term~N as the fuzzy query and /re/ as the regexp query', async () => {
    expect(await scores({ query_string: { query: 'title:quikc~1' } })).toEqual(
      await scores({ fuzzy: { title: { value: 'quikc', fuzziness: '1' } } }),
    );
    expect(Object.keys(await scores({ query_string: { query: 'title:quikc~1' } }))).toEqual(['1']);
    // `~` alone takes the query's fuzziness (AUTO: 1 edit for 3 to 5 letters); text fields are normalised.
    expect(await scores({ query_string: { query: 'title:QUIKC~', fuzzy_prefix_length: 1 } })).toEqual(
      await scores({ fuzzy: { title: { value: 'quikc', prefix_length: 1 } } }),
    );
    expect(await scores({ query_string: { query: 'title:/qu.ck/' } })).toEqual({ '1': 1 });
    expect(await scores({ query_string: { query: 'title:/qu.ck/^2' } })).toEqual(
      await scores({ regexp: { title: { value: 'qu.ck', boost: 2 } } }),
    );
    const bad = await raw(`/${fx.articles.name}/_search`, { query: { query_string: { query: 'roam~3' } } });
    expect(bad.status).toBe(400);
  });

  it('refuses unknown options, a missing query and too long a query', async () => {
    const unknown = await raw(`/${fx.articles.name}/_search`, {
      query: { query_string: { query: 'x', nope: 1 } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.reason).toBe('[query_string] query does not support [nope]');
    const missing = await raw(`/${fx.articles.name}/_search`, { query: { query_string: {} } });
    expect(missing.json.error.reason).toBe('[query_string] must be provided with a [query]');
    const long = await raw(`/${fx.articles.name}/_search`, {
      query: { query_string: { query: 'a '.repeat(20_000) } },
    });
    expect(long.status).toBe(400);
    expect(long.json.error.type).toBe('parsing_exception');
  });

  it('reads index.query.default_field', async () => {
    const index = `qs-default-${fx.suffix}`;
    await fx.es.indices.create({
      index,
      settings: { 'index.query.default_field': ['title'] },
      mappings: { properties: { title: { type: 'text' }, body: { type: 'text' } } },
    });
    await fx.es.index({ index, id: 'a', document: { title: 'fox', body: 'dog' }, refresh: true });
    await fx.es.index({ index, id: 'b', document: { title: 'dog', body: 'fox' }, refresh: true });
    const res = await fx.es.search({ index, query: { query_string: { query: 'fox' } } });
    expect(res.hits.hits.map((h) => h._id)).toEqual(['a']);
  });
});

describe('highlighting a query_string', () => {
  it('marks the words of its terms and phrases, not of its negations', async () => {
    const res = await fx.es.search({
      index: fx.articles.name,
      query: { query_string: { query: 'body:(quick OR "lazy dog") -body:hill' } },
      highlight: { fields: { body: {} } },
    });
    expect(res.hits.hits.map((h) => [h._id, h.highlight?.body])).toEqual([
      ['1', ['the <em>quick</em> brown fox jumps over the <em>lazy</em> <em>dog</em>']],
      ['2', ['a <em>lazy</em> <em>dog</em> sleeps all day long']],
    ]);
  });
});

describe('the q URL parameter', () => {
  it('is a query_string with df, default_operator and lenient from the URL', async () => {
    const ids = async (qs: string): Promise<string[]> => {
      const { status, json } = await raw(`/${fx.articles.name}/_search?${qs}`);
      expect(status).toBe(200);
      return json.hits.hits.map((h) => h._id).sort();
    };
    expect(await ids('q=title:fox')).toEqual(['1']);
    expect(await ids('q=fox&df=title')).toEqual(['1']);
    expect(await ids(`q=${encodeURIComponent('body:quick body:hill')}`)).toEqual(['1', '3']);
    expect(await ids(`q=${encodeURIComponent('body:quick body:hill')}&default_operator=AND`)).toEqual(['3']);
    expect(await ids('q=title:BA*')).toEqual(['3']);
    expect(await ids('q=views:foo&lenient=true')).toEqual([]);
  });
});

describe('simple_query_string', () => {
  it('scores terms as match and sums fields (most_fields)', async () => {
    expect(await scores({ simple_query_string: { query: 'quick fox', fields: ['body'] } })).toEqual(
      await scores({ match: { body: 'quick fox' } }),
    );
    expect(await scores({ simple_query_string: { query: 'fox', fields: ['title', 'body'] } })).toEqual(
      await scores({ multi_match: { query: 'fox', fields: ['title', 'body'], type: 'most_fields' } }),
    );
  });

  it('handles + | - " * ( ) and ~N', async () => {
    expect(
      Object.keys(await scores({ simple_query_string: { query: 'quick +fox', fields: ['body'] } })),
    ).toEqual(['1']);
    expect(
      Object.keys(await scores({ simple_query_string: { query: 'hill | sleeps', fields: ['body'] } })).sort(),
    ).toEqual(['2', '3']);
    // A negated term is bool(must_not x, should *:*): every other document scores 1.
    expect(await scores({ simple_query_string: { query: '-fox', fields: ['body'] } })).toEqual({
      '2': 1,
      '3': 1,
    });
    expect(await scores({ simple_query_string: { query: '"quick brown"', fields: ['body'] } })).toEqual(
      await scores({ match_phrase: { body: 'quick brown' } }),
    );
    expect(await scores({ simple_query_string: { query: '"quick fox"~1', fields: ['body'] } })).toEqual(
      await scores({ match_phrase: { body: { query: 'quick fox', slop: 1 } } }),
    );
    expect(await scores({ simple_query_string: { query: 'qui*', fields: ['title'] } })).toEqual({ '1': 1 });
    expect(
      Object.keys(await scores({ simple_query_string: { query: '(hill | sleeps) +red', fields: ['body'] } })),
    ).toEqual(['3']);
  });

  it('never fails on bad syntax, and honours flags', async () => {
    for (const query of ['"unclosed quote', '(unclosed', 'fox)', '-', '+|', '\\']) {
      const { status } = await raw(`/${fx.articles.name}/_search`, {
        query: { simple_query_string: { query, fields: ['body'] } },
      });
      expect(status).toBe(200);
    }
    // flags NONE: `+` and `-` are ordinary characters the analyzer drops.
    expect(
      Object.keys(
        await scores({ simple_query_string: { query: '-fox', fields: ['body'], flags: 'NONE' } }),
      ).sort(),
    ).toEqual(['1', '4']);
    const bad = await raw(`/${fx.articles.name}/_search`, {
      query: { simple_query_string: { query: 'x', flags: 'AND|BOGUS' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.reason).toBe('Unknown simple_query_string flag [BOGUS]');
  });

  it('runs term~N as a fuzzy query on each field (most_fields)', async () => {
    expect(await scores({ simple_query_string: { query: 'quikc~1', fields: ['title'] } })).toEqual(
      await scores({ fuzzy: { title: { value: 'quikc', fuzziness: '1' } } }),
    );
    // FUZZY off: `~1` is part of the word.
    expect(
      await scores({ simple_query_string: { query: 'quikc~1', fields: ['title'], flags: 'AND|OR' } }),
    ).toEqual({});
  });
});

describe('match_bool_prefix and multi_match bool_prefix', () => {
  it('scores the leading terms as terms and the last as a constant-score prefix', async () => {
    expect(await scores({ match_bool_prefix: { body: 'quick bro' } })).toEqual(
      await scores({ bool: { should: [{ term: { body: 'quick' } }, { prefix: { body: 'bro' } }] } }),
    );
    expect(await scores({ match_bool_prefix: { body: { query: 'quick bro', operator: 'and' } } })).toEqual(
      await scores({ bool: { must: [{ term: { body: 'quick' } }, { prefix: { body: 'bro' } }] } }),
    );
    expect(
      Object.keys(
        await scores({ match_bool_prefix: { body: { query: 'quick lazy h', minimum_should_match: 2 } } }),
      ).sort(),
    ).toEqual(['1', '3']);
  });

  it('combines fields with dis_max, and refuses slop', async () => {
    expect(
      await scores({ multi_match: { query: 'lazy d', type: 'bool_prefix', fields: ['title', 'body^2'] } }),
    ).toEqual(
      await scores({
        dis_max: {
          queries: [
            { match_bool_prefix: { title: 'lazy d' } },
            { match_bool_prefix: { body: { query: 'lazy d', boost: 2 } } },
          ],
        },
      }),
    );
    const { status, json } = await raw(`/${fx.articles.name}/_search`, {
      query: { multi_match: { query: 'x', type: 'bool_prefix', fields: ['title'], slop: 1 } },
    });
    expect(status).toBe(400);
    expect(json.error.reason).toBe('[multi_match] [slop] not allowed for type [bool_prefix]');
  });
});

describe('multi_match cross_fields', () => {
  it('scores each term over the fields with blended document frequencies', async () => {
    // quick: df title 1, body 2 → blended body 2, title 3 (the rarer field gets max + 1, capped by docCount 3).
    // fox:   df title 1, body 2 → the same.
    const titleQuick = expectedTermScore({ ...TITLE, df: 3, freq: 1, dl: 2 });
    const bodyQuick = expectedTermScore({ ...BODY, df: 2, freq: 1, dl: 9 });
    const res = await scores({
      multi_match: { query: 'quick fox', type: 'cross_fields', fields: ['title', 'body'] },
    });
    // doc 1: both terms in both fields, each term takes its best field.
    expect(res['1']).toBe(sumScores(Math.max(titleQuick, bodyQuick), Math.max(titleQuick, bodyQuick)));
    expect(Object.keys(res).sort()).toEqual(['1', '3', '4']);
    const and = await scores({
      multi_match: { query: 'quick hill', type: 'cross_fields', fields: ['title', 'body'], operator: 'and' },
    });
    expect(Object.keys(and)).toEqual(['3']);
  });
});
