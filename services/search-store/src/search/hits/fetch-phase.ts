import type { IndexReader } from '../../query/index-reader';
import type { SearchRequest } from '../../query/parse/search-request';
import { docvalueFieldValues, resolveDocvalueFields } from './docvalue-fields';
import { compileScriptFields } from './script-fields';
import { storedFieldValues } from './stored-field-values';

/**
 * The fetch sub-phases beyond `_source` and `fields` (ES FetchPhase): stored_fields, docvalue_fields
 * and script_fields, prepared once per search (limits checked, scripts compiled) and run per hit.
 */
export interface FetchPhase {
  /** Whether hits carry `_source`: stored_fields without an explicit `_source` turns it off (ES). */
  fetchSource: boolean;
  /** `stored_fields: _none_`: no metadata fields (`_id`) either. */
  noMetadata: boolean;
  /** The hit's extra `fields` entries. */
  fieldsFor(
    reader: IndexReader,
    source: () => Record<string, unknown>,
    sourceText: string,
  ): [string, unknown[]][];
}

export function prepareFetchPhase(readers: IndexReader[], request: SearchRequest): FetchPhase {
  const stored = request.storedFields;
  const scripts = request.scriptFields ? compileScriptFields(readers, request.scriptFields) : undefined;
  const docvalues = new Map(
    readers.map((reader) => [reader.indexId, resolveDocvalueFields(reader, request.docvalueFields ?? [])]),
  );
  return {
    fetchSource: request.source.enabled && (stored === undefined || request.sourceRequested === true),
    noMetadata: stored?.none === true,
    fieldsFor(reader, source, sourceText) {
      const out: [string, unknown[]][] = [];
      if (stored && !stored.none) {
        out.push(...Object.entries(storedFieldValues(reader, source(), sourceText, stored.patterns)));
      }
      const resolved = docvalues.get(reader.indexId) ?? [];
      if (resolved.length > 0) out.push(...docvalueFieldValues(reader, resolved, source(), sourceText));
      if (scripts) out.push(...scripts.valuesFor(reader, source));
      return out;
    },
  };
}
