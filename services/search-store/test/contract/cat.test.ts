import { useSearchStore } from '../support/use-search-store';
import { statfs } from 'node:fs/promises';
import { call, client8 } from '../support/http';

describe('cat APIs', () => {
  const server = useSearchStore();
  beforeAll(async () => {
    const es = client8(server.url);
    await es.indices.create({ index: 'test', settings: { number_of_replicas: 0 } });
    await es.bulk({
      operations: [
        { index: { _index: 'test' } },
        { a: 'x'.repeat(2000) },
        { index: { _index: 'test' } },
        { a: 'y' },
      ],
    });
    await es.indices.create({ index: 'a-much-longer-name' });
  });

  // The store is the documents plus every table of the inverted index the engine wrote for them.
  const storeTables = [
    'documents',
    'posting_blocks',
    'term_dictionary',
    'doc_values',
    'doc_value_columns',
    'doc_tokens',
    'field_stats',
    'fields',
  ];
  async function tableBytes(name: string, table: string): Promise<number> {
    const { rows } = await server.pool.query<{ bytes: string }>(
      `SELECT coalesce(sum(pg_column_size(t.*)), 0)::bigint AS bytes FROM ${table} t
        WHERE index_id = (SELECT index_id FROM indices WHERE name = $1)`,
      [name],
    );
    return Number(rows[0]?.bytes ?? 0);
  }
  async function storeSize(name: string): Promise<number> {
    let total = 0;
    for (const table of storeTables) total += await tableBytes(name, table);
    return total;
  }

  it('prints the requested columns aligned as RestTable does, sizes right-aligned and real', async () => {
    const response = await call(
      server.url,
      'GET',
      '/_cat/indices?v&h=index,docs.count,store.size&s=index&bytes=b',
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=UTF-8');
    const size = response.text.trim().split('\n')[2]?.split(/ +/)[2] ?? '';
    // Row sizes can differ by a varlena header between plans: compare with a few bytes per row of slack
    // (the two documents plus their posting blocks, token streams, terms and doc values).
    expect(Math.abs(Number(size) - (await storeSize('test')))).toBeLessThanOrEqual(64);
    // The token streams weigh more than the slack: leaving them out fails here.
    expect(await tableBytes('test', 'doc_tokens')).toBeGreaterThan(64);
    const width = Math.max('store.size'.length, size.length);
    expect(response.text).toBe(
      'index              docs.count ' +
        'store.size'.padStart(width) +
        '\n' +
        'a-much-longer-name          0 ' +
        '0'.padStart(width) +
        '\n' +
        'test                        2 ' +
        size.padStart(width) +
        '\n',
    );
  });

  it('formats store.size in human units and supports aliases, sorting desc and JSON', async () => {
    const json = await call(server.url, 'GET', '/_cat/indices?format=json&h=i,dc,h,ss&s=dc:desc');
    const bytes = await call(server.url, 'GET', '/_cat/indices/test?format=json&h=ss&bytes=b');
    const size = Number((bytes.json as { ss: string }[])[0]?.ss);
    const human =
      size >= 1024 ? `${Math.floor((size / 1024) * 10) / 10}kb`.replace('.0kb', 'kb') : `${size}b`;
    expect(json.json).toEqual([
      { i: 'test', dc: '2', h: 'green', ss: human },
      { i: 'a-much-longer-name', dc: '0', h: 'yellow', ss: '0b' },
    ]);
  });

  it('prints the default columns without a header unless v, and nothing for no rows', async () => {
    const all = await call(server.url, 'GET', '/_cat/indices/test');
    expect(all.text.split('\n')[0]?.split(/ +/).slice(0, 7)).toEqual([
      'green',
      'open',
      'test',
      expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) as string,
      '1',
      '0',
      '2',
    ]);
    expect((await call(server.url, 'GET', '/_cat/indices/none-*')).text).toBe('');
    expect((await call(server.url, 'GET', '/_cat/indices/no-such')).status).toBe(404);
  });

  it('drops unknown h columns and refuses an unknown sort key', async () => {
    expect((await call(server.url, 'GET', '/_cat/indices?h=index,nope&s=index')).text).toBe(
      'a-much-longer-name\ntest\n',
    );
    const bad = await call(server.url, 'GET', '/_cat/indices?s=nope');
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ error: { reason: 'Unable to sort by unknown sort key `nope`' } });
  });

  it('reports disk figures of DATA_PATH in /_cat/nodes, right-aligned, with the header as requested', async () => {
    const fs = await statfs(server.config.DATA_PATH);
    const response = await call(
      server.url,
      'GET',
      '/_cat/nodes?v&h=name,dt,du,disk.avail&bytes=b&format=json',
    );
    const [row] = response.json as Record<string, string>[];
    expect(Number(row?.dt)).toBe(fs.blocks * fs.bsize);
    expect(Math.abs(Number(row?.['disk.avail']) - fs.bavail * fs.bsize)).toBeLessThan(512 * 1024 * 1024);
    expect(Number(row?.du) + Number(row?.['disk.avail'])).toBe(Number(row?.dt));
    const text = await call(server.url, 'GET', '/_cat/nodes?v&h=name,disk.*');
    const [header, line] = text.text.split('\n');
    expect(header).toMatch(/^name +disk\.total +disk\.used +disk\.avail +disk\.used_percent$/);
    expect(line).toMatch(/^node-1 +[\d.]+[kmgtp]?b +[\d.]+[kmgtp]?b +[\d.]+[kmgtp]?b +[\d.]+$/);
    expect(header?.length).toBe(line?.length);
  });
});
