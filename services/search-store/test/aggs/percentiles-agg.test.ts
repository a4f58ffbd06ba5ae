import { runAggregations } from '../../src/aggs/run-aggregations';
import type { AggField } from '../../src/aggs/agg-context';
import { createAggFixture, type AggFixture } from './aggs-fixture';
import { fixtureAggsFailure, runFixtureAggs, type Json } from './run-fixture-aggs';

/* Fixture prices 10, 20, 30.5, 150; qty 1..5. */
let fx: AggFixture;
beforeAll(async () => {
  fx = await createAggFixture();
});
afterAll(async () => {
  await fx.stop();
});

const aggs = (body: unknown) => runFixtureAggs(fx, body);
/** The error's type and reason (the cases here do not compare its status). */
async function failure(body: unknown): Promise<{ type: string; reason: string }> {
  const { type, reason } = await fixtureAggsFailure(fx, body);
  return { type, reason };
}

/** Elasticsearch's t-digest answer while every value is its own centroid: rank q·n − ½, clamped. */
function tdigestQuantile(sorted: number[], q: number): number {
  const n = sorted.length;
  const rank = Math.min(n - 1, Math.max(0, q * n - 0.5));
  const lo = Math.floor(rank);
  const hi = Math.min(n - 1, lo + 1);
  return (sorted[lo] as number) + (rank - lo) * ((sorted[hi] as number) - (sorted[lo] as number));
}

describe('percentiles aggregation', () => {
  it('answers the default percents keyed by Java doubles, as ES’s t-digest on small sets', async () => {
    const out = await aggs({
      p: { percentiles: { field: 'price' } },
      q: { percentiles: { field: 'qty', percents: [50, 25, 75] } },
    });
    expect(out.p).toEqual({
      values: { '1.0': 10, '5.0': 10, '25.0': 15, '50.0': 25.25, '75.0': 90.25, '95.0': 150, '99.0': 150 },
    });
    expect(out.q).toEqual({ values: { '25.0': 1.75, '50.0': 3, '75.0': 4.25 } });
  });

  it('keyed: false lists {key, value}; an empty set gives null values; date fields add _as_string', async () => {
    const out = await aggs({
      p: { percentiles: { field: 'qty', percents: [99.9], keyed: false } },
      none: {
        filter: { term: { category: 'zzz' } },
        aggs: { p: { percentiles: { field: 'qty', percents: [50] } } },
      },
      d: { percentiles: { field: 'date', percents: [0] } },
    });
    expect(out.p).toEqual({ values: [{ key: 99.9, value: 5 }] });
    expect(out.none.p).toEqual({ values: { '50.0': null } });
    expect(out.d.values).toEqual({
      '0.0': Date.UTC(2020, 0, 1, 10),
      '0.0_as_string': '2020-01-01T10:00:00.000Z',
    });
  });

  it('is exact on 10,000 values (ES’s t-digest would be approximate there)', async () => {
    const values = Array.from({ length: 10_000 }, (_v, i) => ((i * 7919) % 10_007) / 3);
    await fx.pool.query(
      `INSERT INTO doc_values (index_id, field_id, doc_key, num)
       SELECT $1, 99, 1000000 + i, v FROM unnest($2::float8[]) WITH ORDINALITY AS u(v, i)`,
      [fx.indexId, values],
    );
    // The writer keeps the column-wise doc values with the rows; rows written by hand need a rebuild.
    await fx.pool.query('SELECT doc_value_columns_rebuild($1)', [fx.indexId]);
    const fieldsByPath = (path: string): AggField[] =>
      path === 'big' ? [{ indexId: fx.indexId, indexName: 'products', fieldId: 99, type: 'double' }] : [];
    const matched = {
      sql: 'SELECT doc_key FROM doc_values WHERE index_id = $1 AND field_id = 99',
      params: [fx.indexId],
    };
    const percents = [0.1, 1, 12.5, 50, 87.5, 99, 99.9];
    const out = (await runAggregations(fx.pool, { ...fx.ctx, fieldsByPath }, matched, {
      p: { percentiles: { field: 'big', percents, keyed: false } },
    })) as Json;
    const sorted = [...values].sort((a, b) => a - b);
    for (const [i, p] of percents.entries()) {
      expect(out.p.values[i].value).toBeCloseTo(tdigestQuantile(sorted, p / 100), 9);
    }
  });

  it('refuses bad percents, a negative compression, keyword fields and sub-aggregations', async () => {
    expect(await failure({ p: { percentiles: { field: 'qty', tdigest: { compression: -1 } } } })).toEqual({
      type: 'illegal_argument_exception',
      reason: '[compression] must be greater than or equal to 0. Found [-1.0] in [p]',
    });
    expect((await failure({ p: { percentiles: { field: 'qty', percents: [] } } })).type).toBe(
      'illegal_argument_exception',
    );
    expect((await failure({ p: { percentiles: { field: 'qty', percents: null } } })).type).toBe(
      'illegal_argument_exception',
    );
    expect((await failure({ p: { percentiles: { field: 'qty', percents: ['foo'] } } })).type).toBe(
      'x_content_parse_exception',
    );
    expect((await failure({ p: { percentiles: { field: 'qty', percents: [101] } } })).reason).toBe(
      'percent must be in [0,100], got [101.0]',
    );
    expect((await failure({ p: { percentiles: { field: 'category' } } })).reason).toBe(
      'Field [category] of type [keyword] is not supported for aggregation [percentiles]',
    );
    expect(
      (await failure({ p: { percentiles: { field: 'qty' }, aggs: { x: { max: { field: 'qty' } } } } }))
        .reason,
    ).toBe('Aggregator [p] of type [percentiles] cannot accept sub-aggregations');
  });

  it('a pipeline reads a percentile by its key', async () => {
    const out = await aggs({
      cats: {
        terms: { field: 'category' },
        aggs: { p: { percentiles: { field: 'price', percents: [50] } } },
      },
      top: { max_bucket: { buckets_path: 'cats>p.50' } },
      first: { max_bucket: { buckets_path: 'cats>p' } },
    });
    expect(out.top).toEqual({ value: 150, keys: ['c'] });
    expect(out.first).toEqual({ value: 150, keys: ['c'] });
  });
});
