import { EsError } from '@acme/common';
import { nestedBelow } from '../index/nested-docs-reader';
import type { AggRun } from './agg-run';
import type { AggNode } from './agg-types';
import type { Bucket } from './render-bucket';
import type { DocSet } from './sql-builder';

/**
 * ES `nested` and `reverse_nested` aggregations: single-bucket aggregations that move from documents
 * to their objects at a nested path (doc_count counts objects) and back up to the enclosing nested
 * objects or the root documents (doc_count counts distinct parents), for their sub-aggregations.
 */
type NestedNode = Extract<AggNode, { type: 'nested' | 'reverse_nested' }>;

/** Levels from `path` up to `scope` ('root' when the scope is the document), undefined if not under it. */
function levelsUp(run: AggRun, path: string, scope: string): number | 'root' | undefined {
  if (scope === '') return 'root';
  if (!path.startsWith(`${scope}.`)) return undefined;
  const paths = run.ctx.nested?.paths ?? [];
  let levels = 0;
  let at: string | undefined = path;
  while (at !== undefined && at !== scope && levels <= paths.length) {
    levels++;
    at = paths.find((p) => p.path === at)?.parent;
  }
  return at === scope ? levels : undefined;
}

const NONE: DocSet = () => 'SELECT NULL::bigint AS doc_key, NULL::text AS g WHERE false';

function membershipOf(run: AggRun, node: NestedNode, docs: DocSet): DocSet {
  const scope = node.scope ?? '';
  const kind = run.ctx.nested?.kindOf(node.type === 'nested' ? node.path : (node.path ?? scope));
  if (node.type === 'nested') {
    // NestedAggregationBuilder#doBuild: an unmapped path is an empty bucket, an object path an error.
    if (kind === 'object')
      throw new EsError(
        'aggregation_execution_exception',
        `[nested] nested path [${node.path}] is not nested`,
      );
    const up = kind === 'nested' ? levelsUp(run, node.path, scope) : undefined;
    if (up === undefined) return NONE;
    return (b) =>
      `SELECT a.doc_key, d.g FROM (${docs(b)}) d JOIN (${nestedBelow(b.param(run.ctx.indexIds, 'bigint[]'), b.param(node.path, 'text'), up)}) a ON a.parent_key = d.doc_key`;
  }
  if (node.scope === undefined) {
    throw new EsError(
      'illegal_argument_exception',
      `Reverse nested aggregation [${node.name}] can only be used inside a [nested] aggregation`,
    );
  }
  const target = node.path ?? '';
  if (target !== '' && kind === 'object')
    throw new EsError(
      'aggregation_execution_exception',
      `[reverse_nested] nested path [${target}] is not nested`,
    );
  if (target !== '' && kind === undefined) return NONE;
  const up = levelsUp(run, scope, target);
  if (up === undefined || scope === target) return docs;
  return (b) =>
    `SELECT DISTINCT a.parent_key AS doc_key, d.g FROM (${docs(b)}) d JOIN (${nestedBelow(b.param(run.ctx.indexIds, 'bigint[]'), b.param(scope, 'text'), up)}) a ON a.doc_key = d.doc_key`;
}

export async function computeNested(
  run: AggRun,
  node: NestedNode,
  docs: DocSet,
  groups: string[],
): Promise<Map<string, unknown>> {
  const membership = membershipOf(run, node, docs);
  const rows = await run.query<{ g: string; c: string }>(
    (b) => `SELECT m.g, count(*) AS c FROM (${membership(b)}) m GROUP BY m.g`,
  );
  const counts = new Map(rows.map((r) => [r.g, Number(r.c)]));
  const buckets: Bucket[] = groups.map((g) => ({ bg: g, docCount: counts.get(g) ?? 0, head: {}, subs: {} }));
  run.countBuckets(buckets.length);
  await run.attachSubs(node.subs, membership, buckets);
  return new Map(buckets.map((bucket) => [bucket.bg, { doc_count: bucket.docCount, ...bucket.subs }]));
}

/**
 * Parses `nested: {path}` and `reverse_nested: {path?}`, and gives the nested and reverse_nested
 * aggregations below the scope they run in (the nearest enclosing one's path, '' for documents).
 */
export function parseNestedAgg(
  type: 'nested' | 'reverse_nested',
  name: string,
  spec: Record<string, unknown>,
  subs: AggNode[],
): NestedNode {
  for (const key of Object.keys(spec)) {
    if (key !== 'path')
      throw new EsError('parsing_exception', `[${type}] unknown field [${key}]`, {
        metadata: { line: 1, col: 1 },
      });
  }
  if (type === 'nested' && typeof spec.path !== 'string')
    throw new EsError('parsing_exception', `Missing [path] field for nested aggregation [${name}]`, {
      metadata: { line: 1, col: 1 },
    });
  const node: NestedNode =
    type === 'nested'
      ? { type, name, subs, path: String(spec.path) }
      : { type, name, subs, ...(spec.path === undefined ? {} : { path: String(spec.path) }) };
  const inner = type === 'nested' ? String(spec.path) : ((spec.path as string | undefined) ?? '');
  const assign = (nodes: AggNode[]): void => {
    for (const sub of nodes) {
      if (sub.type === 'nested' || sub.type === 'reverse_nested') {
        sub.scope ??= inner;
        continue; // its own subtree was given its scope when it was built
      }
      assign(sub.subs);
    }
  };
  assign(subs);
  return node;
}
