import type { AggField } from '../../aggs/agg-context';
import type { IndexReader } from '../index-reader';

/** The mapped field at a path in each of `readers` that maps it, as aggregations and runtime fields read it. */
export function fieldsByPath(readers: IndexReader[]): (path: string) => AggField[] {
  return (path) =>
    readers.flatMap((reader) => {
      // Nested objects' fields too: inside a nested aggregation the documents are the objects.
      const field = (reader.allFields ?? reader.fields).get(path);
      return field?.fieldId === undefined
        ? []
        : [{ indexId: reader.indexId, indexName: reader.name, fieldId: field.fieldId, type: field.type }];
    });
}
