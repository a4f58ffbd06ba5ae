import type { Pool, PoolClient } from 'pg';
import { EsError } from '@acme/common';
import { indexNotFound } from '../es-errors';
import type { IndexWriter } from '../index/index-writer';
import { findDocKeys } from '../storage/documents.repo';
import { deleteIndicesById, lockIndices, type IndexRecord } from '../storage/indices.repo';
import { inTransaction } from '../storage/queryable';
import { isDestructiveRequiresName } from './cluster-settings';
import { checkIndexBlocks } from './index-blocks';
import { CLOSED_ALLOWED, loadCatalog, resolveIndexExpression } from './index-expression';

/** An IndexWriter may offer a set-based drop of a whole index; otherwise every doc key is removed. */
interface DroppingIndexWriter extends IndexWriter {
  dropIndex?(client: PoolClient, indexId: string): Promise<void>;
}

/**
 * Deletes indices with everything they own. Documents and aliases go by ON DELETE CASCADE; the
 * inverted index is the engine's, so it is cleared through the IndexWriter seam in the same
 * transaction.
 */
export async function deleteIndices(
  client: PoolClient,
  writer: IndexWriter,
  indices: IndexRecord[],
): Promise<void> {
  const dropping = writer as DroppingIndexWriter;
  // Wait for in-flight writes to these indices, so no document slips in after its postings are cleared.
  await lockIndices(
    client,
    indices.map((i) => i.indexId),
  );
  for (const index of indices) {
    if (dropping.dropIndex) await dropping.dropIndex(client, index.indexId);
    else {
      const docKeys = await findDocKeys(client, index.indexId);
      if (docKeys.length > 0) {
        await writer.remove(
          client,
          { indexId: index.indexId, name: index.name, mappings: index.mappings, settings: index.settings },
          docKeys,
        );
      }
    }
  }
  await deleteIndicesById(
    client,
    indices.map((i) => i.indexId),
  );
}

/**
 * ES "Delete index API": wildcards and `_all` only while `action.destructive_requires_name` is false;
 * every concrete name must be an index (an alias is refused, a missing name is a 404); wildcards
 * expand over indices only, never through aliases (ES expand_wildcards on delete).
 */
export async function deleteIndex(pool: Pool, writer: IndexWriter, expression: string): Promise<void> {
  await inTransaction(pool, async (client) => {
    const parts = expression.split(',');
    const isWildcard = parts.some((p) => p === '_all' || p.includes('*'));
    if (isWildcard && (await isDestructiveRequiresName(client))) {
      throw new EsError('illegal_argument_exception', 'Wildcard expressions or all indices are not allowed');
    }
    const catalog = await loadCatalog(client);
    for (const part of parts) {
      if (part === '_all' || part.includes('*') || part.startsWith('-')) continue;
      if (catalog.indices.some((i) => i.name === part)) continue;
      if (catalog.aliases.some((a) => a.alias === part)) {
        throw new EsError(
          'illegal_argument_exception',
          `The provided expression [${part}] matches an alias, specify the corresponding concrete indices instead.`,
        );
      }
      throw indexNotFound(part);
    }
    const indexOnly = { indices: catalog.indices, aliases: [] };
    const targets = resolveIndexExpression(indexOnly, expression, {
      ...CLOSED_ALLOWED,
      ignoreUnavailable: true,
    });
    // ClusterBlocks#indicesAllowReleaseResources: read_only and metadata refuse, read_only_allow_delete not.
    checkIndexBlocks(targets, 'metadata_write', { releasingResources: true });
    await deleteIndices(client, writer, targets);
  });
}
