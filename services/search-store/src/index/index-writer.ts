import type { PoolClient } from 'pg';
import type { IndexMapping } from '../mapping/mapping-types';
import { analyzeDocument } from './analyze-document';
import { listIndexedFields } from './indexed-fields';
import {
  deleteDocValues,
  deleteFieldLengths,
  deletePostings,
  deleteUnusedTerms,
  copyInvertedIndex,
  deleteInvertedIndex,
  insertDocTerms,
  insertDocValues,
  insertFieldLengths,
  insertPostings,
  saveFieldStatDeltas,
  saveFields,
  saveTermDeltas,
  type DocValueRow,
  type FieldLengthRow,
  type FieldStatDelta,
  type PostingRow,
  type TermDelta,
} from './inverted-index.repo';

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
      const fields = listIndexedFields(index.mappings);
      // doc_key order, so each term's postings are produced already sorted for the COPY.
      const ordered = [...documents].sort((a, b) => Number(a.docKey) - Number(b.docKey));
      const analyzed = ordered.map((doc) => ({
        docKey: doc.docKey,
        contributions: analyzeDocument(index.mappings, index.settings, doc.source, fields),
      }));
      const used = new Map<string, string>();
      for (const doc of analyzed) for (const c of doc.contributions) used.set(c.path, c.type);
      if (used.size === 0) return;
      const fieldIds = await saveFields(
        client,
        index.indexId,
        [...used].map(([path, type]) => ({ path, type })),
      );

      const termDeltas = new Map<string, TermDelta>();
      const statDeltas = new Map<number, FieldStatDelta>();
      const lengths: FieldLengthRow[] = [];
      const docValues: DocValueRow[] = [];
      for (const doc of analyzed) {
        for (const c of doc.contributions) {
          const fieldId = fieldIds.get(c.path)!;
          for (const [term, { freq }] of c.terms) {
            const key = `${fieldId}\u0000${term}`;
            const delta = termDeltas.get(key) ?? { fieldId, term, docFreq: 0, totalTermFreq: 0 };
            delta.docFreq += 1;
            delta.totalTermFreq += freq;
            termDeltas.set(key, delta);
          }
          const stat = statDeltas.get(fieldId) ?? { fieldId, docCount: 0, sumTotalTermFreq: 0 };
          stat.docCount += 1;
          stat.sumTotalTermFreq += c.length;
          statDeltas.set(fieldId, stat);
          lengths.push({ fieldId, docKey: doc.docKey, length: c.length });
          for (const num of c.numbers) docValues.push({ fieldId, docKey: doc.docKey, num, kw: null });
          for (const kw of c.keywords) docValues.push({ fieldId, docKey: doc.docKey, num: null, kw });
        }
      }
      const termIds = await saveTermDeltas(client, index.indexId, [...termDeltas.values()]);
      const postings: PostingRow[] = [];
      const docTerms: { docKey: string; termIds: string[] }[] = [];
      for (const doc of analyzed) {
        const ids: string[] = [];
        for (const c of doc.contributions) {
          const fieldId = fieldIds.get(c.path)!;
          for (const [term, { freq, positions }] of c.terms) {
            const termId = termIds.get(`${fieldId}\u0000${term}`)!;
            ids.push(termId);
            postings.push({ termId, docKey: doc.docKey, freq, norm: c.norm, positions });
          }
        }
        if (ids.length > 0) docTerms.push({ docKey: doc.docKey, termIds: ids });
      }
      await insertPostings(client, index.indexId, postings);
      await insertDocTerms(client, index.indexId, docTerms);
      await insertFieldLengths(client, index.indexId, lengths);
      await saveFieldStatDeltas(client, index.indexId, [...statDeltas.values()]);
      await insertDocValues(client, index.indexId, docValues);
    },

    async remove(client, index, docKeys) {
      if (docKeys.length === 0) return;
      const termDeltas = await deletePostings(client, index.indexId, docKeys);
      const termIds = await saveTermDeltas(client, index.indexId, termDeltas);
      await deleteUnusedTerms(client, index.indexId, [...termIds.values()]);
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
