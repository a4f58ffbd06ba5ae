import { newDictionary } from '@acme/common';
import type { IndexReader, IndexRow } from '../../query/index-reader';
import { openMappingReaders } from '../fast-match/open-mapping-readers';
import { extractFields } from './hit-fields';

/**
 * The values of the fields mapped with `store: true` that `patterns` name (names or wildcards), as
 * `stored_fields` returns them in hits and GET/_mget (`fields`). ES keeps a stored copy beside
 * `_source`; we always keep `_source`, so the values are read from it: the same values in the same
 * order as the document gave them.
 */
export function storedFieldValues(
  reader: IndexReader,
  source: Record<string, unknown>,
  sourceText: string,
  patterns: string[],
): Record<string, unknown[]> {
  const out = newDictionary<unknown[]>(); // keyed by field path
  if (patterns.length === 0) return out;
  const values = extractFields(
    reader,
    source,
    patterns.map((field) => ({ field })),
    sourceText,
  );
  for (const [path, list] of Object.entries(values ?? {})) {
    if (reader.fields.get(path)?.mapping.store === true) out[path] = list;
  }
  return out;
}

/** The same for one document of an index read outside a search (GET, _mget): a reader from its mapping. */
export function storedFieldsOfDocument(
  index: {
    indexId: string;
    name: string;
    uuid: string;
    mappings: IndexRow['mappings'];
    settings: Record<string, string>;
  },
  doc: { source: Record<string, unknown>; sourceText: string },
  patterns: string[],
): Record<string, unknown[]> | undefined {
  const [reader] = openMappingReaders([
    {
      index_id: index.indexId,
      name: index.name,
      uuid: index.uuid,
      mappings: index.mappings,
      settings: index.settings,
    },
  ]);
  const values = storedFieldValues(reader!, doc.source, doc.sourceText, patterns);
  return Object.keys(values).length > 0 ? values : undefined;
}
