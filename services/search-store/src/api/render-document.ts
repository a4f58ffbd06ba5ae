import { RawJson } from '../http/raw-json';
import { filterSource } from '../source/filter-source';
import type { FoundDocument } from '../write/get-document';

/** The stored text as-is when unfiltered (ES returns `_source` byte for byte), else the filtered object. */
export function sourceView(
  doc: { source: Record<string, unknown>; sourceText: string },
  includes: string[],
  excludes: string[],
): unknown {
  if (includes.length === 0 && excludes.length === 0) return new RawJson(doc.sourceText);
  return filterSource(doc.source, includes, excludes);
}

/**
 * A found document as GET `_doc` answers it, and so each `_mget` item: `_source` only when `source`
 * asks for it (absent: `_source=false`).
 */
export function renderFoundDocument(
  indexName: string,
  doc: FoundDocument,
  source: { includes: string[]; excludes: string[] } | undefined,
  /** `stored_fields` values (search/hits/stored-field-values.ts), after `_source` as ES's GetResult. */
  fields?: Record<string, unknown[]>,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    _index: indexName,
    _id: doc.id,
    _version: doc.version,
    _seq_no: doc.seqNo,
    _primary_term: doc.primaryTerm,
    found: true,
  };
  if (source) body._source = sourceView(doc, source.includes, source.excludes);
  if (fields) body.fields = fields;
  return body;
}
