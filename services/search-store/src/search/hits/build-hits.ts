import { newDictionary, ownValue, setOwn } from '@acme/common';
import type { Pool, PoolClient } from 'pg';
import { RawJson } from '../../http/raw-json';
import { filterSource } from '../../source/filter-source';
import { explainHit } from './explain-hit';
import { prepareFetchPhase } from './fetch-phase';
import { addNestedInnerHits } from './nested-inner-hits';
import { extractFields } from './hit-fields';
import { highlightHit, highlightTermsFor } from './hit-highlight';
import { matchFieldPattern, type IndexReader } from '../../query/index-reader';
import { formatFloat } from '../../query/score/bm25';
import type { SearchRequest } from '../../query/parse/search-request';
import type { SearchRuntimeFields } from '../../query/compile/search-runtime-fields';

/** One document of the page as both search paths read it: its place, score and stored columns. */
export interface HitRow extends Record<string, unknown> {
  index_id: string;
  doc_key: string | number;
  s: number | null;
  id: string;
  source_text: string;
  version: string | number;
  seq_no: string | number;
  primary_term: string | number;
}

export interface HitOptions {
  /** Whether `_score` carries the score (sorting by a field without track_scores prints null). */
  scored: boolean;
  now: number;
  runtime?: SearchRuntimeFields;
  /** The hit's `sort` values, when the request sorts. */
  sortValues?: (row: HitRow) => unknown[];
}

/** The `hits.hits` entries (API-NOTES §A1.3): _index, _id, _score, _source, fields, highlight, … */
export async function buildHits(
  db: Pool | PoolClient,
  readers: IndexReader[],
  request: SearchRequest,
  rows: HitRow[],
  options: HitOptions,
): Promise<Record<string, unknown>[]> {
  const { scored, now, runtime } = options;
  const byId = new Map(readers.map((r) => [r.indexId, r]));
  const hits: Record<string, unknown>[] = [];
  const highlightTerms = request.highlight ? highlightTermsFor(readers, request) : undefined;
  const fetch = request.size > 0 ? prepareFetchPhase(readers, request) : undefined;
  for (const row of rows) {
    const reader = byId.get(String(row.index_id))!;
    const sourceText = row.source_text;
    // Parsed only when something reads inside it (filtering, fields, highlight).
    let parsed: Record<string, unknown> | undefined;
    const source = (): Record<string, unknown> =>
      (parsed ??= JSON.parse(sourceText) as Record<string, unknown>);
    const hit: Record<string, unknown> = { _index: reader.name, _id: row.id };
    if (request.version) hit._version = Number(row.version);
    if (request.seqNoPrimaryTerm) {
      hit._seq_no = Number(row.seq_no);
      hit._primary_term = Number(row.primary_term);
    }
    hit._score = scored ? formatFloat(row.s as number) : null;
    const unfiltered =
      request.source.enabled && request.source.includes.length === 0 && request.source.excludes.length === 0;
    // Unfiltered, `_source` goes out byte for byte as it was indexed (key order, spacing), as ES does.
    const filtered =
      !fetch?.fetchSource || !request.source.enabled
        ? undefined
        : unfiltered
          ? new RawJson(sourceText)
          : filterSource(source(), request.source.includes, request.source.excludes);
    if (fetch?.noMetadata) delete hit._id;
    if (filtered !== undefined) hit._source = filtered;
    const fields =
      (request.fields.length > 0 ? extractFields(reader, source(), request.fields, sourceText) : undefined) ??
      newDictionary<unknown[]>();
    if (runtime && request.fields.length > 0) {
      // Runtime fields appear only in `fields`, never in `_source` (API-NOTES §A1.3).
      const values = await runtime.valuesFor(reader.indexId, source());
      for (const { field: pattern } of request.fields) {
        const test = matchFieldPattern(pattern);
        for (const name of runtime.types.keys()) {
          const v = ownValue(values, name);
          if (test(name) && v && v.length > 0) setOwn(fields, name, v);
        }
      }
    }
    for (const [name, values] of fetch?.fieldsFor(reader, source, sourceText) ?? [])
      setOwn(fields, name, values);
    if (Object.keys(fields).length > 0) hit.fields = fields;
    if (request.highlight && highlightTerms) {
      const highlight = highlightHit(reader, source(), request, highlightTerms);
      if (highlight) hit.highlight = highlight;
    }
    if (options.sortValues) hit.sort = options.sortValues(row);
    if (request.explain) {
      hit._shard = `[${reader.name}][0]`;
      hit._node = 'search-store';
      hit._explanation = await explainHit(
        db,
        reader,
        request.query,
        String(row.doc_key),
        row.s as number,
        now,
      );
    }
    hits.push(hit);
  }
  await addNestedInnerHits(db, readers, request, rows, hits, now);
  return hits;
}
