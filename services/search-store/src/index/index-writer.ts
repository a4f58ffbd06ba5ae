import type { PoolClient } from 'pg';
import type { IndexMapping } from '../mapping/mapping-types';
import { analyzeBatch } from './batch-analyzer';
import {
  deleteDocValues,
  deleteFieldLengths,
  deleteUnusedTerms,
  copyInvertedIndex,
  deleteInvertedIndex,
  saveFieldStatDeltas,
} from './inverted-index.repo';
import { removePostings } from './posting-blocks.repo';
import { saveAnalyzedBatch } from './save-analyzed-batch';

/** What the writer needs to know about the index a batch goes to. */
export interface IndexContext {
  indexId: string; // bigint as string (pg returns int8 as string)
  name: string;
  mappings: IndexMapping;
  /** Flat index settings (`index.analysis.analyzer.my.tokenizer`, …). */
  settings: Record<string, unknown>;
}

export interface DocumentToIndex {
  docKey: string; // documents.doc_key of a row already written in this transaction
  source: Record<string, unknown>;
}

/**
 * The seam between the document store and the search engine: every document write calls it inside
 * the same transaction as the `documents` rows, so postings, statistics and doc values are never
 * half-written. A replace is `remove(old doc_key)` then `add(new doc_key)`: doc keys are never reused.
 */
export interface IndexWriter {
  /** Analyzes the documents and writes postings, field statistics and doc values for them. */
  add(client: PoolClient, index: IndexContext, documents: DocumentToIndex[]): Promise<void>;
  /** Removes everything indexed for these doc keys and corrects every statistic. */
  remove(client: PoolClient, index: IndexContext, docKeys: string[]): Promise<void>;
  /** Copies one index's inverted index to another index id in SQL (clone keeps doc keys). */
  copyIndex(client: PoolClient, fromIndexId: string, toIndexId: string): Promise<void>;
}

/** An IndexWriter that can also drop a whole index's inverted index set-based (DELETE /<index>). */
export interface DroppingIndexWriter extends IndexWriter {
  dropIndex(client: PoolClient, indexId: string): Promise<void>;
}

/** The Postgres implementation of the seam: see inverted-index.repo.ts for the SQL. */
export function createIndexWriter(): DroppingIndexWriter {
  return {
    async add(client, index, documents) {
      if (documents.length === 0) return;
      // doc_key order, so each term's postings are produced already sorted for the blocks.
      const ordered = [...documents].sort((a, b) => Number(a.docKey) - Number(b.docKey));
      const batch = analyzeBatch(
        index.mappings,
        index.settings,
        ordered.map((d) => d.source),
      );
      await saveAnalyzedBatch(
        client,
        index.indexId,
        batch,
        ordered.map((d) => Number(d.docKey)),
      );
    },

    async remove(client, index, docKeys) {
      if (docKeys.length === 0) return;
      const unused = await removePostings(client, index.indexId, docKeys);
      await deleteUnusedTerms(client, index.indexId, unused);
      const statDeltas = await deleteFieldLengths(client, index.indexId, docKeys);
      await saveFieldStatDeltas(client, index.indexId, statDeltas);
      await deleteDocValues(client, index.indexId, docKeys);
    },

    async copyIndex(client, fromIndexId, toIndexId) {
      await copyInvertedIndex(client, fromIndexId, toIndexId);
    },

    async dropIndex(client, indexId) {
      await deleteInvertedIndex(client, indexId);
    },
  };
}
