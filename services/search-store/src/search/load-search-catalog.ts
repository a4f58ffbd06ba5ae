import type { CustomTypesConfig } from 'pg';
import type { AliasRecord } from '../storage/aliases.repo';
import type { IndexRecord } from '../storage/indices.repo';
import type { Queryable } from '../storage/queryable';
import type { Catalog } from '../catalog/index-expression';

/**
 * The catalog a search expression resolves against, in one statement (every search pays for it):
 * for concrete names only the indices and aliases by those names and the aliases' indices, which is
 * all resolveIndexExpression and the alias filters can reach; for wildcards and `_all`, everything.
 */
const INDEX_JSON = `json_build_object('index_id', i.index_id::text, 'name', i.name, 'uuid', i.uuid,
  'mappings', i.mappings, 'settings', i.settings, 'blocks_write', i.blocks_write,
  'closed', i.closed, 'max_seq_no', i.max_seq_no, 'created_at', i.created_at)`;
const ALIAS_JSON = `json_build_object('alias', a.alias, 'index_id', a.index_id::text, 'index_name', i.name,
  'is_write_index', a.is_write_index, 'filter', a.filter, 'index_routing', a.index_routing,
  'search_routing', a.search_routing, 'is_hidden', a.is_hidden)`;

const BY_NAME = `SELECT
  (SELECT coalesce(json_agg(${INDEX_JSON} ORDER BY i.name), '[]') FROM indices i
   WHERE i.name = ANY($1::text[]) OR i.index_id IN (SELECT index_id FROM aliases WHERE alias = ANY($1::text[]))) AS indices,
  (SELECT coalesce(json_agg(${ALIAS_JSON} ORDER BY a.alias, i.name), '[]') FROM aliases a JOIN indices i USING (index_id)
   WHERE a.alias = ANY($1::text[])) AS aliases`;

const ALL = `SELECT
  (SELECT coalesce(json_agg(${INDEX_JSON} ORDER BY i.name), '[]') FROM indices i) AS indices,
  (SELECT coalesce(json_agg(${ALIAS_JSON} ORDER BY a.alias, i.name), '[]') FROM aliases a JOIN indices i USING (index_id)) AS aliases`;

interface IndexJson {
  index_id: string;
  name: string;
  uuid: string;
  mappings: IndexRecord['mappings'];
  settings: Record<string, string>;
  blocks_write: boolean;
  closed: boolean;
  max_seq_no: number;
  created_at: string;
}

interface AliasJson {
  alias: string;
  index_id: string;
  index_name: string;
  is_write_index: boolean | null;
  filter: Record<string, unknown> | null;
  index_routing: string | null;
  search_routing: string | null;
  is_hidden: boolean | null;
}

/** True when the expression names indices or aliases without wildcards, `_all` or exclusions. */
function concreteNames(expression: string): string[] | undefined {
  if (expression === '' || expression === '_all') return undefined;
  const parts = expression.split(',');
  return parts.some((p) => p.includes('*') || p.startsWith('-') || p === '_all') ? undefined : parts;
}

/** Both json columns as their text: the text is the catalog's identity (see SearchCatalog.key). */
const RAW_TEXT = { getTypeParser: () => (value: string) => value } as unknown as CustomTypesConfig;

export interface SearchCatalog extends Catalog {
  /**
   * The catalog's text as Postgres returned it: equal keys mean equal catalogs (same index ids,
   * names, uuids, mappings, settings and alias links), which lets callers reuse what they derived.
   */
  key: string;
}

/** Parsed catalogs by key: a search on an unchanged catalog skips JSON.parse of every mapping. */
const parsed = new Map<string, SearchCatalog>();
const MAX_PARSED = 64;

/**
 * The catalog's statement for an expression, its parameters numbered from `$<first>`: a SELECT of two
 * text columns (indices, aliases) that the fast path can also run inside its own statement.
 */
export function catalogStatement(
  expression: string,
  first = 1,
): { select: string; values: unknown[]; name: string } {
  const names = concreteNames(expression);
  return names
    ? { select: BY_NAME.replaceAll('$1', `$${first}`), values: [names], name: `by-name-${first}` }
    : { select: ALL, values: [], name: 'all' };
}

export async function loadSearchCatalog(db: Queryable, expression: string): Promise<SearchCatalog> {
  const names = concreteNames(expression);
  const { rows } = await db.query<{ indices: string; aliases: string }>(
    names
      ? { name: 'search-catalog-by-name', text: BY_NAME, values: [names], types: RAW_TEXT }
      : { name: 'search-catalog-all', text: ALL, values: [], types: RAW_TEXT },
  );
  return catalogFromText(rows[0]!);
}

/** The catalog of the statement's two columns as Postgres printed them. */
export function catalogFromText(row: { indices: string; aliases: string }): SearchCatalog {
  const key = `${row.indices}\u0000${row.aliases}`;
  const known = parsed.get(key);
  if (known) return known;
  const catalog = parseCatalog(
    key,
    JSON.parse(row.indices) as IndexJson[],
    JSON.parse(row.aliases) as AliasJson[],
  );
  if (parsed.size >= MAX_PARSED) parsed.delete(parsed.keys().next().value!);
  parsed.set(key, catalog);
  return catalog;
}

function parseCatalog(key: string, indices: IndexJson[], aliases: AliasJson[]): SearchCatalog {
  return {
    key,
    indices: indices.map((i): IndexRecord => ({
      indexId: i.index_id,
      name: i.name,
      uuid: i.uuid,
      mappings: i.mappings,
      settings: i.settings,
      blocksWrite: i.blocks_write,
      closed: i.closed,
      maxSeqNo: Number(i.max_seq_no),
      createdAt: new Date(i.created_at),
    })),
    aliases: aliases.map((a): AliasRecord => ({
      alias: a.alias,
      indexId: a.index_id,
      indexName: a.index_name,
      isWriteIndex: a.is_write_index,
      filter: a.filter,
      indexRouting: a.index_routing,
      searchRouting: a.search_routing,
      isHidden: a.is_hidden,
    })),
  };
}
