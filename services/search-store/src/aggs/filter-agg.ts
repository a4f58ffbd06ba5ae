import type { AggRun } from './agg-run';
import type { AggNode } from './agg-types';
import type { Bucket } from './render-bucket';
import { GROUP_SEP, type DocSet, type SqlBuilder } from './sql-builder';

function filterSql(run: AggRun, query: unknown, b: SqlBuilder): string {
  const translated = run.ctx.translateQuery(query);
  return b.fragment(translated.sql, translated.params);
}

/** `filter`: one bucket per group, of the documents that also match the query. */
export async function computeFilter(
  run: AggRun,
  node: Extract<AggNode, { type: 'filter' }>,
  docs: DocSet,
  groups: string[],
): Promise<Map<string, unknown>> {
  const membership: DocSet = (b) =>
    `SELECT d.doc_key, d.g FROM (${docs(b)}) d WHERE d.doc_key IN (SELECT q.doc_key FROM (${filterSql(run, node.query, b)}) q)`;
  const rows = await run.query<{ g: string; c: string }>(
    (b) => `SELECT m.g, count(*) AS c FROM (${membership(b)}) m GROUP BY m.g`,
  );
  const counts = new Map(rows.map((r) => [r.g, Number(r.c)]));
  const buckets: Bucket[] = groups.map((g) => ({
    bg: g,
    docCount: counts.get(g) ?? 0,
    head: {},
    subs: {},
  }));
  run.countBuckets(buckets.length);
  await run.attachSubs(node.subs, membership, buckets);
  return new Map(buckets.map((bucket) => [bucket.bg, { doc_count: bucket.docCount, ...bucket.subs }]));
}

/** `filters`: one bucket per named (or listed) query, and the `other_bucket_key` bucket when asked. */
export async function computeFilters(
  run: AggRun,
  node: Extract<AggNode, { type: 'filters' }>,
  docs: DocSet,
  groups: string[],
): Promise<Map<string, unknown>> {
  const names = node.filters.map(([name]) => name);
  const membership: DocSet = (b) => {
    const parts = node.filters.map(
      ([name, query]) =>
        `SELECT d.doc_key, d.g || ${b.param(GROUP_SEP + name)} AS g FROM (${docs(b)}) d WHERE d.doc_key IN (SELECT q.doc_key FROM (${filterSql(run, query, b)}) q)`,
    );
    if (node.otherBucketKey !== undefined) {
      const none = node.filters
        .map(([, query]) => `d.doc_key NOT IN (SELECT q.doc_key FROM (${filterSql(run, query, b)}) q)`)
        .join(' AND ');
      parts.push(
        `SELECT d.doc_key, d.g || ${b.param(GROUP_SEP + node.otherBucketKey)} AS g FROM (${docs(b)}) d WHERE ${none}`,
      );
    }
    return parts.join(' UNION ALL ');
  };
  const rows = await run.query<{ g: string; c: string }>(
    (b) => `SELECT m.g, count(*) AS c FROM (${membership(b)}) m GROUP BY m.g`,
  );
  const counts = new Map(rows.map((r) => [r.g, Number(r.c)]));
  const keys = node.otherBucketKey !== undefined ? [...names, node.otherBucketKey] : names;
  const all: Bucket[] = [];
  const byGroup = new Map<string, Array<[string, Bucket]>>();
  for (const g of groups) {
    const list = keys.map((key): [string, Bucket] => {
      const bg = g + GROUP_SEP + key;
      return [key, { bg, docCount: counts.get(bg) ?? 0, head: {}, subs: {} }];
    });
    byGroup.set(g, list);
    all.push(...list.map(([, bucket]) => bucket));
  }
  run.countBuckets(all.length);
  await run.attachSubs(node.subs, membership, all);
  const out = new Map<string, unknown>();
  for (const [g, list] of byGroup) {
    const rendered = list.map(
      ([key, bucket]) => [key, { doc_count: bucket.docCount, ...bucket.subs }] as const,
    );
    out.set(g, {
      buckets: node.keyed ? Object.fromEntries(rendered) : rendered.map(([, bucket]) => bucket),
    });
  }
  return out;
}
