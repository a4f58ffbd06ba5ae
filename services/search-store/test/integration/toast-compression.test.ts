import { client8 } from '../support/http';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';

describe('compression of large values (migration 0006)', () => {
  let server: RunningSearchStore;
  beforeAll(async () => {
    server = await startSearchStore();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('stores long token streams and sources with lz4 where the server has it, and reads them back', async () => {
    // 800 words: a token stream of 3.2 kB (int4 term ids, migration 0028) and a source of ~6 kB, both
    // past the ~2 kB TOAST threshold.
    const words = Array.from({ length: 800 }, (_, i) => `word${i % 97}`);
    words[250] = 'needle';
    words[251] = 'haystack';
    const es = client8(server.url);
    await es.index({ index: 'long', id: '1', document: { body: words.join(' ') }, refresh: true });
    const { rows } = await server.pool.query<{ supported: boolean; tokens: string; source: string }>(
      `SELECT EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) AS supported,
              (SELECT pg_column_compression(dt.term_ids) FROM doc_tokens dt JOIN fields f USING (index_id, field_id)
                WHERE f.path = 'body') AS tokens,
              (SELECT pg_column_compression(d.source) FROM documents d WHERE d.id = '1') AS source`,
    );
    const expected = rows[0]!.supported ? 'lz4' : 'pglz';
    expect(rows[0]).toMatchObject({ tokens: expected, source: expected });
    // Positions come back from the compressed stream: the phrase matches at 250-251 and not reversed.
    const hit = await es.search({ index: 'long', query: { match_phrase: { body: 'needle haystack' } } });
    expect(hit.hits.hits.map((h) => h._id)).toEqual(['1']);
    const miss = await es.search({ index: 'long', query: { match_phrase: { body: 'haystack needle' } } });
    expect(miss.hits.hits).toEqual([]);
  });
});
