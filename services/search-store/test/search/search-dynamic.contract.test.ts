import { startSearchFixture, type SearchFixture } from './search-fixture';

let fx: SearchFixture;
beforeAll(async () => (fx = await startSearchFixture()));
afterAll(() => fx.stop());

describe('documents indexed with dynamic mapping', () => {
  it('finds auto-created text, .keyword, long, float, boolean and date fields', async () => {
    const index = `dyn-${fx.suffix}`;
    await fx.es.bulk({
      refresh: true,
      operations: [
        { index: { _index: index, _id: '1' } },
        { name: 'Ann Lee', n: 3, score: 1.5, ok: true, at: '2024-03-01T10:00:00Z', nested: { city: 'Oslo' } },
        { index: { _index: index, _id: '2' } },
        {
          name: 'Bob Lee',
          n: 7,
          score: 2.5,
          ok: false,
          at: '2024-04-01T10:00:00Z',
          nested: { city: 'Rome' },
        },
      ],
    });
    const ids = async (query: Record<string, unknown>, sort?: unknown) =>
      (await fx.es.search({ index, query, ...(sort ? { sort: sort as never } : {}) })).hits.hits.map(
        (h) => h._id,
      );
    expect(await ids({ match: { name: 'lee' } })).toEqual(['1', '2']);
    expect(await ids({ term: { 'name.keyword': 'Bob Lee' } })).toEqual(['2']);
    expect(await ids({ range: { n: { gt: 3 } } })).toEqual(['2']);
    expect(await ids({ range: { score: { lte: 1.5 } } })).toEqual(['1']);
    expect(await ids({ term: { ok: true } })).toEqual(['1']);
    expect(await ids({ range: { at: { gte: '2024-03-15' } } })).toEqual(['2']);
    expect(await ids({ match: { 'nested.city': 'rome' } })).toEqual(['2']);
    expect(await ids({ exists: { field: 'nested' } })).toEqual(['1', '2']);
    expect(await ids({ match_all: {} }, [{ 'nested.city.keyword': 'desc' }])).toEqual(['2', '1']);
  });

  it('uses custom analyzers and keyword normalizers from the index settings, at index and at search time', async () => {
    const index = `custom-${fx.suffix}`;
    await fx.es.indices.create({
      index,
      settings: {
        analysis: {
          analyzer: {
            folded: { type: 'custom', tokenizer: 'standard', filter: ['lowercase', 'asciifolding'] },
          },
          normalizer: { folding: { type: 'custom', filter: ['lowercase', 'asciifolding'] } },
        },
      },
      mappings: {
        properties: {
          t: { type: 'text', analyzer: 'folded' },
          k: { type: 'keyword', normalizer: 'folding' },
        },
      },
    });
    await fx.es.index({ index, id: '1', document: { t: 'Crème Brûlée', k: 'Café' }, refresh: true });
    const ids = async (query: Record<string, unknown>) =>
      (await fx.es.search({ index, query })).hits.hits.map((h) => h._id);
    expect(await ids({ match: { t: 'CREME' } })).toEqual(['1']);
    expect(await ids({ term: { k: 'CAFÉ' } })).toEqual(['1']);
    expect(await ids({ prefix: { k: 'CA' } })).toEqual(['1']);
    const sorted = await fx.es.search({ index, sort: [{ k: 'asc' }] });
    expect(sorted.hits.hits[0]!.sort).toEqual(['cafe']);
    const analyzed = await fx.es.indices.analyze({ index, analyzer: 'folded', text: 'Déjà Vu' });
    expect(analyzed.tokens!.map((t) => t.token)).toEqual(['deja', 'vu']);
  });

  it('drops the whole inverted index with DELETE /<index>, and a clone searches like its source', async () => {
    const index = `gone-${fx.suffix}`;
    await fx.es.index({ index, id: '1', document: { t: 'fox', n: 1 }, refresh: true });
    await fx.es.indices.putSettings({ index, settings: { 'index.blocks.write': true } });
    await fx.es.indices.clone({ index, target: `${index}-copy` });
    const copy = await fx.es.search({ index: `${index}-copy`, query: { match: { t: 'fox' } } });
    const original = await fx.es.search({ index, query: { match: { t: 'fox' } } });
    expect(copy.hits.hits.map((h) => [h._id, h._score])).toEqual(
      original.hits.hits.map((h) => [h._id, h._score]),
    );
    const { rows } = await fx.store.pool.query<{ index_id: string }>(
      'SELECT index_id FROM indices WHERE name = $1',
      [index],
    );
    await fx.es.indices.delete({ index });
    const counts = await fx.store.pool.query(
      `SELECT (SELECT count(*) FROM postings WHERE index_id = $1)::int AS postings, (SELECT count(*) FROM terms WHERE index_id = $1)::int AS terms,
              (SELECT count(*) FROM doc_values WHERE index_id = $1)::int AS doc_values, (SELECT count(*) FROM field_stats WHERE index_id = $1)::int AS stats`,
      [rows[0]!.index_id],
    );
    expect(counts.rows[0]).toEqual({ postings: 0, terms: 0, doc_values: 0, stats: 0 });
  });

  it('answers the URL forms: q, size, sort, _source_includes, and GET /_search over every index', async () => {
    const res = await fetch(`${fx.store.url}/${fx.articles.name}/_search?q=title:fox&_source_includes=title`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { hits: { hits: { _id: string; _source: unknown }[] } };
    expect(body.hits.hits.map((h) => [h._id, h._source])).toEqual([['1', { title: 'quick fox' }]]);
    const sorted = (await (
      await fetch(`${fx.store.url}/${fx.articles.name}/_search?sort=views:desc&size=2`)
    ).json()) as {
      hits: { hits: { _id: string }[] };
    };
    expect(sorted.hits.hits.map((h) => h._id)).toEqual(['3', '1']);
    const all = await fx.es.search({ query: { match: { title: 'fox' } } });
    expect(all.hits.hits.map((h) => h._index).sort()).toEqual([fx.articles.name, fx.notes.name]);
  });

  it('applies min_score, custom highlight tags and prefix case_insensitive', async () => {
    const res = await fx.es.search({
      index: fx.articles.name,
      query: { match: { body: 'fox quick' } },
      min_score: 1.2,
      highlight: { pre_tags: ['<b>'], post_tags: ['</b>'], fields: { body: { number_of_fragments: 0 } } },
    });
    expect(res.hits.hits.map((h) => [h._id, h.highlight])).toEqual([
      ['1', { body: ['the <b>quick</b> brown <b>fox</b> jumps over the lazy dog'] }],
      ['4', { body: ['<b>fox</b> <b>fox</b> <b>fox</b> den'] }],
    ]);
    const prefixed = await fx.es.search({
      index: fx.articles.name,
      query: { prefix: { 'title.keyword': { value: 'QUICK', case_insensitive: true } } },
    });
    expect(prefixed.hits.hits.map((h) => h._id)).toEqual(['1']);
  });
});
