import { useSearchStore } from '../support/use-search-store';
import { call } from '../support/http';

describe('concurrent writes', () => {
  const server = useSearchStore();

  it('auto-creates one index for parallel first writes and hands out each seq_no once', async () => {
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call(server.url, 'PUT', `/racy/_doc/${i}`, { i, label: `doc ${i}` }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array.from({ length: 12 }, () => 201));
    const seqNos = responses.map((r) => (r.json as { _seq_no: number })._seq_no).sort((a, b) => a - b);
    expect(seqNos).toEqual(Array.from({ length: 12 }, (_, i) => i));
    const { rows } = await server.pool.query("SELECT count(*)::int AS n FROM indices WHERE name = 'racy'");
    expect(rows).toEqual([{ n: 1 }]);
  });

  it('runs bulks that auto-create the same indices in opposite orders without deadlocking', async () => {
    const bulk = (first: string, second: string) =>
      call(
        server.url,
        'POST',
        '/_bulk',
        [{ index: { _index: first } }, { a: 1 }, { index: { _index: second } }, { a: 2 }]
          .map((l) => JSON.stringify(l))
          .join('\n') + '\n',
        { 'content-type': 'application/x-ndjson' },
      );
    for (let round = 0; round < 3; round += 1) {
      const responses = await Promise.all([
        bulk(`dl-a${round}`, `dl-b${round}`),
        bulk(`dl-b${round}`, `dl-a${round}`),
      ]);
      expect(responses.map((r) => [r.status, (r.json as { errors: boolean }).errors])).toEqual([
        [200, false],
        [200, false],
      ]);
    }
  });

  it('lets exactly one of many parallel creates of the same id win', async () => {
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call(server.url, 'PUT', '/racy/_create/same', { i })),
    );
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 409)).toHaveLength(7);
  });

  it('keeps every increment of parallel partial updates (no lost update)', async () => {
    await call(server.url, 'PUT', '/racy/_doc/counter', { tags: [] });
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call(server.url, 'POST', '/racy/_update/counter', { doc: { [`f${i}`]: i } }),
      ),
    );
    const got = await call(server.url, 'GET', '/racy/_source/counter');
    expect(Object.keys(got.json as object).sort()).toEqual(['f0', 'f1', 'f2', 'f3', 'f4', 'f5', 'tags']);
    const doc = await call(server.url, 'GET', '/racy/_doc/counter');
    expect((doc.json as { _version: number })._version).toBe(7);
  });
});
