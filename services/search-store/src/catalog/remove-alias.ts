import type { Pool, PoolClient } from 'pg';
import { aliasesMissing } from '../es-errors';
import { deleteAlias } from '../storage/aliases.repo';
import { inTransaction } from '../storage/queryable';
import { simpleMatch } from '../text/simple-match';
import { checkIndexBlocks } from './index-blocks';
import { CLOSED_ALLOWED, loadCatalog, resolveIndexExpression, type Catalog } from './index-expression';

/** One alias action's outcome, as POST /_aliases reports it in `action_results`. */
export interface AliasActionResult {
  action: { type: string; indices: string[]; aliases: string[] };
  status: number;
  error?: Record<string, unknown>;
}

/**
 * The `remove` alias action: every alias matching the patterns, from the targets. Nothing removed is
 * aliases_not_found_exception: thrown with `must_exist: true`, else a 404 result.
 */
export async function removeAlias(
  client: PoolClient,
  catalog: Catalog,
  targets: Catalog['indices'],
  aliases: string[],
  spec: Record<string, unknown>,
  result: AliasActionResult,
): Promise<AliasActionResult> {
  let removed = 0;
  for (const pattern of aliases) {
    const matching = [
      ...new Set(catalog.aliases.filter((a) => simpleMatch(pattern, a.alias)).map((a) => a.alias)),
    ];
    for (const alias of matching)
      removed += await deleteAlias(
        client,
        alias,
        targets.map((t) => t.indexId),
      );
  }
  if (removed > 0) return result;
  const missing = aliasesMissing(aliases);
  if (spec.must_exist === true) throw missing;
  return { ...result, status: 404, error: missing.toCause() };
}

/** ES "Delete alias API": the aliases must exist (404 aliases_not_found_exception otherwise). */
export async function removeAliases(pool: Pool, expression: string, aliases: string[]): Promise<void> {
  await inTransaction(pool, async (client) => {
    const catalog = await loadCatalog(client);
    const targets = resolveIndexExpression(catalog, expression, CLOSED_ALLOWED);
    checkIndexBlocks(targets, 'metadata_write');
    const result: AliasActionResult = { action: { type: 'remove', indices: [], aliases }, status: 200 };
    const outcome = await removeAlias(client, catalog, targets, aliases, { must_exist: true }, result);
    if (outcome.error) throw aliasesMissing(aliases);
  });
}
