import { EsError } from '@acme/common';
import type { Pool, PoolClient } from 'pg';
import type { IndexRow } from '../query/index-reader';

/** A concrete index a search runs on, with the alias filter that applies when it was reached only through one. */
export interface ResolvedIndex extends IndexRow {
  aliasFilter?: unknown;
}

function wildcard(pattern: string): RegExp {
  return new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
}

export function indexNotFound(name: string): EsError {
  return new EsError('index_not_found_exception', `no such index [${name}]`, {
    metadata: { 'resource.type': 'index_or_alias', 'resource.id': name, index_uuid: '_na_', index: name },
  });
}

/**
 * Resolves a search's index expression (`a,b`, `logs-*`, aliases, `_all`, `-excluded`) against the
 * catalog. A missing concrete name is a 404; a wildcard that matches nothing is no index (allow_no_indices).
 */
export async function resolveSearchIndices(
  db: Pool | PoolClient,
  expression: string | undefined,
  options: { ignoreUnavailable?: boolean } = {},
): Promise<ResolvedIndex[]> {
  const { rows: indices } = await db.query<IndexRow>(
    'SELECT index_id::text AS index_id, name, uuid, mappings, settings FROM indices ORDER BY name',
  );
  const { rows: aliases } = await db.query<{ alias: string; index_id: string; filter: unknown }>(
    'SELECT alias, index_id::text AS index_id, filter FROM aliases',
  );
  const byId = new Map(indices.map((i) => [i.index_id, i]));
  const chosen = new Map<string, { direct: boolean; filters: unknown[] }>();
  const addIndex = (id: string, filter?: unknown): void => {
    const entry = chosen.get(id) ?? { direct: false, filters: [] };
    if (filter === undefined) entry.direct = true;
    else entry.filters.push(filter);
    chosen.set(id, entry);
  };
  const parts = (expression ?? '_all')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  for (const part of parts) {
    if (part.startsWith('-') && chosen.size > 0) {
      const re = wildcard(part.slice(1));
      for (const id of [...chosen.keys()]) if (re.test(byId.get(id)!.name)) chosen.delete(id);
      continue;
    }
    if (part === '_all' || part === '*') {
      for (const i of indices) addIndex(i.index_id);
      continue;
    }
    if (part.includes('*')) {
      const re = wildcard(part);
      for (const i of indices) if (re.test(i.name)) addIndex(i.index_id);
      for (const a of aliases) if (re.test(a.alias)) addIndex(a.index_id, a.filter ?? undefined);
      continue;
    }
    const index = indices.find((i) => i.name === part);
    if (index) {
      addIndex(index.index_id);
      continue;
    }
    const viaAlias = aliases.filter((a) => a.alias === part);
    if (viaAlias.length === 0) {
      if (options.ignoreUnavailable) continue;
      throw indexNotFound(part);
    }
    for (const a of viaAlias) addIndex(a.index_id, a.filter ?? undefined);
  }
  return [...chosen.entries()]
    .map(([id, entry]) => {
      const row: ResolvedIndex = { ...byId.get(id)! };
      // Reached directly, or through any alias without a filter: no filter applies.
      if (!entry.direct && entry.filters.length > 0 && entry.filters.every((f) => f !== null)) {
        row.aliasFilter = entry.filters.length === 1 ? entry.filters[0] : { bool: { should: entry.filters } };
      }
      return row;
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
