import type { CustomTypesConfig, Pool, PoolClient, QueryArrayConfig } from 'pg';
import { fieldStatsOfPaths } from '../../index/field-stats-reader';
import { joinPostings, joinTermBlocks } from '../../index/postings-reader';
import { joinTerm } from '../../index/term-dictionary-reader';
import type { FastMatchPlan } from './plan-fast-match';
import { termKey, type KnownPostings, type TermVersion } from './postings-cache';
import type { MatchPostings, TermPostings } from './score-match-plan';
import { readBlocks, type PackedBlock } from './read-packed-blocks';
import { readConjunction, type ConjunctionTerm } from './read-conjunction';
import { readBinaryLists } from './read-binary-lists';

/**
 * One statement reads everything a plan scores with: the fields' statistics, the query terms'
 * document frequencies and their postings (fragments from index/). One statement is one snapshot, so the
 * statistics always describe the postings read, without a REPEATABLE READ transaction around them.
 * Every column comes back as its raw text; a block's packed columns (bytea hex, migration 0030) are
 * parsed straight into typed arrays.
 * Terms whose current id and version are in `$5` (`term_id@version`, the postings cache's) send no
 * blocks: the caller holds those postings already (postings-cache.ts), and an equal version means
 * equal postings, so the held lists and the blocks read describe one snapshot. Neither do terms of
 * `$6` documents or more: their lists follow in binary (read-binary-lists.ts).
 * Row kinds: 0 = field (path, doc_count, sum_total_term_freq); 1 = term (path, term, term_id,
 * doc_freq, version: postings-cache.ts); 2 = a block of postings (term_id, base_doc_key, doc_offsets, freqs, norms,
 * and the block's max_freq and min_norm for block-max pruning: migration 0004).
 */
export const STATS = `f AS (
    ${fieldStatsOfPaths('$1', '$2')}
  ), t AS MATERIALIZED (
    SELECT f.path, t.term, t.term_id, t.doc_freq, t.version
    FROM unnest($3::text[], $4::text[]) q(path, term)
    JOIN f ON f.path = q.path
    ${joinTerm('t', '$1', 'f.field_id', 'q.term')}
  )`;

export const STATS_ROWS = `SELECT 0 AS kind, f.path, NULL::text AS term, f.doc_count AS a, f.sum_total_term_freq AS b,
         NULL::bytea AS offsets, NULL::bytea AS freqs, NULL::bytea AS norms, NULL::text AS version,
         NULL::int4 AS max_freq, NULL::int2 AS min_norm
  FROM f
  UNION ALL
  SELECT 1, t.path, t.term, t.term_id, t.doc_freq::int8, NULL, NULL, NULL, t.version, NULL, NULL FROM t`;

const SQL = `WITH ${STATS}
  ${STATS_ROWS}
  UNION ALL
  SELECT 2, NULL, NULL, b.term_id, b.base_doc_key, b.doc_offsets, b.freqs, b.norms, NULL, b.max_freq, b.min_norm
  FROM t ${joinTermBlocks('b', '$1', 't.term_id')}
  WHERE NOT (t.term_id::text || '@' || t.version = ANY($5::text[])) AND t.doc_freq < $6`;

/**
 * From this many postings a term's blocks are not sent by the postings statement but by a COPY in
 * binary after it (read-binary-lists.ts): the COPY is one more round trip and saves about 35 ns a
 * posting (hex formatted, sent, decoded as UTF-8 and as hex), so only long lists gain. Measured at
 * 100k documents, sending lists from 5,000 postings this way made the median read slower (0.93 to
 * 1.16 ms), from 20,000 a little faster; at 1M, 20,000 to 100,000 all gave about the same.
 */
export const BINARY_LIST_POSTINGS = 50_000;

/** Above this many documents in the rarest term, a conjunction reads every block of every term. */
const MAX_DRIVING_DOCS = 512;

/**
 * Every term required (match with operator and): a match holds the rarest term, so of the other
 * terms only the blocks whose [base_doc_key, last_doc_key] holds one of its documents are sent
 * (width_bucket is a binary search over the sorted keys). The blocks are still visited in Postgres,
 * but not printed, sent or parsed; scores and totals are unchanged (the differential test holds it).
 */
const CONJUNCTION_SQL = `WITH ${STATS},
  rare AS MATERIALIZED (SELECT term_id, doc_freq FROM t ORDER BY doc_freq, term_id LIMIT 1),
  rare_docs AS MATERIALIZED (
    SELECT array_agg(p.doc_key ORDER BY p.doc_key) AS keys
    FROM rare ${joinPostings('p', '$1', 'rare.term_id')}
    WHERE rare.doc_freq <= ${MAX_DRIVING_DOCS})
  ${STATS_ROWS}
  UNION ALL
  SELECT 2, NULL, NULL, b.term_id, b.base_doc_key, b.doc_offsets, b.freqs, b.norms, NULL, b.max_freq, b.min_norm
  FROM t ${joinTermBlocks('b', '$1', 't.term_id')} CROSS JOIN rare_docs r
  WHERE r.keys IS NULL OR t.term_id = (SELECT term_id FROM rare)
     OR width_bucket(b.last_doc_key, r.keys) > width_bucket(b.base_doc_key - 1, r.keys)`;

/** Every column as its raw text, parsed below. */
const RAW = { getTypeParser: () => (value: string) => value } as unknown as CustomTypesConfig;

type RawRow = (string | null)[];

/** A plan's postings and, for the cache, the version of each term read (postings-cache.ts). */
export interface LoadedPostings extends MatchPostings {
  versions: Map<string, TermVersion>;
}

/**
 * `whole`: every block of every term even for a conjunction, so that the postings can be cached
 * (postings-cache.ts keeps only complete lists): the first search pays, the following ones do not.
 * `known`: postings the caller holds (the cache's), by term key, with the version they were read at;
 * a term still at that version sends no blocks and its held postings are answered.
 * `room`: bytes the cache can still take without evicting; a conjunction parses whole the lists that
 * fit, and reads the others only at its rarest term's documents (read-conjunction.ts).
 * `binaryFrom`: lists of this many postings or more are read by a binary COPY after the statement.
 */
export async function loadMatchPostings(
  db: Pool | PoolClient,
  plan: FastMatchPlan,
  whole = false,
  known: ReadonlyMap<string, KnownPostings> = new Map(),
  room = 0,
  binaryFrom = BINARY_LIST_POSTINGS,
): Promise<LoadedPostings> {
  const conjunction = plan.conjunctive && !whole;
  const values: unknown[] = [
    plan.reader.indexId,
    plan.fields,
    plan.terms.map((t) => t.path),
    plan.terms.map((t) => t.term),
  ];
  if (!conjunction)
    values.push(
      [...known.values()].map((k) => `${k.version.termId}@${k.version.version}`),
      Math.min(binaryFrom, 2 ** 31 - 1),
    );
  const query: QueryArrayConfig = {
    name: conjunction ? 'fast-match-conjunction' : 'fast-match-postings',
    text: conjunction ? CONJUNCTION_SQL : SQL,
    values,
    rowMode: 'array',
    types: RAW,
  };
  const { rows } = await db.query<RawRow>(query);
  const fields: MatchPostings['fields'] = new Map();
  const termKeys = new Map<number, { key: string; docFreq: number }>();
  const versions = new Map<string, TermVersion>();
  const blocks = new Map<number, PackedBlock[]>();
  for (const row of rows) {
    const kind = Number(row[0]);
    if (kind === 0) {
      fields.set(row[1]!, {
        docCount: Number(row[3]),
        sumTotalTermFreq: Number(row[4]),
      });
    } else if (kind === 1) {
      const key = termKey(row[1]!, row[2]!);
      termKeys.set(Number(row[3]), { key, docFreq: Number(row[4]) });
      versions.set(key, { termId: row[3]!, version: row[8]! });
    } else {
      const termId = Number(row[3]);
      const list = blocks.get(termId) ?? [];
      list.push({
        base: Number(row[4]),
        offsets: row[5]!,
        freqs: row[6]!,
        norms: row[7]!,
        maxFreq: Number(row[9]),
        minNorm: Number(row[10]),
      });
      blocks.set(termId, list);
    }
  }
  /** The cache's postings of a term still at the version just read: nothing was sent for it. */
  const stillHeld = (key: string): TermPostings | undefined => {
    const held = conjunction ? undefined : known.get(key);
    const now = versions.get(key)!;
    const same = held && held.version.termId === now.termId && held.version.version === now.version;
    return same ? held.postings : undefined;
  };
  const long = conjunction
    ? []
    : [...termKeys.values()].filter(({ key, docFreq }) => docFreq >= binaryFrom && !stillHeld(key));
  // The long lists come from a second statement, another snapshot: each is kept only when its term
  // still has the version the first one read (any change to a term's postings changes it: migration
  // 0010), so that the lists are the ones the statistics describe. Otherwise all is read again in one.
  const binary =
    long.length > 0
      ? await readBinaryLists(
          db,
          plan.reader.indexId,
          long.map(({ key }) => versions.get(key)!.termId),
        )
      : undefined;
  for (const { key, docFreq } of long) {
    const now = versions.get(key)!;
    const list = binary!.get(now.termId);
    if (!list || list.version !== now.version || list.postings.docFreq !== docFreq)
      return loadMatchPostings(db, plan, whole, known, room, Infinity);
  }
  const terms: MatchPostings['terms'] = new Map();
  const conjunct: ConjunctionTerm[] = [];
  for (const [termId, { key, docFreq }] of termKeys) {
    const postings = stillHeld(key) ?? binary?.get(versions.get(key)!.termId)?.postings;
    const read = blocks.get(termId) ?? [];
    if (plan.conjunctive) conjunct.push({ key, termId, docFreq, held: postings, blocks: read });
    else terms.set(key, postings ?? readBlocks(docFreq, read));
  }
  for (const [key, list] of readConjunction(conjunct, conjunction ? 0 : room)) terms.set(key, list);
  return { fields, terms, versions };
}
