import type { PoolClient } from 'pg';
import type { IndexMapping } from '../mapping/mapping-types';
import { analyzeDocument } from './analyze-document';
import { listIndexedFields } from './indexed-fields';
import type { Posting } from './build-blocks';
import {
  deleteDocValues,
  deleteFieldLengths,
  deleteUnusedTerms,
  copyInvertedIndex,
  deleteInvertedIndex,
  insertDocTokens,
  insertDocValues,
  insertFieldLengths,
  saveFieldStatDeltas,
  saveFields,
  saveTermDeltas,
  type DocTokensRow,
  type DocValueRow,
  type FieldLengthRow,
  type FieldStatDelta,
  type TermDelta,
} from './inverted-index.repo';
import { appendPostings, removePostings } from './posting-blocks.repo';

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

      // One delta per (field, term), collecting the term's postings as documents go by in doc_key order
      // (so each list is ascending, as blocks need); each field value keeps its deltas by position.
      const termDeltas = new Map<number, Map<string, TermDelta & { postings: Posting[] }>>();
      const statDeltas = new Map<number, FieldStatDelta>();
      const lengths: FieldLengthRow[] = [];
      const docValues: DocValueRow[] = [];
      const streams: { docKey: string; fieldId: number; tokens: TermDelta[] }[] = [];
      for (const doc of analyzed) {
        const docKey = Number(doc.docKey);
        for (const c of doc.contributions) {
          const fieldId = fieldIds.get(c.path)!;
          let byTerm = termDeltas.get(fieldId);
          if (!byTerm) termDeltas.set(fieldId, (byTerm = new Map()));
          const tokens: TermDelta[] = [];
          for (const [term, { freq, positions }] of c.terms) {
            let delta = byTerm.get(term);
            if (!delta)
              byTerm.set(term, (delta = { fieldId, term, docFreq: 0, totalTermFreq: 0, postings: [] }));
            delta.docFreq += 1;
            delta.totalTermFreq += freq;
            delta.postings.push({ docKey, freq, norm: c.norm });
            if (positions) for (const p of positions) tokens[p] = delta;
            else tokens.push(delta);
          }
          if (tokens.length > 0) streams.push({ docKey: doc.docKey, fieldId, tokens });
          const stat = statDeltas.get(fieldId) ?? { fieldId, docCount: 0, sumTotalTermFreq: 0 };
          stat.docCount += 1;
          stat.sumTotalTermFreq += c.length;
          statDeltas.set(fieldId, stat);
          lengths.push({ fieldId, docKey: doc.docKey, length: c.length });
          for (const num of c.numbers) docValues.push({ fieldId, docKey: doc.docKey, num, kw: null });
          for (const kw of c.keywords) docValues.push({ fieldId, docKey: doc.docKey, num: null, kw });
        }
      }
      const deltas = [...termDeltas.values()].flatMap((m) => [...m.values()]);
      const existing = await saveTermDeltas(client, index.indexId, deltas);
      const byTerm = new Map(deltas.map((d) => [d.termId!, d.postings]));
      // Token streams: the term id at each position; gaps (removed stop words, the gap between the
      // values of an array) hold 0.
      const tokens: DocTokensRow[] = streams.map((s) => {
        const termIds = new Array<string>(s.tokens.length);
        for (let i = 0; i < s.tokens.length; i++) termIds[i] = s.tokens[i]?.termId ?? '0';
        return { docKey: s.docKey, fieldId: s.fieldId, termIds };
      });
      await appendPostings(client, index.indexId, byTerm, existing);
      await insertDocTokens(client, index.indexId, tokens);
      await insertFieldLengths(client, index.indexId, lengths);
      await saveFieldStatDeltas(client, index.indexId, [...statDeltas.values()]);
      await insertDocValues(client, index.indexId, docValues);
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
