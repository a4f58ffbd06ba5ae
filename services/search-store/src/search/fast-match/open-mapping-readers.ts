import { mappingReader, type IndexReader, type IndexRow } from '../../query/index-reader';

/**
 * Readers from the catalog rows alone, without openIndexReaders' round trip for field ids and
 * statistics: the fast path reads field statistics in the same statement as the postings (one
 * snapshot), and hit building needs only the mapped fields' types and analyzers.
 */
export function openMappingReaders(indices: IndexRow[]): IndexReader[] {
  return indices.map(mappingReader);
}
