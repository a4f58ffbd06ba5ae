import { randomBytes } from 'node:crypto';
import { EsError } from '@acme/common';
import type { IndexMapping } from '../mapping/mapping-types';
import { parseMappingDefinition, wrapCreateIndexMappingError } from '../mapping/parse-mapping';
import { saveAlias } from '../storage/aliases.repo';
import { findIndicesByName, saveNewIndex, type IndexRecord } from '../storage/indices.repo';
import type { Pool } from 'pg';
import { inTransaction, type Queryable } from '../storage/queryable';
import { checkIndexName } from './check-index-name';
import { indexAlreadyExists } from '../es-errors';
import { parseAliasDefinitions } from './alias-definitions';
import { loadCatalogFor } from './index-expression';
import { mappingWith, templateForNewIndex } from './index-templates/resolve-index-template';
import { buildIndexSettings, flattenSettings } from './index-settings';
import { checkMappingLimits, mappingLimitsOf } from '../mapping/mapping-limits';

/** A fresh index uuid: 16 random bytes as 22 base64url characters, as Elasticsearch shows them. */
export function newIndexUuid(): string {
  return randomBytes(16).toString('base64url');
}

export interface CreateIndexRequest {
  name: string;
  mappings?: unknown;
  settings?: unknown;
  aliases?: unknown;
}

export { parseAliasDefinitions, type AliasDefinition } from './alias-definitions';

/**
 * Creates an index (ES "Create index API"): checks the name, the mapping ("Failed to parse mapping: …")
 * and settings, refuses a name taken by an index or an alias, and writes the catalog row and aliases.
 * The matching index template (catalog/index-templates/) gives its settings, mappings and aliases
 * first; the request's own go on top (ES MetadataCreateIndexService).
 */
export async function createIndex(pool: Pool, request: CreateIndexRequest): Promise<IndexRecord> {
  return inTransaction(pool, async (client) => saveIndex(client, request, 'fail'));
}

/**
 * Auto-creates `name` for a write or a reindex destination (ES AutoCreateAction): the matching
 * template applies as for an explicit create; a name created concurrently is returned as it is.
 */
export async function autoCreateIndex(db: Queryable, name: string): Promise<IndexRecord> {
  return saveIndex(db, { name }, 'reuse');
}

async function saveIndex(
  db: Queryable,
  request: CreateIndexRequest,
  ifExists: 'fail' | 'reuse',
): Promise<IndexRecord> {
  checkIndexName(request.name);
  let requested: IndexMapping | undefined;
  if (request.mappings !== undefined) {
    try {
      requested = parseMappingDefinition(request.mappings);
    } catch (error) {
      if (error instanceof EsError && error.type === 'mapper_parsing_exception')
        throw wrapCreateIndexMappingError(error);
      throw error;
    }
  }
  const requestedSettings = flattenSettings(request.settings ?? {});
  // MetadataCreateIndexService: a request making the index hidden skips global (`*`) templates.
  const hidden = requestedSettings['index.hidden'] === 'true';
  const template = await templateForNewIndex(db, request.name, hidden);
  const mappings = mappingWith(template, requested);
  const uuid = newIndexUuid();
  const settings = buildIndexSettings(request.name, uuid, {
    ...(template?.settings ?? {}),
    ...requestedSettings,
  });
  // MetadataCreateIndexService merges the mapping under the new settings: the limits apply at once.
  checkMappingLimits(mappings, mappingLimitsOf(settings));
  const aliases = { ...(template?.aliases ?? {}), ...parseAliasDefinitions(request.aliases) };
  const catalog = await loadCatalogFor(db, [request.name, ...Object.keys(aliases)]);
  const existing = catalog.indices.find((i) => i.name === request.name);
  if (existing) {
    if (ifExists === 'reuse') return existing;
    throw indexAlreadyExists(existing.name, existing.uuid);
  }
  if (catalog.aliases.some((a) => a.alias === request.name)) {
    throw new EsError(
      'invalid_index_name_exception',
      `Invalid index name [${request.name}], already exists as alias`,
      {
        metadata: { index_uuid: '_na_', index: request.name },
      },
    );
  }
  for (const alias of Object.keys(aliases)) {
    if (alias === request.name || catalog.indices.some((i) => i.name === alias)) {
      throw new EsError(
        'invalid_alias_name_exception',
        `Invalid alias name [${alias}]: an index or data stream exists with the same name as the alias`,
        { metadata: { index_uuid: '_na_', index: alias } },
      );
    }
  }
  const created = await saveNewIndex(db, {
    name: request.name,
    uuid,
    mappings,
    settings,
    blocksWrite: settings['index.blocks.write'] === 'true',
  });
  if (!created) {
    const [raced] = await findIndicesByName(db, [request.name]);
    if (ifExists === 'reuse' && raced) return raced;
    throw indexAlreadyExists(request.name, raced?.uuid ?? uuid);
  }
  for (const [alias, definition] of Object.entries(aliases)) {
    await saveAlias(db, {
      alias,
      indexId: created.indexId,
      isWriteIndex: definition.is_write_index ?? null,
      filter: definition.filter ?? null,
      indexRouting: definition.index_routing ?? definition.routing ?? null,
      searchRouting: definition.search_routing ?? definition.routing ?? null,
      isHidden: definition.is_hidden ?? null,
    });
  }
  return created;
}
