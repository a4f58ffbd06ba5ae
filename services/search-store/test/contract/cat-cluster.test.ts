import { useSearchStore } from '../support/use-search-store';
import { call, client8, failure } from '../support/http';

// ES "cat health", "cat count" and "cat aliases": RestTable text and format=json, like _cat/indices.
describe('_cat/health, _cat/count, _cat/aliases', () => {
  const server = useSearchStore({ CLUSTER_NAME: 'cat-cluster' });
  beforeAll(async () => {
    const es = client8(server.url);
    await es.indices.create({ index: 'logs-1', settings: { number_of_replicas: 0 } });
    await es.indices.create({
      index: 'logs-2',
      settings: { number_of_replicas: 1 },
      mappings: { properties: { foo: { type: 'keyword' } } },
    });
    await es.bulk({
      refresh: true,
      operations: [
        { index: { _index: 'logs-1' } },
        { foo: 'a' },
        { index: { _index: 'logs-1' } },
        { foo: 'b' },
        { index: { _index: 'logs-2' } },
        { foo: 'c' },
      ],
    });
    await es.indices.putAlias({ index: 'logs-1', name: 'simple' });
    await es.indices.putAlias({
      index: 'logs-2',
      name: 'complex',
      index_routing: 'ir',
      search_routing: 'sr1,sr2',
      is_write_index: true,
      filter: { term: { foo: 'c' } },
    });
  });

  describe('_cat/health', () => {
    it('prints one row with the time, the cluster and its shard counts', async () => {
      const before = Math.floor(Date.now() / 1000);
      const response = await call(server.url, 'GET', '/_cat/health?v');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain; charset=UTF-8');
      const [header, row, extra] = response.text.split('\n');
      expect(header?.split(/ +/)).toEqual([
        'epoch',
        'timestamp',
        'cluster',
        'status',
        'node.total',
        'node.data',
        'shards',
        'pri',
        'relo',
        'init',
        'unassign',
        'unassign.pri',
        'pending_tasks',
        'max_task_wait_time',
        'active_shards_percent',
      ]);
      const cells = row?.trim().split(/ +/) ?? [];
      expect(Number(cells[0])).toBeGreaterThanOrEqual(before);
      expect(cells[1]).toMatch(/^\d\d:\d\d:\d\d$/);
      expect(cells.slice(2)).toEqual([
        'cat-cluster',
        'yellow',
        '1',
        '1',
        '2',
        '2',
        '0',
        '0',
        '1',
        '0',
        '0',
        '-',
        '66.7%',
      ]);
      expect(extra).toBe('');
      // Right-aligned cells are padded to the header's width.
      expect(row?.endsWith('                66.7%')).toBe(true);
    });

    it('answers JSON with string values, drops the time columns with ts=false, picks columns with h', async () => {
      const json = await call(server.url, 'GET', '/_cat/health?format=json&ts=false');
      expect(json.json).toEqual([
        {
          cluster: 'cat-cluster',
          status: 'yellow',
          'node.total': '1',
          'node.data': '1',
          shards: '2',
          pri: '2',
          relo: '0',
          init: '0',
          unassign: '1',
          'unassign.pri': '0',
          pending_tasks: '0',
          max_task_wait_time: '-',
          active_shards_percent: '66.7%',
        },
      ]);
      const picked = await call(server.url, 'GET', '/_cat/health?h=st,asp,epoch&ts=false');
      expect(picked.text).toMatch(/^yellow 66\.7% \d+\n$/);
    });

    it('refuses a bad ts and an unknown parameter', async () => {
      const ts = await call(server.url, 'GET', '/_cat/health?ts=maybe');
      expect(ts.status).toBe(400);
      expect(ts.json).toMatchObject({ error: { type: 'illegal_argument_exception' } });
      const unknown = await call(server.url, 'GET', '/_cat/health?index=x');
      expect(unknown.status).toBe(400);
    });
  });

  describe('_cat/count', () => {
    it('counts every index, or those an expression names', async () => {
      const all = await call(server.url, 'GET', '/_cat/count?h=count');
      expect(all.text).toBe('3\n');
      const one = await call(server.url, 'GET', '/_cat/count/logs-1?format=json&ts=false');
      expect(one.json).toEqual([{ count: '2' }]);
      const viaAlias = await call(server.url, 'GET', '/_cat/count/complex?h=dc');
      expect(viaAlias.text).toBe('1\n');
      const row = await call(server.url, 'GET', '/_cat/count/logs-*?v');
      expect(row.text).toMatch(/^epoch +timestamp +count\n\d+ +\d\d:\d\d:\d\d +3\n$/);
    });

    it('answers 404 for a missing index, through raw HTTP and the official client', async () => {
      const response = await call(server.url, 'GET', '/_cat/count/missing');
      expect(response.status).toBe(404);
      expect(response.json).toMatchObject({ error: { type: 'index_not_found_exception' }, status: 404 });
      const viaClient = await failure(client8(server.url).cat.count({ index: 'missing' }));
      expect(viaClient.status).toBe(404);
    });

    it('works through the official client', async () => {
      const counts = await client8(server.url).cat.count({ index: 'logs-2', format: 'json' });
      expect(counts).toEqual([expect.objectContaining({ count: '1' })]);
    });
  });

  describe('_cat/aliases', () => {
    it('prints every alias link with its filter, routing and write flag', async () => {
      const response = await call(server.url, 'GET', '/_cat/aliases?v&s=alias');
      expect(response.status).toBe(200);
      expect(response.text).toBe(
        [
          'alias   index  filter routing.index routing.search is_write_index',
          'complex logs-2 *      ir            sr1,sr2        true',
          'simple  logs-1 -      -             -              -',
          '',
        ].join('\n'),
      );
    });

    it('narrows to names and wildcards; a name nothing matches is an empty table', async () => {
      const one = await call(server.url, 'GET', '/_cat/aliases/simple?h=alias,index');
      expect(one.text).toBe('simple logs-1\n');
      const list = await call(server.url, 'GET', '/_cat/aliases/simple,comp*?h=a&s=a:desc');
      expect(list.text).toBe('simple\ncomplex\n');
      const none = await call(server.url, 'GET', '/_cat/aliases/nothing');
      expect(none.status).toBe(200);
      expect(none.text).toBe('');
    });

    it('answers JSON through the official client and refuses an unknown sort key', async () => {
      const rows = await client8(server.url).cat.aliases({ name: 'complex', format: 'json' });
      expect(rows).toEqual([
        {
          alias: 'complex',
          index: 'logs-2',
          filter: '*',
          'routing.index': 'ir',
          'routing.search': 'sr1,sr2',
          is_write_index: 'true',
        },
      ]);
      const bad = await call(server.url, 'GET', '/_cat/aliases?s=colour');
      expect(bad.status).toBe(400);
      expect(bad.json).toMatchObject({
        error: { type: 'illegal_argument_exception', reason: 'Unable to sort by unknown sort key `colour`' },
      });
    });
  });
});
