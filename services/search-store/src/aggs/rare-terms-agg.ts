import type { AggNode } from './agg-types';
import type { AggRun } from './agg-run';
import { includeExcludeFilter } from './include-exclude';
import { renderBucket, type Bucket } from './render-bucket';
import { GROUP_SEP, type DocSet } from './sql-builder';
import { distinctValuesSql, keyMissing, termHead } from './terms-agg';

type RareTermsNode = Extract<AggNode, { type: 'rare_terms' }>;

interface Row extends Record<string, unknown> {
  g: string;
  k: number | string;
  kt: string;
  c: string;
}

/** Keys in Lucene's order: numbers by value, strings by code point (BytesRef order). */
export function compareKeys(a: number | string, b: number | string): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = [...String(a)].map((c) => c.codePointAt(0)!);
  const y = [...String(b)].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/**
 * rare_terms (ES RareTermsAggregator): the terms in at most `max_doc_count` documents of each
 * bucket, ordered by count then key, ascending (InternalRareTerms' ORDER). ES approximates with
 * cuckoo filters per shard; here the counts are exact (one GROUP BY), so `precision` changes nothing.
 */
export async function computeRareTerms(
  run: AggRun,
  node: RareTermsNode,
  docs: DocSet,
  groups: string[],
): Promise<Map<string, unknown>> {
  const { spec } = node;
  const values = await run.fields.resolve(spec.field, 'rare_terms', true);
  const keep = includeExcludeFilter(node.name, spec.includeExclude, values.type);
  const keyText = values.column === 'kw' ? 'u.v' : 'u.v::text';
  const missing = keyMissing(values.type, spec.missing);
  const rows = await run.query<Row>(
    (b) => `SELECT u.g, u.v AS k, ${keyText} AS kt, count(*) AS c
      FROM (${distinctValuesSql(b, docs, values, missing)}) u
      GROUP BY u.g, u.v HAVING count(*) <= ${b.param(spec.maxDocCount, 'bigint')}`,
  );
  const byGroup = new Map<string, Bucket[]>(groups.map((g) => [g, []]));
  const keys = new Map<Bucket, number | string>();
  for (const row of rows) {
    const k = values.column === 'num' ? Number(row.k) : row.k;
    if (keep && !keep(k)) continue;
    const bucket: Bucket = {
      bg: row.g + GROUP_SEP + row.kt,
      docCount: Number(row.c),
      head: termHead(values, row.k),
      subs: {},
    };
    keys.set(bucket, k);
    byGroup.get(row.g)?.push(bucket);
  }
  const all = [...byGroup.values()].flat();
  run.countBuckets(all.length);
  const membership: DocSet = (b) =>
    `SELECT x.doc_key, x.g || ${b.param(GROUP_SEP)} || ${keyText.replace('u.', 'x.')} AS g
       FROM (${distinctValuesSql(b, docs, values, missing)}) x`;
  await run.attachSubs(node.subs, membership, all, true);
  const out = new Map<string, unknown>();
  for (const [g, buckets] of byGroup) {
    buckets.sort((a, b) => a.docCount - b.docCount || compareKeys(keys.get(a)!, keys.get(b)!));
    out.set(g, { buckets: buckets.map(renderBucket) });
  }
  return out;
}
