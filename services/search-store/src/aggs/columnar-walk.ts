import { isNumericType } from '../mapping/field-types';
import type { DocValueChunk } from '../index/doc-value-chunk';
import { DOC_VALUE_CHUNK } from '../index/doc-value-chunk';
import { listDocValueChunks, readDocValueChunks, readSortedDocKeys } from '../index/doc-value-columns-reader';
import type { AggField, MatchedSet } from './agg-context';
import type { AggRun } from './agg-run';

/**
 * The walk over column-wise doc values (migration 0027) that every columnar aggregation shares: which
 * field a path reads, the matched documents, and the chunks read a page at a time.
 */

/** Chunks per statement: ~4,096 × (2 + 8) bytes each for a numeric field. */
const PAGE_CHUNKS = 64;

export type Kind = 'num' | 'kw';

/** A field's column: its type, which part of the chunk holds it, and its field id per index. */
export type Resolved = { type: string; kind: Kind; unique: boolean; byIndex: Map<string, number> };

/**
 * The field's column and its id per index, or undefined when the SQL path must decide (runtime and
 * unmapped fields, types that differ between indices, date_nanos, flattened, text). `keyed`: the
 * aggregation reads keyword-like keys (terms, cardinality, value_count), so ip and unsigned_long are
 * their `kw` keys; otherwise only numbers, dates and booleans qualify.
 */
export function resolveField(run: AggRun, path: string, keyed: boolean): Resolved | undefined {
  if (run.ctx.runtimeFields?.has(path)) return undefined;
  const fields: AggField[] = run.ctx.fieldsByPath(path);
  const first = fields[0];
  if (!first || fields.some((f) => f.type !== first.type)) return undefined;
  const { type } = first;
  let kind: Kind;
  if (type === 'keyword' || type === 'ip' || type === 'unsigned_long') {
    if (!keyed) return undefined;
    kind = 'kw';
  } else if (isNumericType(type) || type === 'date' || type === 'boolean') {
    kind = 'num';
  } else return undefined;
  return {
    type,
    kind,
    // Keyword and ip doc values are deduplicated at index time (field-values.ts); others keep repeats.
    unique: kind === 'kw' && type !== 'unsigned_long',
    byIndex: new Map(fields.map((f) => [f.indexId, f.fieldId])),
  };
}

/** The matched documents: every one, or the sorted keys of the query's matches. */
export type Matched = { all: true } | { all: false; keys: Float64Array };

export async function matchedDocs(run: AggRun, matched: MatchedSet): Promise<Matched> {
  if (matched.all === true) return { all: true };
  return { all: false, keys: await readSortedDocKeys(run.client, matched.sql, matched.params) };
}

/**
 * Walks the chunks of `fields[0]` (the field whose values decide which documents count) for each
 * index, a page at a time, handing each chunk with the other fields' same chunk (undefined where a
 * field has none) and the matched documents' membership (undefined: every document).
 */
export async function walkChunks(
  run: AggRun,
  matched: Matched,
  fields: Resolved[],
  visit: (chunks: (DocValueChunk | undefined)[], member: Uint8Array | undefined, chunk: number) => void,
): Promise<void> {
  const [driver] = fields;
  if (!driver) return;
  for (const indexId of run.ctx.indexIds) {
    const driverId = driver.byIndex.get(indexId);
    if (driverId === undefined) continue;
    const ids = fields.map((f) => f.byIndex.get(indexId) ?? -1);
    const wantedIds = [...new Set(ids.filter((id) => id >= 0))];
    let chunks = await listDocValueChunks(run.client, indexId, [driverId]);
    let keyAt = 0;
    if (!matched.all) {
      const wanted = new Set<number>();
      for (const k of matched.keys) wanted.add(Math.floor(k / DOC_VALUE_CHUNK));
      chunks = chunks.filter((c) => wanted.has(c));
    }
    const page = (from: number) =>
      readDocValueChunks(run.client, indexId, wantedIds, chunks.slice(from, from + PAGE_CHUNKS));
    let next = chunks.length > 0 ? page(0) : undefined;
    const member = matched.all ? undefined : new Uint8Array(DOC_VALUE_CHUNK);
    for (let from = 0; next; from += PAGE_CHUNKS) {
      const read = await next;
      // The next page is read by Postgres while Node counts this one.
      next = from + PAGE_CHUNKS < chunks.length ? page(from + PAGE_CHUNKS) : undefined;
      next?.catch(() => undefined);
      for (const chunk of chunks.slice(from, from + PAGE_CHUNKS)) {
        if (member && !matched.all) {
          member.fill(0);
          const base = chunk * DOC_VALUE_CHUNK;
          const keys = matched.keys;
          while (keyAt < keys.length && keys[keyAt]! < base) keyAt++;
          for (let k = keyAt; k < keys.length && keys[k]! < base + DOC_VALUE_CHUNK; k++)
            member[keys[k]! - base] = 1;
        }
        visit(
          ids.map((id) => (id >= 0 ? read.get(id)?.get(chunk) : undefined)),
          member,
          chunk,
        );
      }
    }
  }
}

const NO_DOCS = new Uint16Array(0);

/** A chunk's entries of one kind: their doc offsets, ascending (a document's values are adjacent). */
export function docsOf(chunk: DocValueChunk | undefined, kind: Kind): Uint16Array {
  if (!chunk) return NO_DOCS;
  return kind === 'num' ? chunk.numDocs : chunk.kwDocs;
}

/**
 * Where each document's entries start in `docs` (sorted): entries of doc d are
 * [starts[d], starts[d + 1]). `starts` has DOC_VALUE_CHUNK + 1 slots and is overwritten.
 */
export function fillDocStarts(docs: Uint16Array, starts: Int32Array): void {
  let d = 0;
  for (let i = 0; i < docs.length; i++) {
    const doc = docs[i]!;
    while (d <= doc) starts[d++] = i;
  }
  while (d <= DOC_VALUE_CHUNK) starts[d++] = docs.length;
}
