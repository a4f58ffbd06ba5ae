import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/**
 * The SQL of the inverted index writer: one round trip per table per batch (arrays through unnest),
 * rows sorted by their key so concurrent bulks lock shared rows (terms, field_stats) in the same order.
 */

/** Field ids for these paths, creating the missing ones (identity, so concurrent creators never collide). */
export async function saveFields(
  client: PoolClient,
  indexId: string,
  fields: { path: string; type: string }[],
): Promise<Map<string, number>> {
  const sorted = [...fields].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const paths = sorted.map((f) => f.path);
  const types = sorted.map((f) => f.type);
  const { rows } = await client.query<{ field_id: number; path: string }>(
    `WITH ins AS (
       INSERT INTO fields (index_id, path, type)
       SELECT $1, p, t FROM unnest($2::text[], $3::text[]) AS u(p, t) ORDER BY p
       ON CONFLICT (index_id, path) DO NOTHING
       RETURNING field_id, path)
     SELECT field_id, path FROM ins
     UNION ALL SELECT field_id, path FROM fields WHERE index_id = $1 AND path = ANY($2::text[])`,
    [indexId, paths, types],
  );
  const ids = new Map(rows.map((r) => [r.path, r.field_id]));
  if (ids.size < paths.length) {
    // A concurrent transaction committed the row after our snapshot: read it again in a new statement.
    const again = await client.query<{ field_id: number; path: string }>(
      'SELECT field_id, path FROM fields WHERE index_id = $1 AND path = ANY($2::text[])',
      [indexId, paths],
    );
    for (const r of again.rows) ids.set(r.path, r.field_id);
  }
  return ids;
}

export interface TermDelta {
  fieldId: number;
  term: string;
  docFreq: number;
  totalTermFreq: number;
}

/** Adds (or, with negative deltas, subtracts) term statistics; returns the term ids. */
export async function saveTermDeltas(
  client: PoolClient,
  indexId: string,
  deltas: TermDelta[],
): Promise<Map<string, string>> {
  if (deltas.length === 0) return new Map();
  const sorted = [...deltas].sort(
    (a, b) => a.fieldId - b.fieldId || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0),
  );
  const { rows } = await client.query<{ field_id: number; term: string; term_id: string }>(
    `INSERT INTO terms (index_id, field_id, term, term_id, doc_freq, total_term_freq)
     SELECT $1, f, t, nextval('term_id_seq'), df, ttf
     FROM unnest($2::int[], $3::text[], $4::int[], $5::bigint[]) AS u(f, t, df, ttf)
     ORDER BY f, t COLLATE "C"
     ON CONFLICT (index_id, field_id, term) DO UPDATE
       SET doc_freq = terms.doc_freq + EXCLUDED.doc_freq,
           total_term_freq = terms.total_term_freq + EXCLUDED.total_term_freq
     RETURNING field_id, term, term_id`,
    [
      indexId,
      sorted.map((d) => d.fieldId),
      sorted.map((d) => d.term),
      sorted.map((d) => d.docFreq),
      sorted.map((d) => d.totalTermFreq),
    ],
  );
  return new Map(rows.map((r) => [`${r.field_id}\u0000${r.term}`, r.term_id]));
}

export interface PostingRow {
  termId: string;
  docKey: string;
  freq: number;
  norm: number;
  positions: number[] | null;
}

/**
 * Postings go in with COPY (text format): for a 5,000-document bulk that is ~10⁵–10⁶ rows, where COPY
 * is several times faster than INSERT … unnest (API-NOTES §A3.2 step 3). Sorted by (term_id, doc_key)
 * so the primary-key btree is filled in order.
 */
export async function insertPostings(
  client: PoolClient,
  indexId: string,
  postings: PostingRow[],
): Promise<void> {
  if (postings.length === 0) return;
  // Group by term (postings arrive in document order, which is doc_key order), then order the terms:
  // sorting ~10⁴ term ids instead of ~10⁵ postings. Ids are bigint strings; as numbers (exact below 2^53).
  const byTerm = new Map<string, PostingRow[]>();
  for (const p of postings) {
    const list = byTerm.get(p.termId);
    if (list) list.push(p);
    else byTerm.set(p.termId, [p]);
  }
  const termIds = [...byTerm.keys()].sort((a, b) => Number(a) - Number(b));
  // Lines are generated while Postgres parses the previous chunks (the server works on the other core).
  function* lines(): Generator<string> {
    for (const termId of termIds) {
      for (const p of byTerm.get(termId)!) {
        const positions = p.positions ? `{${p.positions.join(',')}}` : '\\N';
        yield `${indexId}\t${termId}\t${p.docKey}\t${p.freq}\t${p.norm}\t${positions}\n`;
      }
    }
  }
  await copyLines(
    client,
    'COPY postings (index_id, term_id, doc_key, freq, norm, positions) FROM STDIN',
    lines(),
  );
}

async function copyLines(client: PoolClient, sql: string, lines: Iterable<string>): Promise<void> {
  const stream = client.query(copyFrom(sql));
  const done = finished(stream);
  // Write in chunks of about 256 KB: no huge strings, and the server starts parsing early.
  let chunk = '';
  for (const line of lines) {
    chunk += line;
    if (chunk.length > 256_000) {
      if (!stream.write(chunk)) await once(stream, 'drain');
      chunk = '';
    }
  }
  stream.end(chunk);
  await done;
}

export interface FieldLengthRow {
  fieldId: number;
  docKey: string;
  length: number;
}

export async function insertFieldLengths(
  client: PoolClient,
  indexId: string,
  rows: FieldLengthRow[],
): Promise<void> {
  if (rows.length === 0) return;
  await client.query(
    `INSERT INTO field_lengths (index_id, field_id, doc_key, length)
     SELECT $1, f, d, l FROM unnest($2::int[], $3::bigint[], $4::int[]) AS u(f, d, l)`,
    [indexId, rows.map((r) => r.fieldId), rows.map((r) => r.docKey), rows.map((r) => r.length)],
  );
}

export interface FieldStatDelta {
  fieldId: number;
  docCount: number;
  sumTotalTermFreq: number;
}

export async function saveFieldStatDeltas(
  client: PoolClient,
  indexId: string,
  deltas: FieldStatDelta[],
): Promise<void> {
  if (deltas.length === 0) return;
  const sorted = [...deltas].sort((a, b) => a.fieldId - b.fieldId);
  await client.query(
    `INSERT INTO field_stats (index_id, field_id, doc_count, sum_total_term_freq)
     SELECT $1, f, c, s FROM unnest($2::int[], $3::bigint[], $4::bigint[]) AS u(f, c, s) ORDER BY f
     ON CONFLICT (index_id, field_id) DO UPDATE
       SET doc_count = field_stats.doc_count + EXCLUDED.doc_count,
           sum_total_term_freq = field_stats.sum_total_term_freq + EXCLUDED.sum_total_term_freq`,
    [
      indexId,
      sorted.map((d) => d.fieldId),
      sorted.map((d) => d.docCount),
      sorted.map((d) => d.sumTotalTermFreq),
    ],
  );
}

export interface DocValueRow {
  fieldId: number;
  docKey: string;
  num: number | null;
  kw: string | null;
}

export async function insertDocValues(
  client: PoolClient,
  indexId: string,
  rows: DocValueRow[],
): Promise<void> {
  if (rows.length === 0) return;
  await client.query(
    `INSERT INTO doc_values (index_id, field_id, doc_key, num, kw)
     SELECT $1, f, d, n, k FROM unnest($2::int[], $3::bigint[], $4::float8[], $5::text[]) AS u(f, d, n, k)`,
    [
      indexId,
      rows.map((r) => r.fieldId),
      rows.map((r) => r.docKey),
      rows.map((r) => r.num),
      rows.map((r) => r.kw),
    ],
  );
}

/** Saves each document's term ids (the forward index that delete/replace use). */
export async function insertDocTerms(
  client: PoolClient,
  indexId: string,
  rows: { docKey: string; termIds: string[] }[],
): Promise<void> {
  if (rows.length === 0) return;
  await client.query(
    `INSERT INTO doc_terms (index_id, doc_key, term_ids)
     SELECT $1, d, t::bigint[] FROM unnest($2::bigint[], $3::text[]) AS u(d, t)`,
    [indexId, rows.map((r) => r.docKey), rows.map((r) => `{${r.termIds.join(',')}}`)],
  );
}

/**
 * Deletes the documents' postings, found through the forward index and the postings primary key,
 * and returns what they contributed to the term statistics.
 */
export async function deletePostings(
  client: PoolClient,
  indexId: string,
  docKeys: string[],
): Promise<TermDelta[]> {
  const { rows } = await client.query<{ field_id: number; term: string; df: string; ttf: string }>(
    `WITH fwd AS (
       DELETE FROM doc_terms WHERE index_id = $1 AND doc_key = ANY($2::bigint[]) RETURNING doc_key, term_ids),
     gone AS (
       DELETE FROM postings p USING (SELECT doc_key, unnest(term_ids) AS term_id FROM fwd) x
       WHERE p.index_id = $1 AND p.term_id = x.term_id AND p.doc_key = x.doc_key
       RETURNING p.term_id, p.freq)
     SELECT t.field_id, t.term, count(*) AS df, sum(g.freq) AS ttf
     FROM gone g JOIN terms t ON t.index_id = $1 AND t.term_id = g.term_id
     GROUP BY t.field_id, t.term`,
    [indexId, docKeys],
  );
  return rows.map((r) => ({
    fieldId: r.field_id,
    term: r.term,
    docFreq: -Number(r.df),
    totalTermFreq: -Number(r.ttf),
  }));
}

/** Terms no document uses any more leave the dictionary (prefix/wildcard expansion never sees them). */
export async function deleteUnusedTerms(
  client: PoolClient,
  indexId: string,
  termIds: string[],
): Promise<void> {
  if (termIds.length === 0) return;
  await client.query(
    'DELETE FROM terms WHERE index_id = $1 AND term_id = ANY($2::bigint[]) AND doc_freq <= 0',
    [indexId, termIds],
  );
}

export async function deleteFieldLengths(
  client: PoolClient,
  indexId: string,
  docKeys: string[],
): Promise<FieldStatDelta[]> {
  const { rows } = await client.query<{ field_id: number; c: string; s: string }>(
    `WITH gone AS (DELETE FROM field_lengths WHERE index_id = $1 AND doc_key = ANY($2::bigint[]) RETURNING field_id, length)
     SELECT field_id, count(*) AS c, sum(length) AS s FROM gone GROUP BY field_id`,
    [indexId, docKeys],
  );
  return rows.map((r) => ({ fieldId: r.field_id, docCount: -Number(r.c), sumTotalTermFreq: -Number(r.s) }));
}

export async function deleteDocValues(client: PoolClient, indexId: string, docKeys: string[]): Promise<void> {
  await client.query('DELETE FROM doc_values WHERE index_id = $1 AND doc_key = ANY($2::bigint[])', [
    indexId,
    docKeys,
  ]);
}

const PER_INDEX_TABLES = [
  'fields',
  'terms',
  'postings',
  'doc_terms',
  'field_stats',
  'field_lengths',
  'doc_values',
] as const;

/** Copies one index's inverted index to another index id; doc keys, field ids and term ids stay the same. */
export async function copyInvertedIndex(
  client: PoolClient,
  fromIndexId: string,
  toIndexId: string,
): Promise<void> {
  const columns: Record<(typeof PER_INDEX_TABLES)[number], string> = {
    fields: 'field_id, path, type',
    terms: 'field_id, term, term_id, doc_freq, total_term_freq',
    postings: 'term_id, doc_key, freq, norm, positions',
    doc_terms: 'doc_key, term_ids',
    field_stats: 'field_id, doc_count, sum_total_term_freq',
    field_lengths: 'field_id, doc_key, length',
    doc_values: 'field_id, doc_key, num, kw',
  };
  for (const table of PER_INDEX_TABLES) {
    await client.query(
      `INSERT INTO ${table} (index_id, ${columns[table]}) SELECT $2, ${columns[table]} FROM ${table} WHERE index_id = $1`,
      [fromIndexId, toIndexId],
    );
  }
}

/** Drops everything indexed for an index (DELETE /<index> calls it; the big tables carry no FK, for write speed). */
export async function deleteInvertedIndex(client: PoolClient, indexId: string): Promise<void> {
  for (const table of [...PER_INDEX_TABLES].reverse()) {
    await client.query(`DELETE FROM ${table} WHERE index_id = $1`, [indexId]);
  }
}
