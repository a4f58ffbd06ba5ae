import { Pool } from 'pg';
import { createTestDatabase } from '@acme/testkit';
import { SEARCH_SCHEMA } from '../support/search-schema';
import type { AggContext, AggField, MatchedSet } from '../../src/aggs/agg-context';
import { makeTestTranslator } from '../support/agg-query-translator';

export const FIELDS: Record<string, { id: number; type: string }> = {
  category: { id: 1, type: 'keyword' },
  price: { id: 2, type: 'double' },
  qty: { id: 3, type: 'long' },
  in_stock: { id: 4, type: 'boolean' },
  date: { id: 5, type: 'date' },
  tags: { id: 6, type: 'keyword' },
  name: { id: 7, type: 'text' },
};

export const DOCS: Array<{ id: string; source: Record<string, unknown> }> = [
  {
    id: '1',
    source: {
      name: 'red apple',
      category: 'a',
      price: 10,
      qty: 1,
      in_stock: true,
      date: '2020-01-01T10:00:00Z',
      tags: ['x', 'y'],
    },
  },
  {
    id: '2',
    source: {
      name: 'green apple',
      category: 'a',
      price: 20,
      qty: 2,
      in_stock: false,
      date: '2020-01-15T00:00:00Z',
      tags: ['x'],
    },
  },
  {
    id: '3',
    source: {
      name: 'banana',
      category: 'b',
      price: 30.5,
      qty: 3,
      in_stock: true,
      date: '2020-02-03T00:00:00Z',
      tags: [],
    },
  },
  { id: '4', source: { name: 'cherry', category: 'c', price: 150, qty: 4, date: '2020-03-31T23:30:00Z' } },
  { id: '5', source: { name: 'date fruit', category: 'a', qty: 5 } },
];

export interface AggFixture {
  pool: Pool;
  indexId: string;
  ctx: AggContext;
  all: MatchedSet;
  none: MatchedSet;
  stop(): Promise<void>;
}

/** A migrated database with one index whose fields, documents and doc_values are written directly. */
export async function createAggFixture(): Promise<AggFixture> {
  const databaseUrl = await createTestDatabase('aggs', SEARCH_SCHEMA);
  const pool = new Pool({ connectionString: databaseUrl, max: 2 });
  const { rows } = await pool.query<{ index_id: string }>(
    `INSERT INTO indices (name, uuid) VALUES ('products', 'uuid-products-0000000000') RETURNING index_id`,
  );
  const indexId = (rows[0] as { index_id: string }).index_id;
  for (const [path, f] of Object.entries(FIELDS)) {
    await pool.query('INSERT INTO fields (index_id, field_id, path, type) VALUES ($1, $2, $3, $4)', [
      indexId,
      f.id,
      path,
      f.type,
    ]);
  }
  for (const [seq, doc] of DOCS.entries()) {
    const inserted = await pool.query<{ doc_key: string }>(
      'INSERT INTO documents (index_id, id, source, version, seq_no) VALUES ($1, $2, $3, 1, $4) RETURNING doc_key',
      [indexId, doc.id, doc.source, seq],
    );
    const docKey = (inserted.rows[0] as { doc_key: string }).doc_key;
    for (const [path, raw] of Object.entries(doc.source)) {
      const f = FIELDS[path] as { id: number; type: string };
      if (f.type === 'text') continue;
      for (const v of ([] as unknown[]).concat(raw)) {
        const num =
          f.type === 'keyword'
            ? null
            : f.type === 'date'
              ? Date.parse(v as string)
              : f.type === 'boolean'
                ? Number(v)
                : v;
        const kw = f.type === 'keyword' ? v : null;
        await pool.query(
          'INSERT INTO doc_values (index_id, field_id, doc_key, num, kw) VALUES ($1, $2, $3, $4, $5)',
          [indexId, f.id, docKey, num, kw],
        );
      }
    }
  }
  // The rows were written directly: the column-wise doc values (migration 0027) are built from them.
  await pool.query('SELECT doc_value_columns_rebuild($1)', [indexId]);
  const fieldsByPath = (path: string): AggField[] => {
    const f = FIELDS[path];
    return f ? [{ indexId, indexName: 'products', fieldId: f.id, type: f.type }] : [];
  };
  return {
    pool,
    indexId,
    ctx: { indexIds: [indexId], fieldsByPath, translateQuery: makeTestTranslator(indexId, FIELDS) },
    all: { sql: 'SELECT doc_key FROM documents WHERE index_id = $1', params: [indexId] },
    none: { sql: 'SELECT doc_key FROM documents WHERE index_id = $1 AND false', params: [indexId] },
    stop: () => pool.end(),
  };
}
