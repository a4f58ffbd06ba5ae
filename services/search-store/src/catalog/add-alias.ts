import type { Pool, PoolClient } from 'pg';
import { EsError } from '@acme/common';
import { indexNotFound } from '../es-errors';
import { saveAlias } from '../storage/aliases.repo';
import { inTransaction } from '../storage/queryable';
import { checkIndexName } from './check-index-name';
import { checkIndexBlocks } from './index-blocks';
import { CLOSED_ALLOWED, loadCatalog, resolveIndexExpression, type Catalog } from './index-expression';

/**
 * The `add` alias action: each alias (a valid name, not an index's) on every target, with the spec's
 * write flag, filter and routing.
 */
export async function addAlias(
  client: PoolClient,
  catalog: Catalog,
  targets: Catalog['indices'],
  aliases: string[],
  spec: Record<string, unknown>,
): Promise<void> {
  if (spec.must_exist !== undefined)
    throw new EsError('illegal_argument_exception', '[must_exist] is unsupported for [ADD]');
  if (aliases.length === 0) {
    throw new EsError(
      'action_request_validation_exception',
      'Validation Failed: 1: One of [alias] or [aliases] is required;',
    );
  }
  if (targets.length === 0) throw indexNotFound(String(spec.index ?? spec.indices));
  for (const alias of aliases) {
    checkIndexName(alias, 'alias');
    if (catalog.indices.some((i) => i.name === alias)) {
      throw new EsError(
        'invalid_alias_name_exception',
        `Invalid alias name [${alias}]: an index or data stream exists with the same name as the alias`,
        { metadata: { index_uuid: '_na_', index: alias } },
      );
    }
    for (const target of targets) {
      await saveAlias(client, {
        alias,
        indexId: target.indexId,
        isWriteIndex: typeof spec.is_write_index === 'boolean' ? spec.is_write_index : null,
        filter: (spec.filter as Record<string, unknown> | undefined) ?? null,
        indexRouting: (spec.index_routing ?? spec.routing ?? null) as string | null,
        searchRouting: (spec.search_routing ?? spec.routing ?? null) as string | null,
      });
    }
  }
}

/** ES "Create or update alias API": the body is the alias spec; METADATA_WRITE blocks refuse it. */
export async function putAliases(
  pool: Pool,
  expression: string,
  aliases: string[],
  spec: Record<string, unknown>,
): Promise<void> {
  await inTransaction(pool, async (client) => {
    const catalog = await loadCatalog(client);
    const targets = resolveIndexExpression(catalog, expression, CLOSED_ALLOWED);
    checkIndexBlocks(targets, 'metadata_write');
    await addAlias(client, catalog, targets, aliases, spec);
  });
}
