import type { MatchedSet } from './agg-context';
import type { AggRun } from './agg-run';
import type { AggNode } from './agg-types';
import { isColumnarHistogram, HistogramLevel } from './columnar-histogram';
import type { BucketLevel } from './columnar-level';
import { FilterLevel } from './columnar-filter';
import { createLeaf, leafField, type LeafCollector } from './columnar-metrics';
import { isColumnarRange, RangeLevel } from './columnar-range';
import { isColumnarTerms, TermsLevel } from './columnar-terms';
import { docsOf, matchedDocs, resolveField, walkChunks, type Resolved } from './columnar-walk';

/** The fields a tree reads, in walk order (the first decides which documents are visited). */
class FieldList {
  readonly fields: Resolved[] = [];

  add(field: Resolved): number {
    this.fields.push(field);
    return this.fields.length - 1;
  }
}

/** A bucket node and everything under it as levels and leaves, or undefined if any part is not covered. */
function buildLevel(run: AggRun, node: AggNode, fields: FieldList, top: boolean): BucketLevel | undefined {
  let level: BucketLevel;
  if ((node.type === 'filter' || node.type === 'filters') && !top) {
    level = new FilterLevel(node);
  } else if (isColumnarTerms(node)) {
    const field = resolveField(run, node.spec.field, true);
    if (!field) return undefined;
    level = new TermsLevel(node, field, fields.add(field));
  } else if (isColumnarHistogram(node)) {
    const field = resolveField(run, node.spec.field, false);
    if (!field) return undefined;
    level = new HistogramLevel(node, field, fields.add(field));
  } else if (isColumnarRange(node)) {
    const field = resolveField(run, node.spec.field, false);
    if (!field) return undefined;
    const range = new RangeLevel(node, field, fields.add(field));
    range.setUp(run);
    level = range;
  } else return undefined;
  for (const sub of node.subs) {
    const leaf = buildLeaf(run, sub, fields);
    if (leaf) {
      level.leaves.push(leaf);
      level.subs.push(leaf);
      continue;
    }
    const child = buildLevel(run, sub, fields, false);
    if (!child) return undefined;
    level.children.push(child);
    level.subs.push(child);
  }
  return level;
}

function buildLeaf(run: AggRun, node: AggNode, fields: FieldList): LeafCollector | undefined {
  const wanted = leafField(node);
  if (!wanted) return undefined;
  const field = resolveField(run, wanted.path, wanted.keyed);
  return field ? createLeaf(node, field, fields.add(field)) : undefined;
}

function levelsOf(level: BucketLevel): BucketLevel[] {
  return [level, ...level.children.flatMap(levelsOf)];
}

/**
 * Computes a top-level aggregation and its sub-aggregations in one walk over the column-wise doc
 * values: each visited document is filed under its buckets level by level (a slot per bucket per
 * parent bucket) and its values are added to the leaves' slots; then the levels render top-down,
 * counting their buckets in the SQL path's order (search.max_buckets fails at the same bucket).
 * Returns undefined when any part is not covered (the SQL path answers the whole aggregation).
 */
export async function computeColumnarTree(
  run: AggRun,
  node: AggNode,
  matchedSet: MatchedSet,
): Promise<{ result: unknown } | undefined> {
  const fields = new FieldList();
  const rootLeaf = buildLeaf(run, node, fields);
  const rootLevel = rootLeaf ? undefined : buildLevel(run, node, fields, true);
  if (!rootLeaf && !rootLevel) return undefined;
  const levels = rootLevel ? levelsOf(rootLevel) : [];
  const leaves = [...(rootLeaf ? [rootLeaf] : []), ...levels.flatMap((l) => l.leaves)];
  const driver = fields.fields[0]!;
  for (const level of levels) if (level instanceof FilterLevel) await level.setUp(run);
  const matched = await matchedDocs(run, matchedSet);
  await walkChunks(run, matched, fields.fields, (chunks, member, chunkNo) => {
    for (const level of levels) level.begin(chunks[level.fieldAt], chunkNo);
    for (const leaf of leaves) leaf.begin(chunks[leaf.fieldAt]);
    const docs = docsOf(chunks[0], driver.kind);
    let last = -1;
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i]!;
      if (doc === last) continue;
      last = doc;
      if (member && member[doc] === 0) continue;
      if (rootLeaf) rootLeaf.add(0, doc);
      else rootLevel!.collect(0, doc);
    }
  });
  for (const level of levels) if (!(await level.prepare(run))) return undefined;
  if (rootLeaf) return { result: rootLeaf.render(0) };
  return { result: (await rootLevel!.render(run, [0])).get(0) };
}
