import { useSearchStore } from '../support/use-search-store';
import { call, client8 } from '../support/http';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * ES "Rare terms" and "Significant terms" aggregations through the official client and raw HTTP, on
 * real Postgres. The expected scores are the heuristics' formulas (ES heuristic/*.java) evaluated
 * by hand in doubles for the counts below.
 */
describe('rare_terms and significant_terms aggregations', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  const sig = 'sig-terms';
  const rare = 'rare-terms';
  const search = async (index: string, body: Json) => {
    const response = await call(server.url, 'POST', `/${index}/_search`, body);
    return { status: response.status, body: response.json as Json };
  };
  beforeAll(async () => {
    await es().indices.create({
      index: sig,
      mappings: {
        properties: {
          class: { type: 'keyword' },
          tag: { type: 'keyword' },
          body: { type: 'text' },
          n: { type: 'long' },
        },
      },
    });
    // Foreground class:good = docs 1–3; tag good is in 3 of them and 4 of all 7, nice in 2 and 3.
    const docs = [
      { class: 'good', tag: ['good', 'nice'], n: 1 },
      { class: 'good', tag: ['good'], n: 2 },
      { class: 'good', tag: ['good', 'nice'], n: 3 },
      { class: 'bad', tag: ['bad'], n: 4 },
      { class: 'bad', tag: ['bad', 'nice'], n: 5 },
      { class: 'bad', tag: ['bad'], n: 6 },
      { class: 'bad', tag: ['good'], n: 7 },
    ];
    await es().bulk({
      index: sig,
      refresh: true,
      operations: docs.flatMap((doc, i) => [
        { index: { _id: String(i + 1) } },
        { ...doc, body: `The ${doc.tag.join(' ').toUpperCase()} ones` },
      ]),
    });
    await es().indices.create({
      index: rare,
      mappings: {
        properties: {
          str: { type: 'keyword' },
          ip: { type: 'ip' },
          flag: { type: 'boolean' },
          num: { type: 'long' },
          date: { type: 'date' },
          v: { type: 'long' },
        },
      },
    });
    const rows = [
      { str: 'foo', ip: '::1', flag: true, num: 1234, date: '2016-05-03', v: 1 },
      { str: 'foo', ip: '127.0.0.1', flag: false, num: 5678, date: '2014-09-01', v: 2 },
      { str: 'foo', ip: '::1', flag: true, num: 1234, date: '2016-05-03', v: 3 },
      { str: 'bar', v: 4 },
      { str: 'bar', v: 5 },
      { str: 'baz', v: 6 },
    ];
    await es().bulk({
      index: rare,
      refresh: true,
      operations: rows.flatMap((doc, i) => [{ index: { _id: String(i + 1) } }, doc]),
    });
  });

  const foreground = { term: { class: 'good' } };

  it('scores the foreground terms with JLH by default (official client)', async () => {
    const response = await es().search({
      index: sig,
      size: 0,
      query: foreground,
      aggs: { s: { significant_terms: { field: 'tag', min_doc_count: 1 } } },
    });
    expect(response.aggregations!.s).toEqual({
      doc_count: 3,
      bg_count: 7,
      buckets: [
        { key: 'good', doc_count: 3, score: 0.75, bg_count: 4 },
        { key: 'nice', doc_count: 2, score: 0.37037037037037035, bg_count: 3 },
      ],
    });
  });

  it('keeps only terms in min_doc_count (default 3) foreground documents', async () => {
    const { body } = await search(sig, {
      size: 0,
      query: foreground,
      aggs: { s: { significant_terms: { field: 'tag' } } },
    });
    expect(body.aggregations.s.buckets.map((b: Json) => b.key)).toEqual(['good']);
  });

  it('scores with mutual_information, chi_square, gnd and percentage as ES computes them', async () => {
    const scores: Record<string, number[]> = {};
    for (const heuristic of ['mutual_information', 'chi_square', 'gnd', 'percentage']) {
      const { body } = await search(sig, {
        size: 0,
        query: foreground,
        aggs: { s: { significant_terms: { field: 'tag', min_doc_count: 1, [heuristic]: {} } } },
      });
      scores[heuristic] = body.aggregations.s.buckets.map((b: Json) => b.score);
    }
    expect(scores).toMatchObject({
      mutual_information: [0.5216406363433184, 0.12808527889139434],
      chi_square: [3.9375, 1.2152777777777777],
      percentage: [0.75, 0.6666666666666666],
    });
    // Math.log and Math.exp may differ from the JVM's in the last bit (docs/COVERAGE.md).
    expect(scores.gnd![0]).toBeCloseTo(0.7121057487429688, 14);
    expect(scores.gnd![1]).toBeCloseTo(0.6196880677889637, 14);
  });

  it('runs per parent bucket, with sub-aggregations', async () => {
    const { body } = await search(sig, {
      size: 0,
      aggs: {
        class: {
          terms: { field: 'class' },
          aggs: {
            s: {
              significant_terms: { field: 'tag', min_doc_count: 1 },
              aggs: { top: { max: { field: 'n' } } },
            },
          },
        },
      },
    });
    const [bad, good] = body.aggregations.class.buckets;
    expect(bad.key).toBe('bad');
    expect(bad.s.doc_count).toBe(4);
    expect(bad.s.buckets[0]).toMatchObject({ key: 'bad', doc_count: 3, bg_count: 3, top: { value: 6 } });
    expect(good.s.buckets[0]).toMatchObject({ key: 'good', doc_count: 3, bg_count: 4, top: { value: 3 } });
  });

  it('measures against background_filter, and needs background_is_superset false when it is not one', async () => {
    const background = { term: { class: 'bad' } };
    let r = await search(sig, {
      size: 0,
      query: foreground,
      aggs: { s: { significant_terms: { field: 'tag', min_doc_count: 1, background_filter: background } } },
    });
    expect(r.body.aggregations.s).toEqual({
      doc_count: 3,
      bg_count: 4,
      buckets: [
        { key: 'good', doc_count: 3, score: 3, bg_count: 1 },
        { key: 'nice', doc_count: 2, score: 1.111111111111111, bg_count: 1 },
      ],
    });
    r = await search(sig, {
      size: 0,
      query: foreground,
      aggs: {
        s: {
          significant_terms: {
            field: 'tag',
            min_doc_count: 1,
            background_filter: background,
            chi_square: { background_is_superset: false },
          },
        },
      },
    });
    expect(r.body.aggregations.s.buckets.map((b: Json) => b.score)).toEqual([3.9375, 1.2152777777777777]);
    r = await search(sig, {
      size: 0,
      query: foreground,
      aggs: {
        s: { significant_terms: { field: 'tag', background_filter: background, chi_square: {} } },
      },
    });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body.error)).toContain('subsetFreq > supersetFreq');
  });

  it('filters terms with include and exclude (values and regexp)', async () => {
    const run = async (options: Json) =>
      (
        await search(sig, {
          size: 0,
          query: foreground,
          aggs: { s: { significant_terms: { field: 'tag', min_doc_count: 1, ...options } } },
        })
      ).body.aggregations.s.buckets.map((b: Json) => b.key);
    expect(await run({ include: ['nice'] })).toEqual(['nice']);
    expect(await run({ exclude: 'go.*' })).toEqual(['nice']);
    expect(await run({ include: 'n[a-z]+', exclude: ['nice'] })).toEqual([]);
  });

  it('scores the terms of a text field with significant_text', async () => {
    const { body } = await search(sig, {
      size: 0,
      query: foreground,
      aggs: { s: { significant_text: { field: 'body', min_doc_count: 1, filter_duplicate_text: true } } },
    });
    // "the" and "ones" are in every document: no more likely in the foreground, score 0.
    expect(body.aggregations.s).toEqual({
      doc_count: 3,
      bg_count: 7,
      buckets: [
        { key: 'good', doc_count: 3, score: 0.75, bg_count: 4 },
        { key: 'nice', doc_count: 2, score: 0.37037037037037035, bg_count: 3 },
      ],
    });
    const refused = await search(sig, { aggs: { s: { significant_text: { field: 'tag' } } } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.reason).toBe(
      'Field [tag] of type [keyword] is not supported for aggregation [significant_text]',
    );
  });

  it('refuses bad significant_terms options (raw HTTP)', async () => {
    const bad = async (spec: Json) =>
      (await search(sig, { aggs: { s: { significant_terms: spec } } })).body.error;
    expect(await bad({ field: 'tag', jlp: {} })).toMatchObject({
      type: 'x_content_parse_exception',
      reason: '[significant_terms] unknown field [jlp]',
    });
    expect((await bad({ field: 'tag', jlh: {}, gnd: {} })).type).toBe('x_content_parse_exception');
    expect(await bad({ field: 'tag', size: 0 })).toMatchObject({ type: 'illegal_argument_exception' });
    expect(await bad({ field: 'tag', mutual_information: { bogus: true } })).toMatchObject({
      reason: '[mutual_information] unknown field [bogus]',
    });
    expect((await bad({ field: 'tag', script_heuristic: {} })).type).toBe('illegal_argument_exception');
  });

  it('finds the rare keyword, ip, boolean, long and date terms (official client)', async () => {
    const response = await es().search({
      index: rare,
      size: 0,
      aggs: {
        str: { rare_terms: { field: 'str' } },
        ip: { rare_terms: { field: 'ip' } },
        flag: { rare_terms: { field: 'flag' } },
        num: { rare_terms: { field: 'num' } },
        date: { rare_terms: { field: 'date' } },
        unmapped: { rare_terms: { field: 'nope' } },
      },
    });
    expect(response.aggregations).toEqual({
      str: { buckets: [{ key: 'baz', doc_count: 1 }] },
      ip: { buckets: [{ key: '127.0.0.1', doc_count: 1 }] },
      flag: { buckets: [{ key: 0, key_as_string: 'false', doc_count: 1 }] },
      num: { buckets: [{ key: 5678, doc_count: 1 }] },
      date: { buckets: [{ key: 1409529600000, key_as_string: '2014-09-01T00:00:00.000Z', doc_count: 1 }] },
      unmapped: { buckets: [] },
    });
  });

  it('orders by count then key, up to max_doc_count, with sub-aggregations and bucket pipelines', async () => {
    const { body } = await search(rare, {
      size: 0,
      aggs: {
        s: { rare_terms: { field: 'str', max_doc_count: 2 }, aggs: { v: { sum: { field: 'v' } } } },
        avg_v: { avg_bucket: { buckets_path: 's.v' } },
      },
    });
    expect(body.aggregations.s.buckets).toEqual([
      { key: 'baz', doc_count: 1, v: { value: 6 } },
      { key: 'bar', doc_count: 2, v: { value: 9 } },
    ]);
    expect(body.aggregations.avg_v.value).toBe(7.5);
  });

  it('applies include, exclude and missing', async () => {
    const run = async (spec: Json) =>
      (await search(rare, { size: 0, aggs: { r: { rare_terms: spec } } })).body.aggregations.r.buckets;
    expect(await run({ field: 'ip', include: ['127.0.0.1'] })).toEqual([{ key: '127.0.0.1', doc_count: 1 }]);
    expect(await run({ field: 'ip', exclude: ['127.0.0.1'] })).toEqual([]);
    expect(await run({ field: 'date', exclude: ['2014-09-01'] })).toEqual([]);
    expect(await run({ field: 'str', max_doc_count: 2, include: 'ba.*', exclude: ['baz'] })).toEqual([
      { key: 'bar', doc_count: 2 },
    ]);
    // Three documents have no ip: as "10.0.0.1" they are no longer rare.
    expect(await run({ field: 'ip', missing: '10.0.0.1', max_doc_count: 3 })).toEqual([
      { key: '127.0.0.1', doc_count: 1 },
      { key: '::1', doc_count: 2 },
      { key: '10.0.0.1', doc_count: 3 },
    ]);
  });

  it('refuses bad rare_terms options with ES errors (raw HTTP)', async () => {
    const bad = async (spec: Json) => {
      const r = await search(rare, { size: 0, aggs: { r: { rare_terms: spec } } });
      return { status: r.status, error: r.body.error };
    };
    let r = await bad({ field: 'str', max_doc_count: 0 });
    expect(r.status).toBe(400);
    expect(r.error).toMatchObject({
      type: 'x_content_parse_exception',
      caused_by: {
        type: 'illegal_argument_exception',
        reason: '[max_doc_count] must be greater than 0. Found [0] in [r]',
      },
    });
    r = await bad({ field: 'str', max_doc_count: 101 });
    expect(r.error.caused_by.reason).toBe('[max_doc_count] must be smallerthan 100in [r]');
    r = await bad({ field: 'str', precision: 0.000001 });
    expect(r.error.caused_by.reason).toBe('[precision] must be greater than 0.00001');
    r = await bad({ field: 'ip', exclude: '127.*' });
    expect(r.error).toMatchObject({
      type: 'illegal_argument_exception',
      reason:
        'Aggregation [r] cannot support regular expression style include/exclude settings as they can only be applied to string fields. Use an array of values for include/exclude clauses',
    });
    r = await bad({ field: 'str', size: 3 });
    expect(r.error).toMatchObject({
      type: 'x_content_parse_exception',
      reason: '[rare_terms] unknown field [size]',
    });
  });
});
