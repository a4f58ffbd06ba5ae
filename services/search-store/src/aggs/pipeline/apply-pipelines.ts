import { EsError } from '@acme/common';
import type { AggNode } from '../agg-types';
import { bucketList, isMultiBucket, parsePath, resolveInBucket } from './buckets-path';
import { gapValue } from './gap-value';
import { applyParentPipeline } from './parent-pipeline';
import { isSiblingPipeline, type PipelineSpec } from './pipeline-types';
import { siblingResult, type KeyedValue } from './sibling-pipeline';

type Result = Record<string, unknown>;
type PipelineNode = Extract<AggNode, { type: 'pipeline' }>;

function isPipeline(node: AggNode): node is PipelineNode {
  return node.type === 'pipeline';
}

function validation(reason: string): EsError {
  return new EsError('action_request_validation_exception', `Validation Failed: 1: ${reason};`);
}

const SINGLE_BUCKET = new Set(['filter']);

/** Elasticsearch's builder class name, as its "first aggregation in buckets_path" message shows it. */
function builderClass(node: AggNode): string {
  const pascal = node.type.replace(/(^|_)(\w)/g, (_m, _s, c: string) => c.toUpperCase());
  const pkg = SINGLE_BUCKET.has(node.type) || node.type === 'top_hits' ? 'bucket.filter' : 'metrics';
  return `org.elasticsearch.search.aggregations.${pkg}.${pascal}AggregationBuilder`;
}

/**
 * Checks every pipeline's place and buckets_path before anything runs, with Elasticsearch's
 * validation messages (PipelineAggregationBuilder.ValidationContext): a sibling pipeline's path starts
 * at a multi-bucket sibling; a parent pipeline sits inside a multi-bucket aggregation (a histogram for
 * derivative and cumulative_sum) and its path names one of its siblings, `_count` or `_key`.
 */
export function validatePipelines(nodes: AggNode[], parent?: AggNode): void {
  for (const node of nodes) {
    if (!isPipeline(node)) {
      validatePipelines(node.subs, node);
      continue;
    }
    const { spec } = node;
    if (isSiblingPipeline(spec.kind)) {
      const path = spec.paths.get('_value') as string;
      const first = parsePath(path)[0]?.name;
      const target = nodes.find((n) => n.name === first && n !== node);
      if (!target) throw validation(`No aggregation found for path [${path}]`);
      if (!isPipeline(target) && !isMultiBucket(target))
        throw validation(
          `The first aggregation in buckets_path must be a multi-bucket aggregation for aggregation [${node.name}] found :${builderClass(target)} for buckets path: ${path}`,
        );
      continue;
    }
    if (!parent)
      throw validation(
        `${spec.kind} aggregation [${node.name}] must be declared inside of another aggregation`,
      );
    const sequential = spec.kind === 'derivative' || spec.kind === 'cumulative_sum';
    if (sequential && parent.type !== 'histogram' && parent.type !== 'date_histogram')
      throw validation(
        `${spec.kind} aggregation [${node.name}] must have a histogram, date_histogram or auto_date_histogram as parent`,
      );
    if (!isMultiBucket(parent))
      throw validation(
        `${spec.kind} aggregation [${node.name}] must be declared inside of a multi-bucket aggregation`,
      );
    const paths = [...spec.paths.values(), ...spec.sort.map((s) => s.path)];
    for (const path of paths) {
      const first = parsePath(path)[0]?.name;
      if (first === '_count' || first === '_key') continue;
      if (!nodes.some((n) => n.name === first && n !== node))
        throw validation(`No aggregation found for path [${path}]`);
    }
  }
}

/** Sibling pipeline: the values its path names in each bucket of the multi-bucket aggregation it starts at. */
function siblingValues(level: AggNode[], container: Result, spec: PipelineSpec): KeyedValue[] {
  const path = spec.paths.get('_value') as string;
  const [head, ...rest] = parsePath(path) as [
    ReturnType<typeof parsePath>[number],
    ...ReturnType<typeof parsePath>,
  ];
  const node = level.find((n) => n.name === head.name) as AggNode;
  const result = (Object.hasOwn(container, head.name) ? container[head.name] : undefined) as
    Result | undefined;
  const out: KeyedValue[] = [];
  for (const bucket of bucketList(result)) {
    // `terms>_count` and `terms._count` name the bucket's doc count; `terms>metric` a sub-aggregation.
    const tokens = rest.length > 0 ? rest : [{ name: head.key ?? '_count' }];
    const raw = resolveInBucket(bucket, node.subs, tokens, path);
    const isCount = tokens.length === 1 && tokens[0]?.name === '_count';
    const value = gapValue(raw, bucket.doc_count, spec.gapPolicy, isCount);
    if (Number.isNaN(value)) continue;
    const key = typeof bucket.key_as_string === 'string' ? bucket.key_as_string : String(bucket.key);
    out.push({ key, value });
  }
  return out;
}

/**
 * Computes the pipeline aggregations over the rendered response, in place: for each bucket
 * aggregation, first the pipelines inside its buckets (depth first), then its parent pipelines in
 * declaration order; then the sibling pipelines of the level (ES runs pipelines after the aggregations
 * they read, in the reduce phase).
 */
export function applyPipelines(nodes: AggNode[], container: Result, deadline: number): void {
  for (const node of nodes) {
    if (isPipeline(node) || node.subs.length === 0) continue;
    const result = (Object.hasOwn(container, node.name) ? container[node.name] : undefined) as
      Result | undefined;
    if (!result) continue;
    const buckets = isMultiBucket(node) ? bucketList(result) : [result];
    for (const bucket of buckets) applyPipelines(node.subs, bucket, deadline);
    if (!isMultiBucket(node)) continue;
    for (const sub of node.subs) {
      if (isPipeline(sub) && !isSiblingPipeline(sub.spec.kind))
        applyParentPipeline(sub.name, sub.spec, node, result, deadline, sub.meta);
    }
  }
  for (const node of nodes) {
    if (!isPipeline(node) || !isSiblingPipeline(node.spec.kind)) continue;
    const value = siblingResult(node.spec, siblingValues(nodes, container, node.spec));
    container[node.name] = node.meta === undefined ? value : { meta: node.meta, ...value };
  }
}
