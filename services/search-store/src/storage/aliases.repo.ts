import type { Queryable } from './queryable';

export interface AliasRecord {
  alias: string;
  indexId: string;
  indexName: string;
  isWriteIndex: boolean | null;
  filter: Record<string, unknown> | null;
  indexRouting: string | null;
  searchRouting: string | null;
  /** `is_hidden`; null when never set. */
  isHidden: boolean | null;
}

interface AliasRow {
  alias: string;
  index_id: string;
  index_name: string;
  is_write_index: boolean | null;
  filter: Record<string, unknown> | null;
  index_routing: string | null;
  search_routing: string | null;
  is_hidden: boolean | null;
}

const SELECT_ALIASES = `SELECT a.alias, a.index_id, i.name AS index_name, a.is_write_index, a.filter,
  a.index_routing, a.search_routing, a.is_hidden FROM aliases a JOIN indices i USING (index_id)`;

export async function findAllAliases(db: Queryable): Promise<AliasRecord[]> {
  const { rows } = await db.query<AliasRow>(`${SELECT_ALIASES} ORDER BY a.alias, i.name`);
  return rows.map(toAlias);
}

/** The links of these alias names only (the write path resolves just its batch's names). */
export async function findAliasesByName(db: Queryable, aliases: string[]): Promise<AliasRecord[]> {
  const { rows } = await db.query<AliasRow>(
    `${SELECT_ALIASES} WHERE a.alias = ANY($1::text[]) ORDER BY a.alias, i.name`,
    [aliases],
  );
  return rows.map(toAlias);
}

function toAlias(row: AliasRow): AliasRecord {
  return {
    alias: row.alias,
    indexId: row.index_id,
    indexName: row.index_name,
    isWriteIndex: row.is_write_index,
    filter: row.filter,
    indexRouting: row.index_routing,
    searchRouting: row.search_routing,
    isHidden: row.is_hidden,
  };
}

export interface AliasToSave {
  alias: string;
  indexId: string;
  isWriteIndex?: boolean | null;
  filter?: Record<string, unknown> | null;
  indexRouting?: string | null;
  searchRouting?: string | null;
  isHidden?: boolean | null;
}

export async function saveAlias(db: Queryable, alias: AliasToSave): Promise<void> {
  await db.query(
    `INSERT INTO aliases (alias, index_id, is_write_index, filter, index_routing, search_routing, is_hidden)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (alias, index_id) DO UPDATE SET is_write_index = EXCLUDED.is_write_index, filter = EXCLUDED.filter,
       index_routing = EXCLUDED.index_routing, search_routing = EXCLUDED.search_routing,
       is_hidden = EXCLUDED.is_hidden`,
    [
      alias.alias,
      alias.indexId,
      alias.isWriteIndex ?? null,
      alias.filter ? JSON.stringify(alias.filter) : null,
      alias.indexRouting ?? null,
      alias.searchRouting ?? null,
      alias.isHidden ?? null,
    ],
  );
}

/** Removes the alias from the given indices; returns how many links went away. */
export async function deleteAlias(db: Queryable, alias: string, indexIds: string[]): Promise<number> {
  const { rowCount } = await db.query(
    'DELETE FROM aliases WHERE alias = $1 AND index_id = ANY($2::bigint[])',
    [alias, indexIds],
  );
  return rowCount ?? 0;
}
