import { useSearchStore } from '../support/use-search-store';
import { call, client8, failure } from '../support/http';

const ndjson = (...lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
const NDJSON = { 'content-type': 'application/x-ndjson' };

/**
 * Versions and compare-and-set inside _bulk item metadata (issue 20): ES BulkRequest#validate checks
 * every item before any runs and fails the whole request with all items' errors, numbered; the
 * parser itself refuses an unknown version type and versioned updates.
 */
describe('bulk item versions and validation', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  const stored = async (index: string) =>
    (
      await server.pool.query<{ id: string; version: string }>(
        'SELECT d.id, d.version FROM documents d JOIN indices i USING (index_id) WHERE i.name = $1 ORDER BY d.id',
        [index],
      )
    ).rows;
  beforeAll(async () => {
    await es().index({ index: 'v', id: 'kept', document: { a: 1 }, refresh: true });
  });

  it('fails the whole request with every item’s validation errors and writes nothing', async () => {
    const response = await call(
      server.url,
      'POST',
      '/v/_bulk',
      ndjson(
        { index: { _id: 'ok' } },
        { a: 1 },
        { index: { _id: 'internal', version: 3 } },
        { a: 2 },
        { create: { _id: 'c', version_type: 'external', version: 4 } },
        { a: 3 },
        { index: { version: 7, version_type: 'external' } },
        { a: 4 },
        { delete: { _id: 'kept', if_seq_no: 0 } },
        { index: { _id: 'neg', version: -5, version_type: 'external' } },
        { a: 5 },
      ),
      NDJSON,
    );
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      error: {
        root_cause: [
          {
            type: 'action_request_validation_exception',
            reason:
              'Validation Failed: ' +
              '1: internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead;' +
              '2: create operations only support internal versioning. use index instead;' +
              '3: an id must be provided if version type or value are set;' +
              '4: ifSeqNo is set, but primary term is [0];' +
              '5: illegal version value [-5] for version type [EXTERNAL];',
          },
        ],
        type: 'action_request_validation_exception',
        reason:
          'Validation Failed: ' +
          '1: internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead;' +
          '2: create operations only support internal versioning. use index instead;' +
          '3: an id must be provided if version type or value are set;' +
          '4: ifSeqNo is set, but primary term is [0];' +
          '5: illegal version value [-5] for version type [EXTERNAL];',
      },
      status: 400,
    });
    // Nothing ran: the valid first item was not written either, and `kept` is still there.
    expect(await stored('v')).toEqual([{ id: 'kept', version: '1' }]);
  });

  it('collects a missing index and a missing id with the version errors', async () => {
    const response = await call(
      server.url,
      'POST',
      '/_bulk',
      ndjson({ index: { _id: 'x' } }, { a: 1 }, { delete: { _index: 'v' } }),
      NDJSON,
    );
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      error: {
        type: 'action_request_validation_exception',
        reason: 'Validation Failed: 1: index is missing;2: id is missing;',
      },
    });
  });

  it('refuses an unknown version type and a versioned update for the whole request', async () => {
    const unknown = await call(
      server.url,
      'POST',
      '/v/_bulk',
      ndjson({ index: { _id: 'u', version_type: 'force' } }, { a: 1 }),
      NDJSON,
    );
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({
      error: { type: 'illegal_argument_exception', reason: 'No version type match [force]' },
    });
    const update = await call(
      server.url,
      'POST',
      '/v/_bulk',
      ndjson({ update: { _id: 'kept', version: 2, version_type: 'external' } }, { doc: { a: 9 } }),
      NDJSON,
    );
    expect(update.status).toBe(400);
    expect(update.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason:
          'Update requests do not support versioning. Please use `if_seq_no` and `if_primary_term` instead',
      },
    });
    const notANumber = await call(
      server.url,
      'POST',
      '/v/_bulk',
      ndjson({ index: { _id: 'n', version: 'two', version_type: 'external' } }, { a: 1 }),
      NDJSON,
    );
    expect(notANumber.status).toBe(400);
    expect(notANumber.json).toMatchObject({ error: { type: 'illegal_argument_exception' } });
    expect(await stored('v')).toEqual([{ id: 'kept', version: '1' }]);
  });

  it('applies valid external versions per item, a stale one failing only its item', async () => {
    const result = await es().bulk({
      index: 'v',
      operations: [
        { index: { _id: 'ext', version: 5, version_type: 'external' } },
        { a: 1 },
        { index: { _id: 'ext', version: 3, version_type: 'external' } },
        { a: 2 },
        { index: { _id: 'ext', version: '9', version_type: 'external_gte' } },
        { a: 3 },
        { delete: { _id: 'kept', if_seq_no: 0, if_primary_term: 1 } },
      ],
    });
    expect(result.errors).toBe(true);
    expect(result.items.map((item) => Object.values(item)[0]?.status)).toEqual([201, 409, 200, 200]);
    expect(result.items[1]?.index?.error?.type).toBe('version_conflict_engine_exception');
    expect(result.items[2]?.index?._version).toBe(9);
    expect(await stored('v')).toEqual([{ id: 'ext', version: '9' }]);
    const source = await es().get({ index: 'v', id: 'ext' });
    expect(source._source).toEqual({ a: 3 });
  });

  it('keeps the URL write API on the same rules', async () => {
    const put = await failure(es().index({ index: 'v', id: 'w', document: {}, version: 2 }));
    expect(put.status).toBe(400);
    expect(put.body).toMatchObject({
      error: {
        reason:
          'Validation Failed: 1: internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead;',
      },
    });
  });
});
