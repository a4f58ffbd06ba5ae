import type { Pool } from 'pg';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call, client8, failure } from '../support/http';

/**
 * `_delete_by_query` and `_update_by_query` (ES "Delete by query API", "Update by query API"; the
 * reindex module's REST tests delete_by_query/ and update_by_query/): counts, what is stored after,
 * statistics equal to an index written fresh, conflicts, max_docs, scripts, bad input.
 */
describe('delete_by_query and update_by_query', () => {
  let server: RunningSearchStore;
  const es = () => client8(server.url);
  let n = 0;
  const fresh = () => `bq-${++n}`;

  /** Every term's df/ttf and every field's stats of an index, by field path: comparable across indices. */
  async function statistics(pool: Pool, index: string): Promise<unknown> {
    const terms = await pool.query(
      `SELECT f.path, t.term, t.doc_freq::int, t.total_term_freq::int
       FROM terms t JOIN fields f USING (index_id, field_id) JOIN indices i USING (index_id)
       WHERE i.name = $1 AND t.doc_freq > 0 ORDER BY f.path, t.term`,
      [index],
    );
    const fields = await pool.query(
      `SELECT f.path, s.doc_count::int, s.sum_total_term_freq::int
       FROM field_stats s JOIN fields f USING (index_id, field_id) JOIN indices i USING (index_id)
       WHERE i.name = $1 AND s.doc_count > 0 ORDER BY f.path`,
      [index],
    );
    return { terms: terms.rows, fields: fields.rows };
  }

  async function seed(index: string, docs: Record<string, Record<string, unknown>>): Promise<void> {
    await es().indices.create({
      index,
      mappings: {
        properties: { user: { type: 'keyword' }, text: { type: 'text' }, level: { type: 'integer' } },
      },
    });
    await es().bulk({
      refresh: true,
      operations: Object.entries(docs).flatMap(([id, doc]) => [{ index: { _index: index, _id: id } }, doc]),
    });
  }

  const sourceOf = async (index: string, id: string) => (await es().get({ index, id }))._source;

  beforeAll(async () => {
    server = await startSearchStore();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('deletes the documents a query matches, in batches, and leaves statistics as if never written', async () => {
    const index = fresh();
    const docs: Record<string, Record<string, unknown>> = {};
    for (let i = 0; i < 7; i++)
      docs[String(i)] = { user: i % 2 ? 'kimchy' : 'junk', text: `word${i} shared text` };
    await seed(index, docs);
    const result = await es().deleteByQuery({
      index,
      scroll_size: 2,
      refresh: true,
      query: { term: { user: 'kimchy' } },
    });
    expect(result).toEqual({
      took: expect.any(Number),
      timed_out: false,
      total: 3,
      deleted: 3,
      batches: 2,
      version_conflicts: 0,
      noops: 0,
      retries: { bulk: 0, search: 0 },
      throttled_millis: 0,
      requests_per_second: -1,
      throttled_until_millis: 0,
      failures: [],
    });
    expect((await es().count({ index })).count).toBe(4);
    expect(await es().exists({ index, id: '1' })).toBe(false);
    // The same documents written to a fresh index: every term and field statistic agrees.
    const expected = fresh();
    await seed(expected, Object.fromEntries(Object.entries(docs).filter(([, d]) => d.user === 'junk')));
    expect(await statistics(server.pool, index)).toEqual(await statistics(server.pool, expected));
    // Deletes consume seq_nos: the next write continues after them.
    const next = await es().index({ index, id: 'new', document: { user: 'x' } });
    expect(next._seq_no).toBe(7 + 3);
  });

  it('answers 400 "query is missing" without a query, and 404 for a missing index', async () => {
    const missing = await call(server.url, 'POST', `/${fresh()}/_delete_by_query`, {});
    expect(missing.status).toBe(400);
    expect(missing.json).toMatchObject({
      error: {
        type: 'action_request_validation_exception',
        reason: 'Validation Failed: 1: query is missing;',
      },
    });
    const noIndex = await failure(es().deleteByQuery({ index: 'no-such-index', query: { match_all: {} } }));
    expect(noIndex.status).toBe(404);
    expect(noIndex.body).toMatchObject({ error: { type: 'index_not_found_exception' } });
  });

  it('refuses bad parameters with Elasticsearch messages', async () => {
    const index = fresh();
    await seed(index, { 1: { user: 'a' } });
    const cases: [string, number, string][] = [
      ['conflicts=cat', 400, 'conflicts may only be "proceed" or "abort" but was [cat]'],
      ['max_docs=-4', 400, '[max_docs] parameter cannot be negative, found [-4]'],
      ['max_docs=1&slices=2', 400, 'Validation Failed: 1: [max_docs] should be >= [slices];'],
      ['scroll_size=asdf', 400, 'Failed to parse int parameter [scroll_size] with value [asdf]'],
      [
        'requests_per_second=0',
        400,
        '[requests_per_second] must be a float greater than 0. Use -1 to disable throttling.',
      ],
      [
        'requests_per_second=unlimited',
        400,
        '[requests_per_second] must be a float greater than 0. Use -1 to disable throttling.',
      ],
      ['slices=junk', 400, '[slices] must be a positive integer or the string "auto"'],
      ['slices=0', 400, '[slices] must be a positive integer or the string "auto"'],
      [
        'slices=3',
        400,
        'slicing is not supported: every index has one shard, use [slices=1] or [slices=auto]',
      ],
    ];
    for (const [params, status, reason] of cases) {
      const response = await call(server.url, 'POST', `/${index}/_delete_by_query?${params}`, {
        query: { match_all: {} },
      });
      expect([
        params,
        response.status,
        (response.json as { error: { reason: string } }).error.reason,
      ]).toEqual([params, status, reason]);
    }
    const unknown = await call(server.url, 'POST', `/${index}/_delete_by_query?colour=red`, {
      query: { match_all: {} },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({ error: { type: 'illegal_argument_exception' } });
    const stored = await call(server.url, 'POST', `/${index}/_delete_by_query`, { stored_fields: ['_id'] });
    expect(stored.json).toMatchObject({
      error: { reason: 'Validation Failed: 1: stored_fields is not supported in this context;' },
    });
    const badQuery = await call(server.url, 'POST', `/${index}/_delete_by_query`, {
      query: { no_such_query: {} },
    });
    expect(badQuery.status).toBe(400);
    expect(badQuery.json).toMatchObject({ error: { type: 'parsing_exception' } });
    const badKey = await call(server.url, 'POST', `/${index}/_update_by_query`, { colour: 'red' });
    expect(badKey.json).toMatchObject({
      error: { type: 'parsing_exception', reason: 'Unknown key for a VALUE_STRING in [colour].' },
    });
    // Nothing was deleted by any refused request.
    expect((await es().count({ index })).count).toBe(1);
  });

  it('limits to max_docs from the URL or the body; slices=auto runs as one slice', async () => {
    const index = fresh();
    await seed(index, { 1: { user: 'kimchy' }, 2: { user: 'kimchy' }, 3: { user: 'kimchy' } });
    const url = await es().deleteByQuery({ index, max_docs: 1, slices: 'auto', query: { match_all: {} } });
    expect(url).toMatchObject({ total: 1, deleted: 1, batches: 1 });
    const body = await call(server.url, 'POST', `/${index}/_delete_by_query`, {
      max_docs: 1,
      query: { term: { user: 'kimchy' } },
    });
    expect(body.json).toMatchObject({ total: 1, deleted: 1 });
    expect((await es().count({ index })).count).toBe(1);
  });

  it('deletes through an alias and a wildcard over several indices', async () => {
    const a = `${fresh()}-multi-a`;
    const b = `${a.slice(0, -2)}-b`;
    await seed(a, { 1: { user: 'x' }, 2: { user: 'y' } });
    await seed(b, { 1: { user: 'x' } });
    await es().indices.putAlias({ index: a, name: `${a}-alias` });
    const viaAlias = await es().deleteByQuery({ index: `${a}-alias`, query: { term: { user: 'y' } } });
    expect(viaAlias).toMatchObject({ deleted: 1 });
    const viaWildcard = await es().deleteByQuery({
      index: `${a.slice(0, -2)}-*`,
      query: { term: { user: 'x' } },
    });
    expect(viaWildcard).toMatchObject({ total: 2, deleted: 2 });
    expect((await es().count({ index: `${a},${b}` })).count).toBe(0);
  });

  it('updates with a script: changes, noops and deletes, versions and seq_nos as Elasticsearch', async () => {
    const index = fresh();
    await seed(index, {
      1: { level: 9, text: 'old' },
      2: { level: 10, text: 'old' },
      3: { level: 11, text: 'old' },
      4: { level: 12, text: 'old' },
    });
    const result = await es().updateByQuery({
      index,
      refresh: true,
      script: {
        source:
          "int choice = ctx._source.level % 3; if (choice == 0) { ctx._source.text = 'new'; } " +
          "else if (choice == 1) { ctx.op = 'noop'; } else { ctx.op = 'delete'; }",
      },
    });
    expect(result).toEqual({
      took: expect.any(Number),
      timed_out: false,
      total: 4,
      updated: 2,
      deleted: 1,
      batches: 1,
      version_conflicts: 0,
      noops: 1,
      retries: { bulk: 0, search: 0 },
      throttled_millis: 0,
      requests_per_second: -1,
      throttled_until_millis: 0,
      failures: [],
    });
    expect(await sourceOf(index, '1')).toEqual({ level: 9, text: 'new' });
    expect(await sourceOf(index, '4')).toEqual({ level: 12, text: 'new' });
    expect(await sourceOf(index, '2')).toEqual({ level: 10, text: 'old' }); // noop
    expect(await es().exists({ index, id: '3' })).toBe(false);
    const updated = await es().get({ index, id: '1' });
    expect(updated._version).toBe(2);
    const noop = await es().get({ index, id: '2' });
    expect(noop._version).toBe(1);
    expect((await es().search({ index, query: { match: { text: 'new' } } })).hits.total).toEqual({
      value: 2,
      relation: 'eq',
    });
    const expected = fresh();
    await seed(expected, {
      1: { level: 9, text: 'new' },
      2: { level: 10, text: 'old' },
      4: { level: 12, text: 'new' },
    });
    expect(await statistics(server.pool, index)).toEqual(await statistics(server.pool, expected));
  });

  it('shows scripts ctx._version only with version=true, as Elasticsearch 8.4+', async () => {
    const index = fresh();
    await es().index({
      index,
      id: '1',
      document: { user: 'a' },
      version: 500,
      version_type: 'external',
      refresh: true,
    });
    const script = { source: 'ctx._source.old_version = ctx._version' };
    await es().updateByQuery({ index, version: true, script });
    expect(await sourceOf(index, '1')).toEqual({ user: 'a', old_version: 500 });
    await es().updateByQuery({ index, script });
    expect(await sourceOf(index, '1')).toEqual({ user: 'a', old_version: -1 });
    expect((await es().get({ index, id: '1' }))._version).toBe(502);
  });

  it('re-indexes in place without a script, so a field mapped afterwards becomes searchable', async () => {
    const index = fresh();
    await es().indices.create({
      index,
      mappings: { dynamic: false, properties: { user: { type: 'keyword' } } },
    });
    await es().index({ index, id: '1', document: { user: 'a', name: 'findme' }, refresh: true });
    expect((await es().count({ index, query: { match: { name: 'findme' } } })).count).toBe(0);
    await es().indices.putMapping({ index, properties: { name: { type: 'text' } } });
    const result = await es().updateByQuery({ index, refresh: true, conflicts: 'proceed' });
    expect(result).toMatchObject({ total: 1, updated: 1, noops: 0, failures: [] });
    expect((await es().count({ index, query: { match: { name: 'findme' } } })).count).toBe(1);
    const doc = await es().get({ index, id: '1' });
    expect(doc).toMatchObject({ _version: 2, _source: { user: 'a', name: 'findme' } });
  });

  it('fails a script that does not compile with a 400 and writes nothing', async () => {
    const index = fresh();
    await seed(index, { 1: { user: 'kimchy' } });
    const broken = await failure(es().updateByQuery({ index, script: { source: 'syntax errors are fun!' } }));
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({
      error: {
        type: 'script_exception',
        reason: 'compile error',
        lang: 'painless',
        script: 'syntax errors are fun!',
      },
    });
    const junkOp = await failure(es().updateByQuery({ index, script: { source: "ctx.op = 'junk'" } }));
    expect(junkOp.status).toBe(400);
    expect((await es().get({ index, id: '1' }))._version).toBe(1);
  });

  it('keeps exact statistics when bulk writes race an update_by_query (every document counted once)', async () => {
    const index = fresh();
    const docs: Record<string, Record<string, unknown>> = {};
    for (let i = 0; i < 120; i++) docs[String(i)] = { user: `u${i % 7}`, text: `alpha beta w${i % 11}` };
    await seed(index, docs);
    const running = es().updateByQuery({
      index,
      conflicts: 'proceed',
      scroll_size: 10,
      script: { source: "ctx._source.text = ctx._source.text + ' gamma'" },
    });
    // Meanwhile: rewrite and delete some documents through bulk, batch after batch.
    for (let round = 0; round < 6; round++) {
      await es().bulk({
        operations: Array.from({ length: 10 }, (_, k) => {
          const id = String((round * 37 + k * 13) % 120);
          return k % 4 === 0
            ? [{ delete: { _index: index, _id: id } }]
            : [{ index: { _index: index, _id: id } }, { user: 'racer', text: `delta w${k}` }];
        }).flat(),
      });
    }
    const result = await running;
    expect(result.total).toBe(120);
    expect((result.updated ?? 0) + (result.version_conflicts ?? 0)).toBe(120);
    expect(result.failures).toEqual([]);
    // Whatever interleaving happened, the index must agree with one written fresh from its documents.
    const stored = await es().search({ index, size: 200 });
    const expected = fresh();
    await seed(
      expected,
      Object.fromEntries(stored.hits.hits.map((h) => [h._id!, h._source as Record<string, unknown>])),
    );
    expect(await statistics(server.pool, index)).toEqual(await statistics(server.pool, expected));
    expect((await es().count({ index })).count).toBe(stored.hits.hits.length);
  });

  it('counts a document changed after the snapshot as a version conflict: 409 with abort, counted with proceed', async () => {
    const index = fresh();
    await seed(index, { 1: { user: 'a' }, 2: { user: 'b' } });
    // Hold the index row lock so the by-query stops at its first batch's write, after its snapshot.
    for (const conflicts of ['abort', 'proceed'] as const) {
      const holder = await server.pool.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT 1 FROM indices WHERE name = $1 FOR UPDATE', [index]);
        const running = call(server.url, 'POST', `/${index}/_delete_by_query?conflicts=${conflicts}`, {
          query: { match_all: {} },
        });
        await waitForLockWaiter(server.pool);
        // A write that got in first: document 1 changes under the by-query (seq_no and version move on).
        await holder.query(
          `UPDATE documents SET seq_no = seq_no + 100, version = version + 1
           WHERE index_id = (SELECT index_id FROM indices WHERE name = $1) AND id = '1'`,
          [index],
        );
        await holder.query('COMMIT');
        const response = await running;
        if (conflicts === 'abort') {
          expect(response.status).toBe(409);
          expect(response.json).toMatchObject({ deleted: 1, version_conflicts: 1, batches: 1 });
          const failures = (response.json as { failures: Record<string, unknown>[] }).failures;
          expect(failures).toEqual([
            {
              index,
              id: '1',
              cause: expect.objectContaining({
                type: 'version_conflict_engine_exception',
                reason: expect.stringMatching(/^\[1\]: version conflict, required seqNo \[\d+\]/),
                index,
                shard: '0',
              }),
              status: 409,
            },
          ]);
        } else {
          expect(response.status).toBe(200);
          expect(response.json).toMatchObject({ deleted: 0, version_conflicts: 1, failures: [] });
        }
        expect(await es().exists({ index, id: '1' })).toBe(true);
      } finally {
        holder.release();
      }
    }
  });
});

/** Waits until some backend waits on a lock (the by-query's batch behind the test's row lock). */
async function waitForLockWaiter(pool: Pool): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { rows } = await pool.query(
      "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
    );
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the by-query never waited on the lock');
}
