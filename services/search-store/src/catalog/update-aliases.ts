import type { Pool, PoolClient } from 'pg';
import { EsError } from '@acme/common';
import { aliasesMissing } from '../es-errors';
import type { IndexWriter } from '../index/index-writer';
import { inTransaction } from '../storage/queryable';
import { addAlias } from './add-alias';
import { deleteIndices } from './delete-index';
import { checkIndexBlocks } from './index-blocks';
import { CLOSED_ALLOWED, loadCatalog, resolveIndexExpression, type Catalog } from './index-expression';
import { removeAlias, type AliasActionResult } from './remove-alias';

function names(one: unknown, many: unknown): string[] {
  const list = [
    ...(Array.isArray(many) ? many : many === undefined ? [] : [many]),
    ...(one === undefined ? [] : [one]),
  ];
  return list.map(String);
}

/**
 * ES "Update aliases API" (POST /_aliases): the actions run in order in one transaction. A lone
 * action that fails is the request's error; otherwise the results report each action.
 */
export async function updateAliases(
  deps: { pool: Pool; indexWriter: IndexWriter },
  actions: unknown[],
): Promise<AliasActionResult[]> {
  const results = await inTransaction(deps.pool, async (client) => {
    checkActionBlocks(await loadCatalog(client), actions);
    const out: AliasActionResult[] = [];
    for (const entry of actions) out.push(await applyAction(client, deps.indexWriter, entry));
    return out;
  });
  const failed = results.filter((r) => r.error);
  if (failed.length > 0 && failed.length === results.length && results.length === 1) {
    throw aliasesMissing(results[0]?.action.aliases ?? []);
  }
  return results;
}

/**
 * `TransportIndicesAliasesAction#checkBlock`: METADATA_WRITE blocks on every index the actions name
 * (as written), before any action runs.
 */
function checkActionBlocks(catalog: Catalog, actions: unknown[]): void {
  const named = new Set<string>();
  for (const entry of actions) {
    if (typeof entry !== 'object' || entry === null) continue;
    for (const spec of Object.values(entry as Record<string, Record<string, unknown> | null>)) {
      if (spec && typeof spec === 'object') for (const n of names(spec.index, spec.indices)) named.add(n);
    }
  }
  checkIndexBlocks(
    catalog.indices.filter((i) => named.has(i.name)),
    'metadata_write',
  );
}

async function applyAction(
  client: PoolClient,
  indexWriter: IndexWriter,
  entry: unknown,
): Promise<AliasActionResult> {
  if (typeof entry !== 'object' || entry === null || Object.keys(entry).length !== 1) {
    throw new EsError('illegal_argument_exception', 'Expected exactly one action per entry');
  }
  const [type, spec] = Object.entries(entry as Record<string, Record<string, unknown>>)[0] as [
    string,
    Record<string, unknown>,
  ];
  const catalog = await loadCatalog(client);
  const indexNames = names(spec.index, spec.indices);
  const aliasNames = names(spec.alias, spec.aliases);
  if (indexNames.length === 0) {
    throw new EsError(
      'action_request_validation_exception',
      'Validation Failed: 1: One of [index] or [indices] is required;',
    );
  }
  const targets = resolveIndexExpression(catalog, indexNames.join(','), CLOSED_ALLOWED);
  const result: AliasActionResult = {
    action: { type, indices: targets.map((t) => t.name), aliases: aliasNames },
    status: 200,
  };
  switch (type) {
    case 'add':
      await addAlias(client, catalog, targets, aliasNames, spec);
      return result;
    case 'remove':
      return removeAlias(client, catalog, targets, aliasNames, spec, result);
    case 'remove_index':
      for (const name of indexNames) {
        if (!name.includes('*') && catalog.aliases.some((a) => a.alias === name)) {
          throw new EsError(
            'illegal_argument_exception',
            `The provided expression [${name}] matches an alias, specify the corresponding concrete indices instead.`,
          );
        }
      }
      await deleteIndices(client, indexWriter, targets);
      return result;
    default:
      throw new EsError('illegal_argument_exception', `[aliases_action] unknown field [${type}]`);
  }
}
