import { Pool } from 'pg';
import { createIndexFixture, type IndexFixture } from '../../index/support/index-fixture';
import { createSearchRunner } from '../../../src/search/searcher';

let fx: IndexFixture;
let fastPool: Pool;
let checkouts = 0;
beforeAll(async () => {
  fx = await createIndexFixture();
  // The fast path's own pool, to the same database: every client it hands out is counted.
  fastPool = new Pool({ connectionString: fx.pool.options.connectionString, max: 2 });
  fastPool.on('acquire', () => (checkouts += 1));
});
afterAll(async () => {
  await fastPool.end();
  await fx.end();
});

describe('SearchOptions.fastMatch', () => {
  it('false sends a search the fast path covers through the SQL plans, with the same answer', async () => {
    const index = await fx.createIndex({ properties: { t: { type: 'text' } } });
    await fx.putDocs(index, { a: { t: 'red fox' }, b: { t: 'red dog' }, c: { t: 'blue fox' } });
    const body = { query: { match: { t: 'fox' } } };
    const target = { index: index.name, ignoreUnavailable: false };
    const strip = (response: unknown) => ({ ...(response as Record<string, unknown>), took: 0 });

    const fast = await createSearchRunner({ pool: fx.pool, fastPool })(target, body, {});
    // The default takes the fast path: without this the next assertion would prove nothing.
    expect(checkouts).toBeGreaterThan(0);

    checkouts = 0;
    const sql = await createSearchRunner({ pool: fx.pool, fastPool, options: { fastMatch: false } })(
      target,
      body,
      {},
    );
    expect(checkouts).toBe(0);
    expect(strip(sql)).toEqual(strip(fast));
    expect((sql as { hits: { total: unknown } }).hits.total).toEqual({ value: 2, relation: 'eq' });
  });
});
