import { Pool } from 'pg';
import { runAggregations } from '../../src/aggs/run-aggregations';
import { columnarAnswers } from '../../src/aggs/columnar-aggs';
import type { AggContext, AggField, MatchedSet } from '../../src/aggs/agg-context';
import { decodeChunk, DOC_VALUE_CHUNK, type DocValueChunkRow } from '../../src/index/doc-value-chunk';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call as rawCall } from '../support/http';
import { seededRandom } from '../support/seeded-random';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A fresh connection per call: comparing with the SQL path idles a kept-alive socket past the server's keep-alive timeout. */
const call = (
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) => rawCall(base, method, path, body, { connection: 'close', ...headers });

/**
 * Column-wise doc values (migration 0027, aggs/columnar-aggs.ts) against the SQL path over doc_values
 * rows: documents written through the API (bulk, single writes, updates, deletes, by-query), each
 * aggregation asked over HTTP (the columns) and of runAggregations with `columnar: false` (the rows).
 */
describe('column-wise doc values', () => {
  let server: RunningSearchStore;
  let pool: Pool;
  const random = seededRandom(23);
  const CATEGORIES = ['news', 'fiction', 'humor', 'lore', 'é-acute', '\uff21-wide', '😀-emoji', 'Zeta'];
  const TAGS = ['x', 'y', 'z', 'é', '\ue000', '😀', 'ab', 'a'];
  const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)]!;

  const DAY = 86_400_000;
  /** Where `when` falls: across the epoch, DST changes (Europe, São Paulo's at midnight, Lord Howe's half hour), decades. */
  const WINDOWS: Array<[number, number]> = [
    [Date.UTC(1969, 11, 25), 14 * DAY],
    [Date.UTC(2020, 2, 27), 5 * DAY],
    [Date.UTC(2020, 9, 23), 5 * DAY],
    [Date.UTC(2018, 10, 2), 4 * DAY],
    [Date.UTC(2020, 3, 3), 4 * DAY],
    [Date.UTC(1950, 0, 1), 80 * 365 * DAY],
  ];

  function doc(i: number): Record<string, unknown> {
    const source: Record<string, unknown> = { title: `doc ${i}` };
    // Some documents lack each field: no value, no entry.
    if (i % 11 !== 0) source.category = pick(CATEGORIES);
    if (i % 7 !== 0) source.words = Math.floor(random() * 500);
    if (i % 5 !== 0) source.price = Math.floor(random() * 400) / 4;
    // Multi-valued: keywords deduplicated per document, numbers keep their repeats.
    source.tags = Array.from({ length: Math.floor(random() * 4) }, () => pick(TAGS));
    source.nums = Array.from({ length: Math.floor(random() * 4) }, () => Math.floor(random() * 6));
    source.flag = random() < 0.3;
    source.day = Date.UTC(2020, 0, 1 + Math.floor(random() * 20));
    if (i % 13 !== 0) {
      const [from, span] = pick(WINDOWS);
      // Whole minutes, some with milliseconds; some documents with a second value half an hour on.
      const when = from + Math.floor((random() * span) / 60_000) * 60_000 + (i % 10 === 0 ? 123 : 0);
      source.when = i % 17 === 0 ? [when, when + 1_800_000] : when;
    }
    // Negative and positive, on and off the histogram's boundaries.
    if (i % 3 !== 0) source.temp = Math.round((random() * 100 - 60) * 4) / 4;
    return source;
  }

  async function indexId(name: string): Promise<string> {
    const { rows } = await pool.query<{ index_id: string }>('SELECT index_id FROM indices WHERE name = $1', [
      name,
    ]);
    return rows[0]!.index_id;
  }

  /** The AggContext the searcher builds, from the fields table. */
  async function context(names: string[]): Promise<AggContext> {
    const ids = await Promise.all(names.map(indexId));
    const { rows } = await pool.query<{ index_id: string; field_id: number; path: string; type: string }>(
      'SELECT index_id, field_id, path, type FROM fields WHERE index_id = ANY($1::bigint[])',
      [ids],
    );
    return {
      indexIds: ids,
      fieldsByPath: (path: string): AggField[] =>
        rows
          .filter((r) => r.path === path)
          .map((r) => ({ indexId: r.index_id, indexName: '', fieldId: r.field_id, type: r.type })),
      // The filter(s) aggregations here ask only `range` on `words`, read off the stored source.
      translateQuery: (query: unknown) => {
        const { gte, lt } = (query as Json).range.words as { gte?: number; lt?: number };
        const conds = [
          ...(gte === undefined ? [] : [`(d.source::jsonb->>'words')::int >= ${Number(gte)}`]),
          ...(lt === undefined ? [] : [`(d.source::jsonb->>'words')::int < ${Number(lt)}`]),
        ];
        return {
          sql: `SELECT d.doc_key FROM documents d WHERE d.index_id = ANY($1::bigint[]) AND ${conds.join(' AND ')}`,
          params: [ids],
        };
      },
      nested: { paths: [], kindOf: () => undefined },
    };
  }

  const answered = (): number => [...columnarAnswers.values()].reduce((a, b) => a + b, 0);

  /**
   * The aggregation over HTTP (columns), and the SQL path's over doc_values rows, must agree; every
   * top-level aggregation but the `fallback` ones must have been answered by the columns.
   */
  async function expectSame(
    names: string[],
    aggs: Record<string, unknown>,
    filter?: { query: Record<string, unknown>; sql: string },
    fallback: string[] = FALLBACK,
  ): Promise<Json> {
    const before = answered();
    const response = await call(server.url, 'POST', `/${names.join(',')}/_search`, {
      size: 0,
      ...(filter ? { query: filter.query } : {}),
      aggs,
    });
    expect(response.status).toBe(200);
    expect(answered() - before).toBe(Object.keys(aggs).filter((name) => !fallback.includes(name)).length);
    const viaColumns = (response.json as Json).aggregations as Json;
    const ctx = await context(names);
    const matched: MatchedSet = filter
      ? {
          sql: `SELECT d.doc_key FROM documents d WHERE d.index_id = ANY($1::bigint[]) AND ${filter.sql}`,
          params: [ctx.indexIds],
        }
      : {
          sql: 'SELECT doc_key FROM documents WHERE index_id = ANY($1::bigint[])',
          params: [ctx.indexIds],
          all: true,
        };
    const viaRows = await runAggregations(pool, { ...ctx, columnar: false }, matched, aggs);
    expect(viaColumns).toEqual(JSON.parse(JSON.stringify(viaRows)));
    return viaColumns;
  }

  const AGGS: Record<string, unknown> = {
    // bench/search's aggregation.
    categories: { terms: { field: 'category', size: 20 }, aggs: { words: { avg: { field: 'words' } } } },
    few: {
      terms: { field: 'category', size: 3 },
      meta: { why: 'sum_other_doc_count' },
      aggs: { p: { stats: { field: 'price' } }, n: { value_count: { field: 'tags' } } },
    },
    by_key: { terms: { field: 'tags', order: { _key: 'asc' } }, aggs: { s: { sum: { field: 'nums' } } } },
    rare_first: { terms: { field: 'tags', order: [{ _count: 'asc' }, { _key: 'desc' }], size: 4 } },
    nums: {
      terms: { field: 'nums', size: 10 },
      aggs: {
        lo: { min: { field: 'price' } },
        hi: { max: { field: 'price' } },
        c: { value_count: { field: 'nums' } },
      },
    },
    flags: { terms: { field: 'flag' }, aggs: { w: { avg: { field: 'words' } } } },
    days: {
      terms: { field: 'day', size: 5, order: { _key: 'desc' } },
      aggs: { first: { min: { field: 'day' } } },
    },
    frequent: { terms: { field: 'category', min_doc_count: 1_000_000 } },
    avg_words: { avg: { field: 'words' } },
    sum_price: { sum: { field: 'price' } },
    min_nums: { min: { field: 'nums' } },
    max_day: { max: { field: 'day' } },
    price_stats: { stats: { field: 'price' } },
    tag_values: { value_count: { field: 'tags' } },
    num_values: { value_count: { field: 'nums' } },
    none: { avg: { field: 'unmapped' } },
  };
  /** The aggregations of AGGS the columns leave to the SQL path. */
  const FALLBACK = ['none'];

  /** Histograms, ranges, cardinality, percentiles and buckets under buckets (Kibana's Discover and Lens). */
  const BUCKETS: Record<string, unknown> = {
    hist_words: { histogram: { field: 'words', interval: 50 }, aggs: { p: { avg: { field: 'price' } } } },
    hist_offset: {
      histogram: { field: 'price', interval: 7.5, offset: 2.5, extended_bounds: { min: -50, max: 200 } },
      aggs: { s: { stats: { field: 'price' } }, pct: { percentiles: { field: 'words' } } },
    },
    hist_temp: {
      histogram: { field: 'temp', interval: 10, min_doc_count: 2, order: { _count: 'desc' } },
      aggs: { c: { cardinality: { field: 'category' } } },
    },
    hist_hard: {
      histogram: { field: 'nums', interval: 2, hard_bounds: { min: 2, max: 4 }, keyed: true },
      meta: { m: 1 },
      aggs: { n: { value_count: { field: 'nums' } } },
    },
    dh_fixed: {
      date_histogram: {
        field: 'day',
        fixed_interval: '36h',
        offset: '-5h',
        extended_bounds: { min: '2019-12-25' },
      },
      aggs: { w: { sum: { field: 'words' } } },
    },
    dh_month_berlin: {
      date_histogram: {
        field: 'when',
        calendar_interval: 'month',
        time_zone: 'Europe/Berlin',
        min_doc_count: 1,
        format: 'yyyy-MM',
      },
      aggs: { c: { cardinality: { field: 'category' } }, t: { min: { field: 'when' } } },
    },
    dh_hour_berlin: {
      date_histogram: {
        field: 'when',
        calendar_interval: 'hour',
        time_zone: 'Europe/Berlin',
        min_doc_count: 1,
      },
    },
    dh_day_sao_paulo: {
      date_histogram: {
        field: 'when',
        calendar_interval: 'day',
        time_zone: 'America/Sao_Paulo',
        min_doc_count: 1,
      },
    },
    dh_hour_lord_howe: {
      date_histogram: {
        field: 'when',
        calendar_interval: '1h',
        time_zone: 'Australia/Lord_Howe',
        min_doc_count: 1,
        order: { _count: 'desc' },
      },
    },
    dh_week: {
      date_histogram: { field: 'when', calendar_interval: 'week', offset: '+6h', min_doc_count: 1 },
    },
    dh_quarter_fixed: {
      date_histogram: { field: 'when', calendar_interval: 'quarter', time_zone: '+05:30' },
    },
    dh_year: {
      date_histogram: {
        field: 'when',
        calendar_interval: 'year',
        time_zone: '-03:00',
        extended_bounds: { min: '1940-01-01', max: '2040-06-01' },
        keyed: true,
      },
      aggs: { pct: { percentiles: { field: 'temp', percents: [1, 50, 99.9], keyed: false } } },
    },
    dh_days_filled: {
      date_histogram: {
        field: 'day',
        calendar_interval: 'day',
        time_zone: 'Asia/Kolkata',
        extended_bounds: { min: '2019-12-29', max: '2020-01-24' },
        format: 'yyyy-MM-dd',
      },
      aggs: { tags: { terms: { field: 'tags', size: 2 } } },
    },
    card_category: { cardinality: { field: 'category' } },
    card_words: { cardinality: { field: 'words', precision_threshold: 10 } },
    card_when: { cardinality: { field: 'when' } },
    card_price: { cardinality: { field: 'price' } },
    card_flag: { cardinality: { field: 'flag' } },
    pct_price: { percentiles: { field: 'price', percents: [0, 1, 25, 50, 99.9, 100] } },
    pct_when: { percentiles: { field: 'when', keyed: true } },
    terms_terms: {
      terms: { field: 'category', size: 4 },
      aggs: {
        tags: {
          terms: { field: 'tags', size: 3, order: { _key: 'desc' } },
          aggs: { s: { sum: { field: 'nums' } } },
        },
        uniq: { cardinality: { field: 'tags' } },
      },
    },
    terms_dates: {
      terms: { field: 'flag' },
      aggs: {
        per_day: {
          date_histogram: { field: 'day', calendar_interval: 'day', min_doc_count: 0 },
          aggs: { w: { avg: { field: 'words' } } },
        },
      },
    },
    hist_terms: {
      histogram: { field: 'words', interval: 100 },
      aggs: {
        top: {
          terms: { field: 'category', size: 2 },
          aggs: {
            c: { cardinality: { field: 'tags' } },
            pct: { percentiles: { field: 'price', percents: [50] } },
          },
        },
      },
    },
    kibana: {
      date_histogram: { field: 'when', fixed_interval: '30d', min_doc_count: 1, time_zone: 'Europe/Berlin' },
      aggs: {
        top: { terms: { field: 'category', size: 3 }, aggs: { u: { cardinality: { field: 'words' } } } },
      },
    },
    ranges: {
      range: {
        field: 'price',
        ranges: [{ to: 10 }, { from: 10, to: 50 }, { from: 50 }, { key: 'mid', from: 20, to: 30 }],
      },
      aggs: { w: { avg: { field: 'words' } }, tags: { terms: { field: 'tags', size: 2 } } },
    },
    ranges_keyed: {
      range: { field: 'temp', keyed: true, ranges: [{ to: -10 }, { from: -10, to: 0 }, { from: 0 }] },
    },
    date_ranges: {
      date_range: {
        field: 'when',
        format: 'yyyy-MM-dd',
        time_zone: 'Europe/Berlin',
        ranges: [{ to: '1970-01-01' }, { from: '1970-01-01', to: '2020-03-29' }, { from: '2020-03-29' }],
      },
      aggs: { months: { date_histogram: { field: 'when', calendar_interval: 'month', min_doc_count: 1 } } },
    },
  };

  /** filter(s) below buckets (the columns), and at the top (the SQL path: it counts documents without values). */
  const FILTERED: Record<string, unknown> = {
    cat_filter: {
      terms: { field: 'category' },
      aggs: {
        mid: {
          filter: { range: { words: { gte: 100, lt: 300 } } },
          aggs: { p: { avg: { field: 'price' } } },
        },
      },
    },
    hist_filters: {
      histogram: { field: 'temp', interval: 20 },
      aggs: {
        f: {
          filters: {
            filters: { low: { range: { words: { lt: 100 } } }, high: { range: { words: { gte: 400 } } } },
            other_bucket_key: 'rest',
          },
          aggs: { t: { terms: { field: 'tags', size: 2 } } },
        },
      },
    },
    list_filters: {
      terms: { field: 'flag' },
      aggs: {
        f: { filters: { filters: [{ range: { words: { lt: 250 } } }, { range: { words: { gte: 200 } } }] } },
      },
    },
    top_filter: {
      filter: { range: { words: { gte: 100, lt: 300 } } },
      aggs: { c: { terms: { field: 'category' } } },
    },
  };

  const FILTER = {
    query: { range: { words: { gte: 100, lt: 300 } } },
    sql: "(d.source::jsonb->>'words')::int >= 100 AND (d.source::jsonb->>'words')::int < 300",
  };

  /** Every chunk decoded back into (field, doc_key, value) must be exactly the index's doc_values rows. */
  async function expectColumnsEqualRows(name: string): Promise<void> {
    const id = await indexId(name);
    const { rows } = await pool.query<DocValueChunkRow & { field_id: number }>(
      'SELECT field_id, chunk, num_docs, nums, kw_docs, kw_ords, dict FROM doc_value_columns WHERE index_id = $1',
      [id],
    );
    const fromColumns: string[] = [];
    for (const row of rows) {
      const c = decodeChunk(row);
      const base = c.chunk * DOC_VALUE_CHUNK;
      c.numDocs.forEach((d, i) => fromColumns.push(`${row.field_id} ${base + d} n${c.nums[i]}`));
      c.kwDocs.forEach((d, i) => fromColumns.push(`${row.field_id} ${base + d} k${c.dict[c.kwOrds[i]!]}`));
    }
    const values = await pool.query<{
      field_id: number;
      doc_key: string;
      num: number | null;
      kw: string | null;
    }>('SELECT field_id, doc_key, num, kw FROM doc_values WHERE index_id = $1', [id]);
    const fromRows = values.rows.map(
      (r) => `${r.field_id} ${r.doc_key} ${r.num === null ? `k${r.kw}` : `n${r.num}`}`,
    );
    expect(fromColumns.sort()).toEqual(fromRows.sort());
    // The writer's chunks are byte for byte what migration 0027's rebuild makes of the rows.
    const before = await pool.query(
      'SELECT field_id, chunk, num_count, num_docs, nums, kw_count, kw_docs, kw_ords, dict FROM doc_value_columns WHERE index_id = $1 ORDER BY 1, 2',
      [id],
    );
    await pool.query('SELECT doc_value_columns_rebuild($1)', [id]);
    const after = await pool.query(
      'SELECT field_id, chunk, num_count, num_docs, nums, kw_count, kw_docs, kw_ords, dict FROM doc_value_columns WHERE index_id = $1 ORDER BY 1, 2',
      [id],
    );
    expect(after.rows).toEqual(before.rows);
  }

  const MAPPINGS = {
    properties: {
      title: { type: 'text' },
      category: { type: 'keyword' },
      tags: { type: 'keyword' },
      words: { type: 'integer' },
      price: { type: 'double' },
      nums: { type: 'long' },
      flag: { type: 'boolean' },
      day: { type: 'date' },
      when: { type: 'date' },
      temp: { type: 'double' },
    },
  };

  async function bulk(index: string, from: number, to: number): Promise<void> {
    const lines = [];
    for (let i = from; i < to; i++)
      lines.push(JSON.stringify({ index: { _id: String(i) } }), JSON.stringify(doc(i)));
    const response = await call(server.url, 'POST', `/${index}/_bulk?refresh=true`, `${lines.join('\n')}\n`, {
      'content-type': 'application/x-ndjson',
    });
    expect(response.status).toBe(200);
    expect((response.json as Json).errors).toBe(false);
  }

  beforeAll(async () => {
    server = await startSearchStore();
    pool = server.pool;
    for (const index of ['cols', 'cols-b']) {
      expect((await call(server.url, 'PUT', `/${index}`, { mappings: MAPPINGS })).status).toBe(200);
    }
    // Over two chunks of doc keys, in batches that end mid-chunk (the next one appends to that chunk).
    await bulk('cols', 0, 3_000);
    await bulk('cols', 3_000, 9_500);
    await bulk('cols-b', 0, 700);
    for (let i = 9_500; i < 9_520; i++) {
      expect((await call(server.url, 'PUT', `/cols/_doc/${i}`, doc(i))).status).toBe(201);
    }
  }, 120_000);
  afterAll(async () => {
    await server.stop();
  });

  it('answers terms with metric sub-aggregations and metrics as the SQL path does, over every document', async () => {
    const filtered = await expectSame(['cols'], FILTERED, undefined, ['top_filter']);
    expect(filtered.hist_filters.buckets[0].f.buckets.rest.doc_count).toBeGreaterThan(0);
    const buckets = await expectSame(['cols'], BUCKETS);
    // Both sides of the epoch, and buckets that are not whole days in UTC.
    expect(buckets.dh_year.buckets['1969-01-01T00:00:00.000-03:00'].doc_count).toBeGreaterThan(0);
    expect(buckets.dh_day_sao_paulo.buckets.length).toBeGreaterThan(1_000);
    expect(buckets.hist_temp.buckets.some((b: Json) => b.key < 0)).toBe(true);
    const out = await expectSame(['cols'], AGGS);
    // The bench's shape: every category counted once per document.
    expect(out.categories.buckets.length).toBe(CATEGORIES.length);
    expect(out.categories.sum_other_doc_count).toBe(0);
    expect(out.few.sum_other_doc_count).toBeGreaterThan(0);
    expect(out.few.meta).toEqual({ why: 'sum_other_doc_count' });
    // Keys in byte order of their UTF-8: U+E000 before U+1F600, though its UTF-16 unit is larger.
    expect(out.by_key.buckets.map((b: Json) => b.key)).toEqual([
      'a',
      'ab',
      'x',
      'y',
      'z',
      'é',
      '\ue000',
      '😀',
    ]);
    await expectColumnsEqualRows('cols');
  }, 180_000);

  it('answers over a query’s matches (the sorted keys intersected with the chunks)', async () => {
    await expectSame(['cols'], BUCKETS, FILTER);
    const out = await expectSame(['cols'], AGGS, FILTER);
    expect(out.categories.buckets.reduce((s: number, b: Json) => s + b.doc_count, 0)).toBeGreaterThan(0);
  }, 180_000);

  it('answers across several indices', async () => {
    await expectSame(['cols', 'cols-b'], AGGS);
    await expectSame(['cols', 'cols-b'], AGGS, FILTER);
    await expectSame(['cols', 'cols-b'], BUCKETS);
    await expectSame(['cols', 'cols-b'], FILTERED, undefined, ['top_filter']);
  }, 180_000);

  it('stays exact through updates, partial updates, deletes and delete_by_query', async () => {
    for (let i = 0; i < 40; i++) {
      expect(
        (await call(server.url, 'PUT', `/cols/_doc/${i * 97}?refresh=true`, doc(20_000 + i))).status,
      ).toBe(200);
    }
    expect(
      (
        await call(server.url, 'POST', '/cols/_update/5?refresh=true', {
          doc: { category: 'lore', nums: [9, 9] },
        })
      ).status,
    ).toBe(200);
    for (const id of ['1', '2', '4095', '4096', '9519']) {
      expect((await call(server.url, 'DELETE', `/cols/_doc/${id}?refresh=true`)).status).toBe(200);
    }
    const byQuery = await call(server.url, 'POST', '/cols/_delete_by_query?refresh=true', {
      query: { term: { category: 'humor' } },
    });
    expect(byQuery.status).toBe(200);
    expect((byQuery.json as Json).deleted).toBeGreaterThan(100);
    const out = await expectSame(['cols'], AGGS);
    expect(out.categories.buckets.map((b: Json) => b.key)).not.toContain('humor');
    await expectSame(['cols'], AGGS, FILTER);
    await expectSame(['cols'], BUCKETS);
    await expectSame(['cols'], BUCKETS, FILTER);
    await expectSame(['cols'], FILTERED, FILTER, ['top_filter']);
    await expectColumnsEqualRows('cols');
  }, 180_000);

  it('leaves to the SQL path what the columns do not cover, with the same answers', async () => {
    // `nums` is a long in cols and a keyword in cols-mixed: no one column serves both.
    const mixed = {
      properties: { category: { type: 'keyword' }, nums: { type: 'keyword' }, words: { type: 'integer' } },
    };
    expect((await call(server.url, 'PUT', '/cols-mixed', { mappings: mixed })).status).toBe(200);
    const lines = [0, 1, 2].flatMap((i) => [
      JSON.stringify({ index: { _id: String(i) } }),
      JSON.stringify({ category: 'news', nums: `n${i}`, words: i }),
    ]);
    const written = await call(
      server.url,
      'POST',
      '/cols-mixed/_bulk?refresh=true',
      `${lines.join('\n')}\n`,
      {
        'content-type': 'application/x-ndjson',
      },
    );
    expect(written.status).toBe(200);
    const aggs = {
      mixed_terms: { terms: { field: 'nums' } },
      mixed_under: { terms: { field: 'category' }, aggs: { n: { terms: { field: 'nums', size: 3 } } } },
      missing_hist: { histogram: { field: 'words', interval: 100, missing: 0 } },
      by_metric: {
        terms: { field: 'category', order: { w: 'desc' } },
        aggs: { w: { avg: { field: 'words' } } },
      },
      pipeline_under: {
        date_histogram: { field: 'day', calendar_interval: 'day' },
        aggs: { w: { sum: { field: 'words' } }, run: { cumulative_sum: { buckets_path: 'w' } } },
      },
    };
    const out = await expectSame(
      ['cols', 'cols-mixed'],
      { ...aggs, columnar: { cardinality: { field: 'words' } } },
      undefined,
      [...Object.keys(aggs)],
    );
    expect(out.mixed_terms.buckets.length).toBeGreaterThan(0);
  });

  it('fails with too_many_buckets_exception as the SQL path does', async () => {
    const aggs = { hourly: { date_histogram: { field: 'when', fixed_interval: '1h' } } };
    const before = answered();
    const response = await call(server.url, 'POST', '/cols/_search', { size: 0, aggs });
    expect(answered()).toBe(before);
    const ctx = await context(['cols']);
    const matched: MatchedSet = {
      sql: 'SELECT doc_key FROM documents WHERE index_id = ANY($1::bigint[])',
      params: [ctx.indexIds],
      all: true,
    };
    const error = await runAggregations(pool, { ...ctx, columnar: false }, matched, aggs).catch(
      (e: Error) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((response.json as Json).error.type).toBe('too_many_buckets_exception');
    expect((response.json as Json).error.reason).toBe((error as Error).message);
  });

  it('reads the columns, and falls back to doc_values rows for what it does not cover', async () => {
    const id = await indexId('cols-b');
    const body = (aggs: unknown) => ({ size: 0, aggs });
    const before = (
      await call(server.url, 'POST', '/cols-b/_search', body({ c: { terms: { field: 'category' } } }))
    ).json as Json;
    expect(before.aggregations.c.buckets.length).toBeGreaterThan(0);
    await pool.query('DELETE FROM doc_value_columns WHERE index_id = $1', [id]);
    try {
      const columns = (
        await call(server.url, 'POST', '/cols-b/_search', body({ c: { terms: { field: 'category' } } }))
      ).json as Json;
      expect(columns.aggregations.c.buckets).toEqual([]);
      // `missing` is not covered: the SQL path answers, from the rows.
      const rows = (
        await call(
          server.url,
          'POST',
          '/cols-b/_search',
          body({ c: { terms: { field: 'category', missing: 'none' } } }),
        )
      ).json as Json;
      expect(rows.aggregations.c.buckets.length).toBeGreaterThan(1);
    } finally {
      await pool.query('SELECT doc_value_columns_rebuild($1)', [id]);
    }
  });
});
