import type { PoolClient } from 'pg';
import { getInt64, int4ArrayParam, textArrayParam } from '../storage/binary-params';
import { queueBinaryCopy } from '../storage/copy-binary';
import { StatementQueue } from '../storage/statement-queue';
import { copyText, type RenderedCopy } from '../storage/copy-lines';
import { findTails, type Tail } from './posting-blocks.repo';

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

/** A batch's terms not cached, sorted by (field id, term): the order new ids are drawn in. */
export interface TermKeys {
  fieldIds: number[];
  terms: string[];
}

/** Each term's id, and the tail block (with the term's totals) of the terms the index had before. */
export interface SavedTerms {
  termIds: number[];
  tails: (Tail | undefined)[];
}

/**
 * Looks a batch's terms up in the dictionary, inserting the new ones, and returns by key the term id
 * and, for terms the index already had, their last block with the term's totals (one backward probe
 * each, so the append needs no second round trip). The dictionary row of a known term is not written:
 * since migration 0010 a term's totals live on its last block, which the batch writes anyway. The new
 * terms are those the lookup did not find (an anti-join on the ordinal, not a second pass over the
 * dictionary). Rows come back by ordinal, without their text, packed into one bytea (ordinal int4,
 * term id, tail base, tail last key, tail size, doc freq int4, total term freq, small run int4: 48 bytes a term):
 * ~38k rows of text columns took Postgres and node-pg ~75 ms a 5,000-document batch to send and
 * parse, the one packed value ~55. Writers to one index are serialised, so no other transaction
 * inserts the same term meanwhile; if one ever did, the insert below picks the row up.
 */
export async function findOrAddTerms(
  client: PoolClient,
  indexId: string,
  keys: TermKeys,
): Promise<SavedTerms> {
  const count = keys.terms.length;
  const saved: SavedTerms = { termIds: new Array<number>(count), tails: new Array<Tail | undefined>(count) };
  if (count === 0) return saved;
  const { rows } = await client.query<{ saved: Buffer | null }>(
    `WITH u AS (
       SELECT * FROM unnest($2::int[], $3::text[]) WITH ORDINALITY AS u(f, t, i)),
     old AS (
       SELECT u.i, d.term_id FROM u
       JOIN term_dictionary d ON d.index_id = $1 AND d.field_id = u.f AND d.term = u.t),
     new AS (
       INSERT INTO term_dictionary (index_id, field_id, term, term_id)
       SELECT $1, f, t, nextval('term_id_seq') FROM u
       WHERE NOT EXISTS (SELECT 1 FROM old WHERE old.i = u.i)
       ORDER BY f, t COLLATE "C"
       ON CONFLICT (index_id, field_id, term) DO NOTHING
       RETURNING field_id, term, term_id),
     saved AS (
       SELECT old.i, old.term_id, tail.base, tail.last, tail.size, tail.df, tail.ttf, tail.run FROM old
       LEFT JOIN LATERAL (
         SELECT b.base_doc_key AS base, b.last_doc_key AS last, octet_length(b.norms) AS size,
                b.term_doc_freq AS df, b.term_total_freq AS ttf, b.small_run AS run
         FROM posting_blocks b WHERE b.index_id = $1 AND b.term_id = old.term_id
         ORDER BY b.base_doc_key DESC LIMIT 1) tail ON true
       UNION ALL SELECT u.i, new.term_id, NULL, NULL, NULL, NULL, NULL, NULL
       FROM new JOIN u ON u.f = new.field_id AND u.t = new.term)
     SELECT string_agg(int4send(i::int4) || int8send(term_id) || int8send(coalesce(base, -1))
                       || int8send(coalesce(last, -1)) || int4send(coalesce(size, -1))
                       || int4send(coalesce(df, 0)) || int8send(coalesce(ttf, 0))
                       || int4send(coalesce(run, 0)::int4), ''::bytea) AS saved
     FROM saved`,
    [indexId, int4ArrayParam(keys.fieldIds), textArrayParam(keys.terms)],
  );
  let found = 0;
  const packed = rows[0]?.saved;
  if (packed) {
    const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
    for (let at = 0; at < packed.byteLength; at += SAVED_TERM_BYTES, found++) {
      const i = view.getInt32(at) - 1;
      saved.termIds[i] = getInt64(view, at + 4);
      const base = getInt64(view, at + 12);
      if (base !== -1)
        saved.tails[i] = {
          baseDocKey: base,
          lastDocKey: getInt64(view, at + 20),
          size: view.getInt32(at + 28),
          smallRun: view.getInt32(at + 44),
          docFreq: view.getInt32(at + 32),
          totalTermFreq: getInt64(view, at + 36),
        };
    }
  }
  if (found < count) {
    const missing: number[] = [];
    for (let i = 0; i < count; i++) if (saved.termIds[i] === undefined) missing.push(i);
    const ids = await upsertTerms(client, indexId, keys, missing);
    for (const i of missing) saved.termIds[i] = Number(ids.get(`${keys.fieldIds[i]}\u0000${keys.terms[i]}`)!);
    const tails = await findTails(
      client,
      indexId,
      missing.map((i) => saved.termIds[i]!),
    );
    for (const i of missing) saved.tails[i] = tails.get(saved.termIds[i]!);
  }
  return saved;
}

/** Bytes per term in findOrAddTerms's packed result. */
const SAVED_TERM_BYTES = 48;

/** The plain upsert, for terms a concurrent writer inserted after this statement's snapshot. */
async function upsertTerms(
  client: PoolClient,
  indexId: string,
  keys: TermKeys,
  which: number[],
): Promise<Map<string, string>> {
  const { rows } = await client.query<{ field_id: number; term: string; term_id: string }>(
    `INSERT INTO term_dictionary (index_id, field_id, term, term_id)
     SELECT $1, f, t, nextval('term_id_seq')
     FROM unnest($2::int[], $3::text[]) AS u(f, t)
     ORDER BY f, t COLLATE "C"
     ON CONFLICT (index_id, field_id, term) DO UPDATE SET term = EXCLUDED.term
     RETURNING field_id, term, term_id`,
    [indexId, which.map((i) => keys.fieldIds[i]), which.map((i) => keys.terms[i])],
  );
  return new Map(rows.map((r) => [`${r.field_id}\u0000${r.term}`, r.term_id]));
}

/**
 * Gives the index's dictionary a new token (migration 0008) and returns the one it had, locking the
 * index row: the caller's cache of the dictionary (term-dictionary-cache.ts) is current only if it
 * holds that previous token. Two statements: the locking read returns the newest committed row after
 * any wait, where a `FROM` read of the old value inside the UPDATE could see the version before it.
 * `NO KEY UPDATE`, the lock the UPDATE takes anyway: a writer that inserted documents first holds
 * the `KEY SHARE` lock of their foreign key, and two of them asking for `FOR UPDATE` deadlock.
 */
export async function claimDictionary(
  client: PoolClient,
  indexId: string,
  token: string,
  queue = new StatementQueue(),
): Promise<string | null> {
  const previous = queue.add(() =>
    client.query<{ dictionary_token: string | null }>(
      'SELECT dictionary_token FROM indices WHERE index_id = $1 FOR NO KEY UPDATE',
      [indexId],
    ),
  );
  const claimed = queue.add(() =>
    client.query('UPDATE indices SET dictionary_token = $2 WHERE index_id = $1', [indexId, token]),
  );
  const [{ rows }] = await Promise.all([previous, claimed]);
  return rows[0]?.dictionary_token ?? null;
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
  docKey: number | string;
  num: number | null;
  kw: string | null;
}

/** doc_values rows as COPY text (sendCopy queues them); a missing number or keyword is NULL. */
export function renderDocValues(indexId: string, rows: Iterable<DocValueRow>): RenderedCopy {
  let text = '';
  for (const r of rows) {
    const num = r.num === null ? '\\N' : String(r.num);
    const kw = r.kw === null ? '\\N' : copyText(r.kw);
    text += `${indexId}\t${r.fieldId}\t${r.docKey}\t${num}\t${kw}\n`;
  }
  return { sql: 'COPY doc_values (index_id, field_id, doc_key, num, kw) FROM STDIN', text };
}

/** Token streams (see migration 0004): stream s is field `fieldIds[s]` of document `docKeys[s]`. */
export interface DocTokenStreams {
  docKeys: ArrayLike<number>;
  fieldIds: ArrayLike<number>;
  /** Stream s's tokens are [start[s], start[s + 1]) of `tokens`. */
  start: ArrayLike<number>;
  /** The field length of stream s: tokens for text, distinct terms for keyword (migration 0007). */
  lengths: ArrayLike<number>;
  /** Per position, a code: the term id is `termIds[code]` (codes are rendered only here, in slices). */
  tokens: ArrayLike<number>;
  /** Term id by code; code 0 is a gap (term id 0). */
  termIds: ArrayLike<number>;
}

/**
 * Saves the documents' token streams (positions and the forward index that delete/replace follow) by
 * binary COPY: a batch holds ~10⁶ term ids, which as text took longer to render and to parse than
 * everything else the row needs. Rendered, then queued on the client (`queueBinaryCopy`). Term ids go
 * as int4 (migration 0028).
 */
export function insertDocTokens(
  client: PoolClient,
  indexId: string,
  streams: DocTokenStreams,
  queue = new StatementQueue(),
): Promise<void> {
  const index = Number(indexId);
  const { docKeys, fieldIds, start, lengths, tokens, termIds } = streams;
  return queueBinaryCopy(
    client,
    'COPY doc_tokens (index_id, doc_key, field_id, length, term_ids) FROM STDIN',
    function* (copy) {
      for (let s = 0; s < docKeys.length; s++) {
        const from = start[s]!;
        copy
          .row(5)
          .int8(index)
          .int8(docKeys[s]!)
          .int4(fieldIds[s]!)
          .int4(lengths[s]!)
          .int4Array(start[s + 1]! - from, (i) => termIds[tokens[from + i]!]!);
        yield;
      }
    },
    { queue },
  );
}

/** Terms no document uses any more leave the dictionary (prefix/wildcard expansion never sees them). */
export async function deleteUnusedTerms(
  client: PoolClient,
  indexId: string,
  termIds: string[],
): Promise<void> {
  if (termIds.length === 0) return;
  await client.query(
    `DELETE FROM term_dictionary d WHERE d.index_id = $1 AND d.term_id = ANY($2::bigint[])
       AND NOT EXISTS (SELECT 1 FROM posting_blocks b WHERE b.index_id = $1 AND b.term_id = d.term_id)`,
    [indexId, termIds],
  );
}

/**
 * What removing these documents takes from field_stats, read before they go: text and keyword fields
 * from their token streams' lengths, numeric, date and boolean fields from their doc values (a field's
 * length there is its number of values). Since migration 0007 no table holds a length per field.
 */
export async function removedFieldStats(
  client: PoolClient,
  indexId: string,
  docKeys: string[],
): Promise<FieldStatDelta[]> {
  const { rows } = await client.query<{ field_id: number; c: string; s: string }>(
    `SELECT field_id, count(*) AS c, sum(length) AS s FROM doc_tokens
     WHERE index_id = $1 AND field_id = ANY(ARRAY(SELECT field_id FROM fields WHERE index_id = $1))
       AND doc_key = ANY($2::bigint[])
     GROUP BY field_id
     UNION ALL
     SELECT field_id, count(DISTINCT doc_key) AS c, count(*) AS s FROM doc_values
     WHERE index_id = $1 AND doc_key = ANY($2::bigint[]) AND num IS NOT NULL GROUP BY field_id`,
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
  'term_dictionary',
  'posting_blocks',
  'doc_tokens',
  'field_stats',
  'doc_values',
  'doc_value_columns',
] as const;

/** Copies one index's inverted index to another index id; doc keys, field ids and term ids stay the same. */
export async function copyInvertedIndex(
  client: PoolClient,
  fromIndexId: string,
  toIndexId: string,
): Promise<void> {
  const columns: Record<(typeof PER_INDEX_TABLES)[number], string> = {
    fields: 'field_id, path, type',
    term_dictionary: 'field_id, term, term_id',
    posting_blocks:
      'term_id, base_doc_key, last_doc_key, doc_offsets, freqs, norms, max_freq, min_norm, term_doc_freq, term_total_freq, small_run, peaks',
    doc_tokens: 'doc_key, field_id, length, term_ids',
    field_stats: 'field_id, doc_count, sum_total_term_freq',
    doc_values: 'field_id, doc_key, num, kw',
    doc_value_columns: 'field_id, chunk, num_count, num_docs, nums, kw_count, kw_docs, kw_ords, dict',
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
