import { EsError } from '@acme/common';
import { checkIndexName } from '../catalog/check-index-name';
import { newIndexUuid, parseAliasDefinitions } from '../catalog/create-index';
import { loadCatalog } from '../catalog/index-expression';
import { INDEX_VERSION_CREATED, flattenSettings } from '../catalog/index-settings';
import { indexAlreadyExists, indexNotFound } from '../es-errors';
import { saveAlias } from '../storage/aliases.repo';
import { copyAllDocuments } from '../storage/documents.repo';
import { lockIndices, saveMaxSeqNo, saveNewIndex } from '../storage/indices.repo';
import { inTransaction } from '../storage/queryable';
import { statisticsRefresherFor } from '../storage/statistics-refresher';
import type { WriteDeps } from './index-state';

const NOT_COPIED = new Set([
  'index.uuid',
  'index.creation_date',
  'index.provided_name',
  'index.version.created',
]);

export interface CloneIndexRequest {
  source: string;
  target: string;
  /** The request body's parts, unparsed: `mappings` is refused, `settings` and `aliases` apply. */
  mappings?: unknown;
  settings?: unknown;
  aliases?: unknown;
}

/**
 * ES "Clone index API": only a write-blocked source (500 illegal_state_exception otherwise); the target
 * gets the source's mappings and settings (the write block included, ES indices.clone/30_copy_settings.yml)
 * plus the request's settings and aliases, and a copy of every document and of the inverted index, all
 * in SQL inside one transaction. It writes documents and postings, so it lives with the document store.
 */
export async function cloneIndex(
  deps: Pick<WriteDeps, 'pool' | 'indexWriter'>,
  request: CloneIndexRequest,
): Promise<void> {
  const { source: sourceName, target: targetName } = request;
  if (request.mappings !== undefined) {
    throw new EsError(
      'illegal_argument_exception',
      'mappings are not allowed when resizing indices, all mappings are copied from the source index',
    );
  }
  const requested = flattenSettings(request.settings ?? {});
  const aliases = parseAliasDefinitions(request.aliases);
  const copied = await inTransaction(deps.pool, async (client) => {
    const catalog = await loadCatalog(client);
    const found = catalog.indices.find((i) => i.name === sourceName);
    if (!found) throw indexNotFound(sourceName);
    const [source] = await lockIndices(client, [found.indexId]);
    if (!source) throw indexNotFound(sourceName);
    if (!source.blocksWrite) {
      throw new EsError(
        'illegal_state_exception',
        `index ${sourceName} must be read-only to resize index. use "index.blocks.write=true"`,
      );
    }
    checkIndexName(targetName);
    const existing = catalog.indices.find((i) => i.name === targetName);
    if (existing) throw indexAlreadyExists(existing.name, existing.uuid);
    if (requested['index.number_of_shards'] !== undefined && requested['index.number_of_shards'] !== '1') {
      throw new EsError(
        'illegal_argument_exception',
        `the number of source shards [1] must be a factor of [${requested['index.number_of_shards']}]`,
      );
    }
    const uuid = newIndexUuid();
    const copied = Object.fromEntries(Object.entries(source.settings).filter(([k]) => !NOT_COPIED.has(k)));
    const settings: Record<string, string> = {
      ...copied,
      ...requested,
      'index.uuid': uuid,
      'index.provided_name': targetName,
      'index.creation_date': String(Date.now()),
      'index.version.created': INDEX_VERSION_CREATED,
      'index.resize.source.name': sourceName,
      'index.resize.source.uuid': source.uuid,
    };
    const target = await saveNewIndex(client, {
      name: targetName,
      uuid,
      mappings: source.mappings,
      settings,
      blocksWrite: settings['index.blocks.write'] === 'true',
    });
    if (!target) throw indexAlreadyExists(targetName, uuid);
    const documents = await copyAllDocuments(client, source.indexId, target.indexId);
    await deps.indexWriter.copyIndex(client, source.indexId, target.indexId);
    await saveMaxSeqNo(client, target.indexId, source.maxSeqNo);
    for (const [alias, definition] of Object.entries(aliases)) {
      await saveAlias(client, {
        alias,
        indexId: target.indexId,
        isWriteIndex: definition.is_write_index ?? null,
        filter: definition.filter ?? null,
      });
    }
    return documents;
  });
  // A clone writes a whole index at once: the planner must not see the new rows as empty tables.
  statisticsRefresherFor(deps.pool).noteWrites(copied);
}
