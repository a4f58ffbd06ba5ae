import { newDictionary } from '@acme/common';
import type { Pool, PoolClient } from 'pg';
import { findDocValues } from '../../index/doc-values-reader';
import { formatDateValue } from '../../index/date-value';
import type { IndexReader } from '../../query/index-reader';
import { parseSearchRequest, type SearchRequest } from '../../query/parse/search-request';
import type { Query } from '../../query/query-ast';
import { formatFloat } from '../../query/score/bm25';
import type { HitRow } from './build-hits';

/** Runs a search on the same indices and snapshot (execute-search.ts passes itself). */
export type RunSearch = (request: SearchRequest) => Promise<{ hits: Record<string, unknown> }>;

type CollapseValue = string | number | null;

/** A doc value as ES's DocValueFormat prints it in `fields` (dates formatted, floats as floats). */
function printed(type: string, value: number | string): CollapseValue {
  if (typeof value === 'string') return value;
  if (type === 'date') return formatDateValue(value);
  if (type === 'float' || type === 'half_float') return formatFloat(value);
  return value;
}

async function collapseValues(
  db: Pool | PoolClient,
  readers: IndexReader[],
  field: string,
  rows: HitRow[],
): Promise<CollapseValue[]> {
  const values = new Map<string, CollapseValue>();
  for (const reader of readers) {
    const keys = rows.filter((r) => String(r.index_id) === reader.indexId).map((r) => String(r.doc_key));
    if (keys.length === 0) continue;
    for (const row of await findDocValues(db, `{${reader.indexId}}`, `{${keys.join(',')}}`)) {
      if (row.path !== field) continue;
      const key = `${reader.indexId}/${row.doc_key}`;
      // Rows come sorted by value: the first is the group's (the minimum).
      if (values.has(key)) continue;
      const raw = row.num !== null ? Number(row.num) : row.kw;
      if (raw !== null) values.set(key, printed(row.type, raw));
    }
  }
  return rows.map((r) => values.get(`${r.index_id}/${r.doc_key}`) ?? null);
}

/** The group's documents: the request's query (and post_filter) within the group, as ES's ExpandSearchPhase. */
function groupQuery(request: SearchRequest, field: string, value: CollapseValue): Query {
  const within: Query =
    value === null
      ? {
          kind: 'bool',
          must: [],
          should: [],
          filter: [],
          mustNot: [{ kind: 'exists', field, boost: 1 }],
          boost: 1,
        }
      : { kind: 'term', field, value, caseInsensitive: false, boost: 1 };
  return {
    kind: 'bool',
    must: [request.query],
    should: [],
    filter: request.postFilter ? [within, request.postFilter] : [within],
    mustNot: [],
    boost: 1,
  };
}

/** With the hit's own fields first, the collapse field's value ([null] for the missing-value group). */
function withCollapseField(
  hit: Record<string, unknown>,
  field: string,
  value: CollapseValue,
): Record<string, unknown> {
  const out = newDictionary<unknown>();
  const fields = newDictionary<unknown>();
  Object.assign(fields, hit.fields ?? {});
  fields[field] = [value];
  let placed = false;
  for (const [key, v] of Object.entries(hit)) {
    if (key === 'fields') continue;
    if (!placed && ['highlight', 'sort', 'matched_queries', '_explanation', 'inner_hits'].includes(key)) {
      out.fields = fields;
      placed = true;
    }
    out[key] = v;
  }
  if (!placed) out.fields = fields;
  return out;
}

/**
 * The collapsed page's hits: each gets `fields.<collapse field>` and, per inner_hits section, a search
 * of its group with that section's from/size/sort/_source/fields/version (ES ExpandSearchPhase; run
 * one group after another, which `max_concurrent_group_searches` bounds in ES).
 */
export async function expandCollapsedHits(
  db: Pool | PoolClient,
  readers: IndexReader[],
  request: SearchRequest,
  rows: HitRow[],
  hits: Record<string, unknown>[],
  run: RunSearch,
): Promise<void> {
  const collapse = request.collapse;
  if (!collapse || rows.length === 0) return;
  const values = await collapseValues(db, readers, collapse.field, rows);
  const sections = collapse.innerHits.map((inner) => ({
    name: inner.name,
    request: parseSearchRequest(
      inner.body,
      request.restTotalHitsAsInt ? { rest_total_hits_as_int: 'true' } : {},
    ),
  }));
  for (const [i, value] of values.entries()) {
    let hit = withCollapseField(hits[i]!, collapse.field, value);
    if (sections.length > 0) {
      const innerHits = newDictionary<unknown>();
      for (const section of sections) {
        const response = await run({
          ...section.request,
          query: groupQuery(request, collapse.field, value),
          trackTotalHits: true,
        });
        innerHits[section.name] = { hits: response.hits };
      }
      hit = { ...hit };
      hit.inner_hits = innerHits;
    }
    hits[i] = hit;
  }
}
