import type { PoolClient } from 'pg';
import type { IndexMapping } from '../mapping/mapping-types';
import { completionInputs } from '../mapping/completion-field';
import {
  copyCompletionEntries,
  deleteCompletionEntries,
  dropCompletionEntries,
  saveCompletionEntries,
  type CompletionEntry,
} from '../storage/completion-entries.repo';
import { completionKey, truncateInput } from './completion-key';
import { listIndexedFields, valuesAtPath } from './indexed-fields';

/**
 * Writes the inputs of completion fields (migration 0022) in the document write's transaction:
 * added documents insert their entries, removed ones (deletes, and the old version of a replace)
 * delete theirs, so a suggestion never outlives its document.
 */
export class CompletionWriter {
  async add(
    client: PoolClient,
    indexId: string,
    mappings: IndexMapping,
    settings: Record<string, unknown>,
    documents: { docKey: number; source: Record<string, unknown> }[],
  ): Promise<void> {
    const fields = listIndexedFields(mappings).filter((f) => f.type === 'completion');
    if (fields.length === 0) return;
    const entries: CompletionEntry[] = [];
    for (const field of fields) {
      const analyzer = typeof field.mapping.analyzer === 'string' ? field.mapping.analyzer : 'simple';
      const max = typeof field.mapping.max_input_length === 'number' ? field.mapping.max_input_length : 50;
      for (const { docKey, source } of documents) {
        for (const value of valuesAtPath(source, field.sourcePath)) {
          const inputs = completionInputs(value);
          if (!Array.isArray(inputs)) continue; // refused when the document was mapped
          for (const { input: raw, weight } of inputs) {
            const input = truncateInput(raw, max);
            const analyzed = completionKey(field.mapping, settings, input, analyzer);
            if (analyzed === '') continue;
            entries.push({ field: field.path, analyzed, input, weight, docKey });
          }
        }
      }
    }
    await saveCompletionEntries(client, indexId, entries);
  }

  async remove(
    client: PoolClient,
    indexId: string,
    mappings: IndexMapping,
    docKeys: number[],
  ): Promise<void> {
    if (!listIndexedFields(mappings).some((f) => f.type === 'completion')) return;
    await deleteCompletionEntries(client, indexId, docKeys);
  }

  async copy(client: PoolClient, fromIndexId: string, toIndexId: string): Promise<void> {
    await copyCompletionEntries(client, fromIndexId, toIndexId);
  }

  async drop(client: PoolClient, indexId: string): Promise<void> {
    await dropCompletionEntries(client, indexId);
  }
}
