import { EsError } from '@acme/common';
import type { AggNode } from './agg-types';
import type { AggRun } from './agg-run';
import { includeExcludeFilter } from './include-exclude';
import { compareKeys } from './rare-terms-agg';
import type { Bucket } from './render-bucket';
import { significanceScore } from './significance-heuristics';
import { GROUP_SEP, type DocSet, type SqlBuilder } from './sql-builder';
import type { FieldValues } from './field-values';
import { docTermsOf, termDocFreqsOf } from '../index/doc-terms-reader';
import { distinctValuesSql, keyMissing, termHead } from './terms-agg';

type SignificantTermsNode = Extract<AggNode, { type: 'significant_terms' | 'significant_text' }>;

interface Row extends Record<string, unknown> {
  g: string;
  k: number | string;
  kt: string;
  c: string;
}

interface Scored {
  bucket: Bucket;
  key: number | string;
  score: number;
  bgCount: number;
}

/**
 * significant_terms (ES SignificantTermsAggregator, InternalSignificantTerms.reduce): for each
 * bucket (the foreground: subsetSize documents), each term in at least min_doc_count of them is
 * scored by the heuristic against the background (every document of the searched indices, or
 * those of `background_filter`); terms scoring above 0 are kept, best first, `size` of them.
 */
export async function computeSignificantTerms(
  run: AggRun,
  node: SignificantTermsNode,
  docs: DocSet,
  groups: string[],
): Promise<Map<string, unknown>> {
  const { spec } = node;
  const text = node.type === 'significant_text' ? textTerms(run, spec.field) : undefined;
  const values = text?.values ?? (await run.fields.resolve(spec.field, 'significant_terms', true));
  const keep = includeExcludeFilter(node.name, spec.includeExclude, values.type);
  const keyText = values.column === 'kw' ? 'u.v' : 'u.v::text';
  const missing = keyMissing(values.type, spec.missing);
  const sizes = await run.query<{ g: string; n: string }>(
    (b) => `SELECT d.g, count(*) AS n FROM (${docs(b)}) d GROUP BY d.g`,
  );
  const subsetSize = new Map(sizes.map((r) => [r.g, Number(r.n)]));
  const threshold = Math.max(1, spec.minDocCount, spec.shardMinDocCount);
  const rows = await run.query<Row>(
    (b) => `SELECT u.g, u.v AS k, ${keyText} AS kt, count(*) AS c
      FROM (${distinctValuesSql(b, docs, values, missing)}) u
      GROUP BY u.g, u.v HAVING count(*) >= ${b.param(threshold, 'bigint')}`,
  );
  const kept = rows.filter((r) => !keep || keep(values.column === 'num' ? Number(r.k) : r.k));
  const { size: supersetSize, freq } = await background(
    run,
    spec.backgroundFilter,
    values,
    [...new Set(kept.map((r) => r.k))],
    text?.docFreqs,
  );
  const byGroup = new Map<string, Scored[]>(groups.map((g) => [g, []]));
  for (const row of kept) {
    const subsetFreq = Number(row.c);
    const bgCount = freq.get(String(row.k)) ?? 0;
    const score = significanceScore(
      spec.heuristic,
      subsetFreq,
      subsetSize.get(row.g) ?? 0,
      bgCount,
      supersetSize,
    );
    if (!(score > 0)) continue;
    byGroup.get(row.g)?.push({
      bucket: {
        bg: row.g + GROUP_SEP + row.kt,
        docCount: subsetFreq,
        head: termHead(values, row.k),
        subs: {},
      },
      key: values.column === 'num' ? Number(row.k) : row.k,
      score,
      bgCount,
    });
  }
  for (const [g, scored] of byGroup) {
    scored.sort((a, b) => b.score - a.score || compareKeys(a.key, b.key));
    byGroup.set(g, scored.slice(0, spec.size));
  }
  const shown = [...byGroup.values()].flat();
  run.countBuckets(shown.length);
  const membership: DocSet = (b) =>
    `SELECT x.doc_key, x.g || ${b.param(GROUP_SEP)} || ${keyText.replace('u.', 'x.')} AS g
       FROM (${distinctValuesSql(b, docs, values, missing)}) x`;
  await run.attachSubs(
    node.subs,
    membership,
    shown.map((s) => s.bucket),
    true,
  );
  const out = new Map<string, unknown>();
  for (const [g, scored] of byGroup) {
    out.set(g, {
      doc_count: subsetSize.get(g) ?? 0,
      bg_count: supersetSize,
      buckets: scored.map(({ bucket, score, bgCount }) => ({
        ...bucket.head,
        doc_count: bucket.docCount,
        score,
        bg_count: bgCount,
        ...bucket.subs,
      })),
    });
  }
  return out;
}

/**
 * The background: its size and each term's document count in it. Without a filter, every live
 * document of the searched indices (ES reads the shard's maxDoc and the terms' docFreq, which
 * count deleted documents until a merge: docs/COVERAGE.md).
 */
async function background(
  run: AggRun,
  filter: unknown,
  values: Awaited<ReturnType<AggRun['fields']['resolve']>>,
  keys: Array<number | string>,
  docFreqs?: (b: SqlBuilder, keys: string) => string,
): Promise<{ size: number; freq: Map<string, number> }> {
  const cast = values.column === 'kw' ? 'text[]' : 'float8[]';
  if (filter === undefined) {
    const [count] = await run.query<{ n: string }>(
      (b) =>
        `SELECT count(*) AS n FROM documents WHERE index_id = ANY(${b.param(run.ctx.indexIds, 'bigint[]')})`,
    );
    const size = Number(count?.n ?? 0);
    const rows = await run.query<{ k: number | string; c: string }>((b) =>
      docFreqs
        ? docFreqs(b, b.param(keys, cast))
        : `SELECT v.v AS k, count(DISTINCT v.doc_key) AS c FROM (${values.sql(b)}) v
        WHERE v.v = ANY(${b.param(keys, cast)}) GROUP BY v.v`,
    );
    return { size, freq: new Map(rows.map((r) => [String(r.k), Number(r.c)])) };
  }
  const set = run.ctx.translateQuery(filter);
  const [sizeRow] = await run.query<{ n: string }>(
    (b) => `SELECT count(DISTINCT f.doc_key) AS n FROM (${b.fragment(set.sql, set.params)}) f`,
  );
  const rows = await run.query<{ k: number | string; c: string }>(
    (b) => `SELECT v.v AS k, count(DISTINCT v.doc_key) AS c FROM (${values.sql(b)}) v
      WHERE v.v = ANY(${b.param(keys, cast)})
        AND v.doc_key IN (SELECT f.doc_key FROM (${b.fragment(set.sql, set.params)}) f)
      GROUP BY v.v`,
  );
  return { size: Number(sizeRow?.n ?? 0), freq: new Map(rows.map((r) => [String(r.k), Number(r.c)])) };
}

/**
 * significant_text: a text field's terms per document (index/doc-terms-reader.ts) as keyword values,
 * with the dictionary's document frequencies as the unfiltered background.
 */
function textTerms(
  run: AggRun,
  path: string,
): { values: FieldValues; docFreqs: (b: SqlBuilder, keys: string) => string } {
  const fields = run.ctx.fieldsByPath(path);
  const wrong = fields.find((f) => f.type !== 'text');
  if (wrong)
    throw new EsError(
      'illegal_argument_exception',
      `Field [${path}] of type [${wrong.type}] is not supported for aggregation [significant_text]`,
    );
  const ids = (b: SqlBuilder) =>
    fields.map((f) => ({ indexId: b.param(f.indexId, 'bigint'), fieldId: b.param(f.fieldId, 'int') }));
  return {
    values: {
      path,
      type: fields.length === 0 ? null : 'keyword',
      column: 'kw',
      unique: true,
      sql: (b) =>
        fields.length === 0
          ? 'SELECT NULL::bigint AS doc_key, NULL::text AS v WHERE false'
          : docTermsOf(ids(b)),
    },
    docFreqs: (b, keys) =>
      fields.length === 0
        ? 'SELECT NULL::text AS k, 0::bigint AS c WHERE false'
        : termDocFreqsOf(ids(b), keys),
  };
}
