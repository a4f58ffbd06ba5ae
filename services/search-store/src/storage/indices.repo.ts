import type { IndexMapping } from '../mapping/mapping-types';
import type { Queryable } from './queryable';

/** One row of the index catalog. */
export interface IndexRecord {
  indexId: string;
  name: string;
  uuid: string;
  mappings: IndexMapping;
  /** Flat index settings, values as strings (`index.number_of_replicas: "1"`). */
  settings: Record<string, string>;
  blocksWrite: boolean;
  /** Closed (ES "Close index API"): reads and writes answer index_closed_exception until opened. */
  closed: boolean;
  maxSeqNo: number;
  createdAt: Date;
}

interface IndexRow {
  index_id: string;
  name: string;
  uuid: string;
  mappings: IndexMapping;
  settings: Record<string, string>;
  blocks_write: boolean;
  closed: boolean;
  max_seq_no: string;
  created_at: Date;
}

const COLUMNS = 'index_id, name, uuid, mappings, settings, blocks_write, closed, max_seq_no, created_at';

function toRecord(row: IndexRow): IndexRecord {
  return {
    indexId: row.index_id,
    name: row.name,
    uuid: row.uuid,
    mappings: row.mappings,
    settings: row.settings,
    blocksWrite: row.blocks_write,
    closed: row.closed,
    maxSeqNo: Number(row.max_seq_no),
    createdAt: row.created_at,
  };
}

export async function findAllIndices(db: Queryable): Promise<IndexRecord[]> {
  const { rows } = await db.query<IndexRow>(`SELECT ${COLUMNS} FROM indices ORDER BY name`);
  return rows.map(toRecord);
}

export async function findIndicesByName(db: Queryable, names: string[]): Promise<IndexRecord[]> {
  const { rows } = await db.query<IndexRow>(
    `SELECT ${COLUMNS} FROM indices WHERE name = ANY($1) ORDER BY name`,
    [names],
  );
  return rows.map(toRecord);
}

export async function findIndicesById(db: Queryable, indexIds: string[]): Promise<IndexRecord[]> {
  const { rows } = await db.query<IndexRow>(
    `SELECT ${COLUMNS} FROM indices WHERE index_id = ANY($1::bigint[]) ORDER BY name`,
    [indexIds],
  );
  return rows.map(toRecord);
}

/** Locks the rows (in index_id order, so concurrent writers never deadlock) and returns their fresh state. */
export async function lockIndices(db: Queryable, indexIds: string[]): Promise<IndexRecord[]> {
  const { rows } = await db.query<IndexRow>(
    `SELECT ${COLUMNS} FROM indices WHERE index_id = ANY($1::bigint[]) ORDER BY index_id FOR UPDATE`,
    [indexIds],
  );
  return rows.map(toRecord);
}

export interface NewIndex {
  name: string;
  uuid: string;
  mappings: IndexMapping;
  settings: Record<string, string>;
  blocksWrite: boolean;
}

/** Inserts the index unless the name is taken; returns undefined when it already existed. */
export async function saveNewIndex(db: Queryable, index: NewIndex): Promise<IndexRecord | undefined> {
  const { rows } = await db.query<IndexRow>(
    `INSERT INTO indices (name, uuid, mappings, settings, blocks_write) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (name) DO NOTHING RETURNING ${COLUMNS}`,
    [
      index.name,
      index.uuid,
      JSON.stringify(index.mappings),
      JSON.stringify(index.settings),
      index.blocksWrite,
    ],
  );
  return rows[0] ? toRecord(rows[0]) : undefined;
}

export async function deleteIndicesById(db: Queryable, indexIds: string[]): Promise<void> {
  await db.query('DELETE FROM indices WHERE index_id = ANY($1::bigint[])', [indexIds]);
}

export async function saveMappings(db: Queryable, indexId: string, mappings: IndexMapping): Promise<void> {
  await db.query('UPDATE indices SET mappings = $2 WHERE index_id = $1', [indexId, JSON.stringify(mappings)]);
}

export async function saveSettings(
  db: Queryable,
  indexId: string,
  settings: Record<string, string>,
  blocksWrite: boolean,
): Promise<void> {
  await db.query('UPDATE indices SET settings = $2, blocks_write = $3 WHERE index_id = $1', [
    indexId,
    JSON.stringify(settings),
    blocksWrite,
  ]);
}

export async function saveMaxSeqNo(db: Queryable, indexId: string, maxSeqNo: number): Promise<void> {
  await db.query('UPDATE indices SET max_seq_no = $2 WHERE index_id = $1', [indexId, maxSeqNo]);
}

/** Opens or closes indices, with the flat settings that state brings (`index.verified_before_close`). */
export async function saveIndexState(
  db: Queryable,
  indexId: string,
  closed: boolean,
  settings: Record<string, string>,
): Promise<void> {
  await db.query('UPDATE indices SET closed = $2, settings = $3 WHERE index_id = $1', [
    indexId,
    closed,
    JSON.stringify(settings),
  ]);
}
