import { EsError, newDictionary } from '@acme/common';
import type { Pool, PoolClient } from 'pg';
import { loadNestedPlaces, type NestedDocPlace } from '../../index/nested-docs-reader';
import { nestedObjectAt } from '../../index/nested-documents';
import { compileInnerMatches } from '../../query/compile/compile-nested';
import { compileQuery } from '../../query/compile/compile-query';
import { SqlParams } from '../../query/compile/sql-params';
import type { IndexReader } from '../../query/index-reader';
import type { NestedQuery } from '../../query/nested-query';
import { nestedScopeReader } from '../../query/nested-scope';
import { parseSearchRequest, type SearchRequest, type SortKey } from '../../query/parse/search-request';
import type { Query } from '../../query/query-ast';
import { formatFloat } from '../../query/score/bm25';
import { filterSource } from '../../source/filter-source';
import { valuesAtPath } from '../../index/indexed-fields';
import { explainHit } from './explain-hit';
import { extractFields } from './hit-fields';
import { highlightHit, highlightTermsFor } from './hit-highlight';

/** What inner hits read of a page's row (build-hits.ts's HitRow). */
interface HitRow {
  index_id: string;
  doc_key: string | number;
  id: string;
  source_text: string;
  version: string | number;
  seq_no: string | number;
  primary_term: string | number;
}

/**
 * `inner_hits` of nested queries (ES "Retrieve inner hits", nested inner hits): for each hit, the
 * objects of the query's path that its inner query matches, scored on their own, `size` 3 from 0 by
 * score (or `sort`), each named by `_nested` {field, offset} (one level per nested path, the field
 * relative to the enclosing one), with `_source` the object itself. A nested query with inner hits
 * inside another one's reports them inside the outer one's hits, as ES does.
 */

/** The nested queries of a query tree whose inner hits are reported at this level. */
export function innerHitQueries(query: Query): NestedQuery<Query>[] {
  const out: NestedQuery<Query>[] = [];
  const visit = (q: Query): void => {
    switch (q.kind) {
      case 'nested':
        if (q.innerHits) out.push(q);
        else visit(q.query);
        return;
      case 'bool':
        [...q.must, ...q.should, ...q.filter, ...q.mustNot].forEach(visit);
        return;
      case 'constant_score':
        visit(q.filter);
        return;
      case 'dis_max':
        q.queries.forEach(visit);
        return;
      default:
        return;
    }
  };
  visit(query);
  const names = new Set<string>();
  for (const q of out) {
    const name = q.innerHits!.name;
    // ES InnerHitContextBuilder: one entry per name at a level.
    if (names.has(name))
      throw new EsError(
        'illegal_argument_exception',
        `[inner_hits] already contains an entry for key [${name}]`,
      );
    names.add(name);
  }
  return out;
}

/** An inner_hits spec read as a search body (its fetch options are the same). */
function innerRequest(query: NestedQuery<Query>): SearchRequest {
  const { name: _name, from, size, ignore_unmapped: _ignored, ...fetch } = query.innerHits!.spec;
  void _name;
  void _ignored;
  void from;
  void size;
  const request = parseSearchRequest({ ...fetch, query: { match_all: {} } }, {});
  request.query = query.query;
  request.from = query.innerHits!.from;
  request.size = query.innerHits!.size;
  return request;
}

interface Owner {
  key: string;
  rootSource: () => Record<string, unknown>;
  row: HitRow;
}

interface Level {
  db: Pool | PoolClient;
  reader: IndexReader;
  places: Map<string, NestedDocPlace>;
  restTotalHitsAsInt: boolean;
  now: number;
}

/** Adds `inner_hits` to the page's hits (one statement per nested query with inner hits and index). */
export async function addNestedInnerHits(
  db: Pool | PoolClient,
  readers: IndexReader[],
  request: SearchRequest,
  rows: HitRow[],
  hits: Record<string, unknown>[],
  now: number,
): Promise<void> {
  const queries = innerHitQueries(request.query);
  if (queries.length === 0 || rows.length === 0) return;
  for (const reader of readers) {
    const owners: Owner[] = [];
    const ownerHits: Record<string, unknown>[] = [];
    rows.forEach((row, i) => {
      if (String(row.index_id) !== reader.indexId) return;
      let parsed: Record<string, unknown> | undefined;
      owners.push({
        key: String(row.doc_key),
        row,
        rootSource: () => (parsed ??= JSON.parse(row.source_text) as Record<string, unknown>),
      });
      ownerHits.push(hits[i]!);
    });
    if (owners.length === 0) continue;
    const places = await loadNestedPlaces(
      db,
      reader.indexId,
      owners.map((o) => o.key),
    );
    const level: Level = { db, reader, places, restTotalHitsAsInt: request.restTotalHitsAsInt, now };
    const found = await innerHitsOf(level, reader, queries, owners);
    owners.forEach((owner, i) => {
      const inner = found.get(owner.key);
      if (inner) ownerHits[i]!.inner_hits = inner;
    });
  }
}

/** The chain of (path, offset) from the document down to a nested object. */
function chainOf(places: Map<string, NestedDocPlace>, key: string): { path: string; offset: number }[] {
  const chain: { path: string; offset: number }[] = [];
  let at = places.get(key);
  // Parents are other rows of the same document: the walk ends within the nesting depth.
  while (at && chain.length <= places.size) {
    chain.unshift({ path: at.path, offset: at.offset });
    at = places.get(at.parentKey);
  }
  return chain;
}

/** ES SearchHit.NestedIdentity: field relative to the enclosing nested object, innermost last. */
function nestedIdentity(chain: { path: string; offset: number }[]): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  for (let i = chain.length - 1; i >= 0; i--) {
    const { path, offset } = chain[i]!;
    const field = i === 0 ? path : path.slice(chain[i - 1]!.path.length + 1);
    out = out ? { field, offset, _nested: out } : { field, offset };
  }
  return out;
}

function placed(path: string, object: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> = object;
  for (const name of path.split('.').reverse()) out = { [name]: out };
  return out;
}

function unplaced(path: string, value: Record<string, unknown>): Record<string, unknown> {
  let out: unknown = value;
  for (const name of path.split('.')) {
    out =
      out && typeof out === 'object' && Object.hasOwn(out, name)
        ? (out as Record<string, unknown>)[name]
        : undefined;
  }
  return out && typeof out === 'object' ? (out as Record<string, unknown>) : {};
}

interface Match {
  owner: string;
  key: string;
  score: number;
  total: number;
}

async function innerHitsOf(
  level: Level,
  scope: IndexReader,
  queries: NestedQuery<Query>[],
  owners: Owner[],
): Promise<Map<string, Record<string, unknown>>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const owner of owners) out.set(owner.key, newDictionary<unknown>());
  for (const query of queries) {
    const request = innerRequest(query);
    const params = new SqlParams();
    const ctx = { db: level.db, reader: scope, params, now: level.now };
    const sql = await compileInnerMatches(
      ctx,
      query,
      owners.map((o) => o.key),
      compileQuery,
    );
    const byScore = request.sort.length === 0;
    // By score, only each owner's page is read; a sort reads every match (≤ nested_objects.limit each).
    const limit = byScore ? ` WHERE rn <= ${params.add(request.from + request.size)}` : '';
    const rows =
      sql === undefined
        ? []
        : (
            await level.db.query<{ parent_key: string; doc_key: string; s: number; total: string }>(
              `SELECT parent_key, doc_key, s, total FROM (${sql}) m${limit} ORDER BY parent_key, rn`,
              params.values,
            )
          ).rows;
    const matches = new Map<string, Match[]>();
    for (const r of rows) {
      const owner = String(r.parent_key);
      const list = matches.get(owner) ?? [];
      list.push({ owner, key: String(r.doc_key), score: r.s, total: Number(r.total) });
      matches.set(owner, list);
    }
    const target = nestedScopeReader(level.reader, query.path);
    const children = innerHitQueries(query.query);
    const pageOwners: Owner[] = [];
    const pageHits: Record<string, unknown>[] = [];
    for (const owner of owners) {
      const found = matches.get(owner.key) ?? [];
      const sorted = byScore ? found : sortMatches(level, owner, found, request.sort);
      const scored = byScore || request.trackScores || request.sort.some((k) => k.kind === 'score');
      const page = sorted.slice(request.from, request.from + request.size);
      const hits: Record<string, unknown>[] = [];
      for (const match of page) {
        const hit = await innerHit(level, target, query, request, owner, match, scored);
        hits.push(hit);
        pageOwners.push({ key: match.key, row: owner.row, rootSource: owner.rootSource });
        pageHits.push(hit);
      }
      const total = found[0]?.total ?? 0;
      const maxScore =
        found.length === 0 || !scored ? null : formatFloat(Math.max(...found.map((m) => m.score)));
      out.get(owner.key)![query.innerHits!.name] = {
        hits: {
          total: level.restTotalHitsAsInt ? total : { value: total, relation: 'eq' },
          max_score: maxScore,
          hits,
        },
      };
    }
    if (children.length > 0 && pageOwners.length > 0) {
      const nested = await innerHitsOf(level, target, children, pageOwners);
      pageOwners.forEach((o, i) => {
        const inner = nested.get(o.key);
        if (inner) pageHits[i]!.inner_hits = inner;
      });
    }
  }
  return out;
}

async function innerHit(
  level: Level,
  target: IndexReader,
  query: NestedQuery<Query>,
  request: SearchRequest,
  owner: Owner,
  match: Match,
  scored: boolean,
): Promise<Record<string, unknown>> {
  const chain = chainOf(level.places, match.key);
  const object = nestedObjectAt(owner.rootSource(), chain) ?? {};
  const inPlace = placed(query.path, object);
  const hit: Record<string, unknown> = {
    _index: level.reader.name,
    _id: owner.row.id,
    _nested: nestedIdentity(chain),
  };
  if (request.version) hit._version = Number(owner.row.version);
  if (request.seqNoPrimaryTerm) {
    hit._seq_no = Number(owner.row.seq_no);
    hit._primary_term = Number(owner.row.primary_term);
  }
  hit._score = scored ? formatFloat(match.score) : null;
  const sourceEnabled = level.reader.mappings._source?.enabled !== false;
  if (sourceEnabled && request.source.enabled) {
    const { includes, excludes } = request.source;
    hit._source =
      includes.length === 0 && excludes.length === 0
        ? object
        : unplaced(query.path, filterSource(inPlace, includes, excludes));
  }
  // An inner hit's docvalue_fields answer as its fields do (its values come from the object's _source).
  const fields = extractFields(target, inPlace, [...request.fields, ...(request.docvalueFields ?? [])]);
  if (fields) hit.fields = fields;
  if (request.highlight) {
    const highlight = highlightHit(target, inPlace, request, highlightTermsFor([target], request));
    if (highlight) hit.highlight = highlight;
  }
  if (request.sort.length > 0) hit.sort = request.sort.map((key) => sortValueOf(key, inPlace, match));
  if (request.explain)
    hit._explanation = await explainHit(level.db, target, query.query, match.key, match.score, level.now);
  return hit;
}

function sortValueOf(key: SortKey, source: Record<string, unknown>, match: Match): unknown {
  if (key.kind === 'score') return formatFloat(match.score);
  if (key.kind !== 'field') return 0;
  const values = valuesAtPath(source, key.field).filter((v) => typeof v !== 'object');
  if (values.length === 0) return null;
  const pick = (key.mode ?? (key.order === 'desc' ? 'max' : 'min')) === 'max' ? 1 : -1;
  return values.reduce((a, b) => (compareValues(b, a) * pick > 0 ? b : a));
}

function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Sorts an owner's matches in Node by the objects' own values (missing last), then by doc order. */
function sortMatches(level: Level, owner: Owner, found: Match[], sort: SortKey[]): Match[] {
  const keyed = found.map((match) => {
    const source = (() => {
      const chain = chainOf(level.places, match.key);
      const object = nestedObjectAt(owner.rootSource(), chain) ?? {};
      return placed(chain[chain.length - 1]?.path ?? '', object);
    })();
    return { match, values: sort.map((key) => sortValueOf(key, source, match)) };
  });
  keyed.sort((a, b) => {
    for (let i = 0; i < sort.length; i++) {
      const key = sort[i]!;
      const x = a.values[i];
      const y = b.values[i];
      if (x === y) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      const c = compareValues(x, y);
      if (c !== 0) return key.order === 'desc' ? -c : c;
    }
    return Number(a.match.key) - Number(b.match.key);
  });
  return keyed.map((k) => k.match);
}
