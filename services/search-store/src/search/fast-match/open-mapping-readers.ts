import { listIndexedFields } from '../../index/indexed-fields';
import type { IndexReader, IndexRow, ReaderField } from '../../query/index-reader';
import { parseQuery } from '../../query/parse/parse-query';

/**
 * Readers from the catalog rows alone, without openIndexReaders' round trip for field ids and
 * statistics: the fast path reads field statistics in the same statement as the postings (one
 * snapshot), and hit building needs only the mapped fields' types and analyzers.
 */
export function openMappingReaders(indices: IndexRow[]): IndexReader[] {
  return indices.map((index) => {
    const fields = new Map<string, ReaderField>();
    for (const field of listIndexedFields(index.mappings))
      fields.set(field.path, { ...field, docCount: 0, sumTotalTermFreq: 0 });
    const reader: IndexReader = {
      indexId: index.index_id,
      name: index.name,
      uuid: index.uuid,
      mappings: index.mappings,
      settings: index.settings,
      fields,
    };
    if (index.aliasFilter) reader.filter = parseQuery(index.aliasFilter);
    return reader;
  });
}
