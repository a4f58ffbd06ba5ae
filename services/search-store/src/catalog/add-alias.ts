import type { Pool, PoolClient } from 'pg';
import { EsError } from '@acme/common';
import { indexNotFound } from '../es-errors';
import { parseQuery } from '../query/parse/parse-query';
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
  const isHidden = typeof spec.is_hidden === 'boolean' ? spec.is_hidden : null;
  for (const alias of aliases) {
    checkIndexName(alias, 'alias');
    checkAliasSpec(alias, spec);
    checkHiddenConsistency(catalog, targets, alias, isHidden);
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
        isHidden,
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

/**
 * AliasValidator#validateAliasStandalone: the filter must parse as a query, and an alias has at most
 * one index routing value (search routing may list several).
 */
function checkAliasSpec(alias: string, spec: Record<string, unknown>): void {
  if (spec.filter !== undefined && spec.filter !== null) {
    try {
      if (typeof spec.filter !== 'object' || Array.isArray(spec.filter))
        throw new EsError('parsing_exception', 'filter must be an object');
      parseQuery(spec.filter);
    } catch (error) {
      if (!(error instanceof EsError)) throw error;
      throw new EsError('illegal_argument_exception', `failed to parse filter for alias [${alias}]`, {
        causedBy: error.toCause(),
      });
    }
  }
  const indexRouting = spec.index_routing ?? spec.routing;
  if (typeof indexRouting === 'string' && indexRouting.includes(',')) {
    throw new EsError(
      'illegal_argument_exception',
      `alias [${alias}] has several index routing values associated with it`,
    );
  }
}

/**
 * Metadata#validateAlias: an alias is hidden on all its indices or on none (an unset flag counts as
 * not hidden), checked on the links the alias will have after this add.
 */
function checkHiddenConsistency(
  catalog: Catalog,
  targets: Catalog['indices'],
  alias: string,
  isHidden: boolean | null,
): void {
  const targetIds = new Set(targets.map((t) => t.indexId));
  const links = [
    ...catalog.aliases
      .filter((a) => a.alias === alias && !targetIds.has(a.indexId))
      .map((a) => ({ index: a.indexName, hidden: a.isHidden === true })),
    ...targets.map((t) => ({ index: t.name, hidden: isHidden === true })),
  ];
  const hidden = links.filter((l) => l.hidden).map((l) => l.index);
  const visible = links.filter((l) => !l.hidden).map((l) => l.index);
  if (hidden.length > 0 && visible.length > 0) {
    throw new EsError(
      'illegal_state_exception',
      `alias [${alias}] has is_hidden set to true on indices [${hidden.sort().join(',')}] but does not have is_hidden set to true on indices [${visible.sort().join(',')}]; alias must have the same is_hidden setting on all indices`,
    );
  }
}
