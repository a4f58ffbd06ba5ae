import type { PoolClient } from 'pg';
import type { IndexMapping } from '../mapping/mapping-types';

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
