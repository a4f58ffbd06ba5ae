import type { CustomTypesConfig, Pool, PoolClient, QueryArrayConfig } from 'pg';
import { joinTermBlocks } from '../../index/postings-reader';
import { STATS } from './load-match-postings';
import { countIntArray, PgArrayError, readIntArray } from './parse-pg-int-array';
import type { FastMatchPlan } from './plan-fast-match';
import { termKey, type FieldStats, type TermVersion } from './postings-cache';
import type { BlockContents } from './term-blocks';

/**
 * The two statements of the block-at-a-time fast path. Each reads, in its one snapshot, the plan's
 * field statistics and every term's id, document frequency and version, so the caller can tell
 * whether what it read earlier (or keeps cached) still holds; and then:
 * - DIRECTORY: the block directory of the terms not already known (`$5`, ids) (each block's base and last doc key,
 *   max_freq, min_norm, as four aggregated arrays a term: no block's arrays are printed), and the whole
 *   contents of those with at most SMALL_TERM documents (a rare term is read in this one round trip);
 * - BLOCKS: the contents of the blocks asked for, by primary key.
 * Row kinds: 0 = field (path, doc_count, sum_total_term_freq); 1 = term (path, term, term_id,
 * doc_freq, version); 2 = a directory (term_id, bases, lasts, max_freqs, min_norms); 3 = a block
 * (term_id, base_doc_key, doc_offsets, freqs, norms).
 */
const HEAD = `WITH ${STATS}
  SELECT 0 AS kind, f.path AS s1, NULL::text AS s2, f.doc_count AS n1, f.sum_total_term_freq AS n2,
         NULL::text AS a1, NULL::text AS a2, NULL::text AS a3, NULL::text AS a4, NULL::text AS v
  FROM f
  UNION ALL
  SELECT 1, t.path, t.term, t.term_id, t.doc_freq::int8, NULL, NULL, NULL, NULL, t.version FROM t`;

/** Terms of at most this many documents come whole with their directory (≤ 4 full blocks). */
export const SMALL_TERM = 512;

const DIRECTORY_SQL = `${HEAD}
  UNION ALL
  SELECT 2, NULL, NULL, t.term_id, NULL,
         array_agg(b.base_doc_key ORDER BY b.base_doc_key)::text,
         array_agg(b.last_doc_key ORDER BY b.base_doc_key)::text,
         array_agg(b.max_freq ORDER BY b.base_doc_key)::text,
         array_agg(b.min_norm ORDER BY b.base_doc_key)::text, NULL
  FROM t ${joinTermBlocks('b', '$1', 't.term_id')}
  WHERE t.term_id <> ALL($5::int8[])
  GROUP BY t.term_id
  UNION ALL
  SELECT 3, NULL, NULL, b.term_id, b.base_doc_key, b.doc_offsets::text, b.freqs::text, b.norms::text, NULL, NULL
  FROM t ${joinTermBlocks('b', '$1', 't.term_id')}
  WHERE t.term_id <> ALL($5::int8[]) AND t.doc_freq <= ${SMALL_TERM}`;

const BLOCKS_SQL = `${HEAD}
  UNION ALL
  SELECT 3, NULL, NULL, b.term_id, b.base_doc_key, b.doc_offsets::text, b.freqs::text, b.norms::text, NULL, NULL
  FROM unnest($5::int8[], $6::int8[]) AS r(term_id, base_doc_key)
  ${joinTermBlocks('b', '$1', 'r.term_id')} AND b.base_doc_key = r.base_doc_key`;

const RAW = { getTypeParser: () => (value: string) => value } as unknown as CustomTypesConfig;

export interface ReadDirectory {
  bases: Float64Array;
  lasts: Float64Array;
  maxFreq: Int32Array;
  minNorm: Uint8Array;
}

/** What one statement saw. Keys of `terms` are `path\u0000term`; a term the index lacks is absent. */
export interface BlockRead {
  fields: Map<string, FieldStats>;
  terms: Map<string, TermVersion & { docFreq: number }>;
  /** By term id. */
  directories: Map<string, ReadDirectory>;
  /** By term id, then base doc key. */
  blocks: Map<string, Map<number, BlockContents>>;
}

/** Statements run by this module, for tests that assert on round trips. */
export const blockReadStats = { statements: 0, blocks: 0 };

/** The directories (and small terms' contents) of every term but `knownIds`, with the plan's statistics and versions. */
export function readDirectories(
  db: Pool | PoolClient,
  plan: FastMatchPlan,
  knownIds: string[],
): Promise<BlockRead> {
  return run(db, {
    name: 'fast-match-directory',
    text: DIRECTORY_SQL,
    values: [...head(plan), knownIds],
    rowMode: 'array',
    types: RAW,
  });
}

/** The contents of the blocks asked for (term id and base doc key), with the plan's statistics and versions. */
export function readBlocks(
  db: Pool | PoolClient,
  plan: FastMatchPlan,
  wanted: { termId: string; base: number }[],
): Promise<BlockRead> {
  return run(db, {
    name: 'fast-match-blocks',
    text: BLOCKS_SQL,
    values: [...head(plan), wanted.map((w) => w.termId), wanted.map((w) => w.base)],
    rowMode: 'array',
    types: RAW,
  });
}

function head(plan: FastMatchPlan): unknown[] {
  return [plan.reader.indexId, plan.fields, plan.terms.map((t) => t.path), plan.terms.map((t) => t.term)];
}

async function run(db: Pool | PoolClient, query: QueryArrayConfig): Promise<BlockRead> {
  blockReadStats.statements++;
  const { rows } = await db.query<(string | null)[]>(query);
  const read: BlockRead = { fields: new Map(), terms: new Map(), directories: new Map(), blocks: new Map() };
  for (const row of rows) {
    const kind = Number(row[0]);
    if (kind === 0) {
      read.fields.set(row[1]!, { docCount: Number(row[3]), sumTotalTermFreq: Number(row[4]) });
    } else if (kind === 1) {
      read.terms.set(termKey(row[1]!, row[2]!), {
        termId: row[3]!,
        docFreq: Number(row[4]),
        version: row[9]!,
      });
    } else if (kind === 2) {
      const n = countIntArray(row[5]!);
      const dir: ReadDirectory = {
        bases: new Float64Array(n),
        lasts: new Float64Array(n),
        maxFreq: new Int32Array(n),
        minNorm: new Uint8Array(n),
      };
      if (
        readIntArray(row[5]!, dir.bases) !== n ||
        readIntArray(row[6]!, dir.lasts) !== n ||
        readIntArray(row[7]!, dir.maxFreq) !== n ||
        readIntArray(row[8]!, dir.minNorm) !== n
      )
        throw new PgArrayError('a block directory has arrays of different lengths');
      read.directories.set(row[3]!, dir);
    } else {
      blockReadStats.blocks++;
      const base = Number(row[4]);
      const n = countIntArray(row[5]!);
      const c: BlockContents = {
        docs: new Float64Array(n),
        freqs: new Int32Array(n),
        norms: new Uint8Array(n),
      };
      if (
        readIntArray(row[5]!, c.docs, 0, base) !== n ||
        readIntArray(row[6]!, c.freqs) !== n ||
        readIntArray(row[7]!, c.norms) !== n
      )
        throw new PgArrayError('a posting block has arrays of different lengths');
      let byBase = read.blocks.get(row[3]!);
      if (!byBase) read.blocks.set(row[3]!, (byBase = new Map()));
      byBase.set(base, c);
    }
  }
  return read;
}
