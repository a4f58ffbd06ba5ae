import type { PoolClient } from 'pg';
import type { IndexMapping } from '../mapping/mapping-types';
import { randomUUID } from 'node:crypto';
import { analyzeBatch, BatchAnalyzer, type AnalyzedBatch } from './batch-analyzer';
import {
  claimDictionary,
  deleteDocValues,
  removedFieldStats,
  deleteUnusedTerms,
  copyInvertedIndex,
  deleteInvertedIndex,
  saveFieldStatDeltas,
} from './inverted-index.repo';
import { removePostings } from './posting-blocks.repo';
import { removeDocValueColumns } from './doc-value-columns.repo';
import { saveAnalyzedBatch } from './save-analyzed-batch';
import { MERGE_AT } from './build-blocks';
import { mergeAllSegments } from './segment-merger';
import { TermDictionaryCaches, type TermDictionaryCache } from './term-dictionary-cache';
import { EventLoopTurns } from '../storage/event-loop-turns';
import { StatementQueue } from '../storage/statement-queue';
import { analyzeAndSaveInParts, type PartedBatchResult } from './save-in-parts';
import { VectorWriter } from './vector-writer';
import { CompletionWriter } from './completion-writer';
import {
  copyNestedDocs,
  drawNestedKeys,
  dropNestedDocs,
  removeNestedDocs,
  saveNestedDocs,
} from './nested-docs.repo';
import { listNestedPaths } from '../mapping/nested-mapping';

function hasNestedPaths(mappings: IndexMapping): boolean {
  return listNestedPaths(mappings).length > 0;
}

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
  /**
   * Analyzes documents whose rows are not written yet (no I/O, no doc keys needed), a slice at a time
   * so that the caller's statements progress meanwhile (the documents COPY); `add` uses the result for
   * the same sources in the same order.
   */
  prepare?(index: IndexContext, sources: Record<string, unknown>[]): Promise<PreparedDocuments>;
  /** Analyzes the documents (unless prepared) and writes postings, field statistics and doc values. */
  add(
    client: PoolClient,
    index: IndexContext,
    documents: DocumentToIndex[],
    prepared?: PreparedDocuments,
  ): Promise<void>;
  /**
   * `add` for documents whose rows the caller has yet to write on the same client: `alongside` queues
   * them on the writer's statement queue, right behind the writer's first statement, and Postgres
   * writes them while the writer analyses the first part of the documents; the writer's own
   * statements follow, each part's as soon as it is analysed (save-in-parts.ts). Doc keys ascend in
   * the documents' order. Resolves once everything, `alongside` included, is written.
   */
  addAlongside?(
    client: PoolClient,
    index: IndexContext,
    documents: DocumentToIndex[],
    alongside: (queue: StatementQueue) => Promise<void>,
  ): Promise<void>;
  /** Removes everything indexed for these doc keys and corrects every statistic. */
  remove(client: PoolClient, index: IndexContext, docKeys: string[]): Promise<void>;
  /** Copies one index's inverted index to another index id in SQL (clone keeps doc keys). */
  copyIndex(client: PoolClient, fromIndexId: string, toIndexId: string): Promise<void>;
}

/** Documents analysed by `prepare`, with what the analysis depended on. */
export interface PreparedDocuments {
  readonly mappings: IndexMapping;
  readonly settings: Record<string, unknown>;
  readonly sources: readonly Record<string, unknown>[];
  readonly batch: AnalyzedBatch;
}

/**
 * A preparation is used only for exactly what it analysed: the same mapping and settings objects, the
 * same sources in the same order, and doc keys ascending in that order (ordinals become doc keys).
 */
function isPreparedFor(
  prepared: PreparedDocuments,
  index: IndexContext,
  documents: DocumentToIndex[],
): boolean {
  if (prepared.mappings !== index.mappings || prepared.settings !== index.settings) return false;
  if (prepared.sources.length !== documents.length) return false;
  for (let i = 0; i < documents.length; i++) {
    if (prepared.sources[i] !== documents[i]!.source) return false;
    if (i > 0 && Number(documents[i]!.docKey) <= Number(documents[i - 1]!.docKey)) return false;
  }
  return true;
}

/** An IndexWriter that can also drop a whole index's inverted index set-based (DELETE /<index>). */
export interface DroppingIndexWriter extends IndexWriter {
  dropIndex(client: PoolClient, indexId: string): Promise<void>;
}

/** The Postgres writer: also compacts an index on force merge (catalog/maintain-indices.ts). */
export interface CompactingIndexWriter extends DroppingIndexWriter {
  /**
   * Drops what deletes left behind (the HNSW graphs' tombstones; returns how many) and merges the
   * postings' small blocks (segment-merge.ts): with `maxNumSegments` n every term's run of more than n
   * small blocks, else the runs the background merge policy would take.
   */
  compactIndex(client: PoolClient, index: IndexContext, maxNumSegments?: number): Promise<number>;
}

/** Written: the cache learns a batch's new terms (within its limit) and every term's last block. */
function learn(cache: TermDictionaryCache, written: PartedBatchResult): void {
  const { termIds, tailsAfter, slots, fieldIds, termField, termText } = written;
  for (let t = 0; t < termText.length; t++) {
    if (slots[t] === -1) cache.add(fieldIds[termField[t]!]!, termText[t]!, termIds[t]!, tailsAfter[t]!);
    else cache.setTail(slots[t]!, tailsAfter[t]!);
  }
}

/** Milliseconds of analysis between two turns of the event loop in `prepare`. */
const PREPARE_SLICE_MS = 5;

export interface IndexWriterOptions {
  /** Memory for the term dictionary caches of this instance (term-dictionary-cache.ts); 0 turns them off. */
  termCacheBytes?: number;
  /** Documents per part in `addAlongside` (tests make it small to get several parts). */
  partDocs?: number;
}

/**
 * Documents per part in `addAlongside`: a 5,000-document bulk is analysed in 5 parts. Each part costs a
 * dictionary statement and a token COPY; fewer parts leave Postgres idle longer before the first.
 */
export const PART_DOCS = 1000;

/** SEARCH_TERM_CACHE_MB's default, in bytes. */
export const DEFAULT_TERM_CACHE_BYTES = 64 * 2 ** 20;

/** The Postgres implementation of the seam: see inverted-index.repo.ts for the SQL. */
export function createIndexWriter(options: IndexWriterOptions = {}): CompactingIndexWriter {
  const caches = new TermDictionaryCaches(options.termCacheBytes ?? DEFAULT_TERM_CACHE_BYTES);
  const partDocs = Math.max(1, options.partDocs ?? PART_DOCS);
  const vectors = new VectorWriter();
  const completions = new CompletionWriter();

  /**
   * Every transaction that changes an index's dictionary gives it a new token first (which also
   * locks the index row). The cache is kept only if it holds the token the index had: then no other
   * transaction, of this instance or another, changed the dictionary since the one that last wrote
   * through this cache committed. A transaction that rolled back left the index its old token, so the
   * cache it changed is dropped on the next claim.
   */
  async function claim(
    client: PoolClient,
    indexId: string,
    queue?: StatementQueue,
  ): Promise<TermDictionaryCache | undefined> {
    const token = randomUUID();
    const previous = await claimDictionary(client, indexId, token, queue);
    const cache = caches.for(indexId);
    if (!cache) return undefined;
    if (cache.token === null || cache.token !== previous) cache.clear();
    cache.token = token;
    return cache;
  }

  /** Writes through the cache, which is dropped if anything fails (it may hold what did not commit). */
  async function saveThrough(
    client: PoolClient,
    index: IndexContext,
    batch: AnalyzedBatch,
    rootKeys: number[],
  ): Promise<void> {
    // Nested objects are documents of the inverted index after the batch's own (nested-docs.repo.ts).
    const docKeys =
      batch.nested.length === 0
        ? rootKeys
        : [...rootKeys, ...(await drawNestedKeys(client, batch.nested.length))];
    await saveNestedDocs(client, index.indexId, batch, docKeys);
    const cache = await claim(client, index.indexId);
    try {
      await saveAnalyzedBatch(client, index.indexId, batch, docKeys, cache);
    } catch (error) {
      caches.drop(index.indexId);
      throw error;
    }
  }

  const writer: CompactingIndexWriter = {
    async prepare(index, sources) {
      const { mappings, settings } = index;
      const analyzer = new BatchAnalyzer(mappings, settings);
      // Postgres's replies and the COPY's drain events are handled between slices.
      const turns = new EventLoopTurns(PREPARE_SLICE_MS);
      for (const source of sources) {
        analyzer.add(source);
        if (turns.due()) await turns.give();
      }
      return { mappings, settings, sources, batch: analyzer.finish() };
    },

    async add(client, index, documents, prepared) {
      if (documents.length === 0) return;
      if (prepared && isPreparedFor(prepared, index, documents)) {
        const docKeys = documents.map((d) => Number(d.docKey));
        await saveThrough(client, index, prepared.batch, docKeys);
        await vectors.add(
          client,
          index.indexId,
          index.mappings,
          documents.map((d, i) => ({ docKey: docKeys[i]!, source: d.source })),
        );
        await completions.add(
          client,
          index.indexId,
          index.mappings,
          index.settings,
          documents.map((d, i) => ({ docKey: docKeys[i]!, source: d.source })),
        );
        return;
      }
      // doc_key order, so each term's postings are produced already sorted for the blocks.
      const ordered = [...documents].sort((a, b) => Number(a.docKey) - Number(b.docKey));
      const batch = analyzeBatch(
        index.mappings,
        index.settings,
        ordered.map((d) => d.source),
      );
      await saveThrough(
        client,
        index,
        batch,
        ordered.map((d) => Number(d.docKey)),
      );
      await vectors.add(
        client,
        index.indexId,
        index.mappings,
        ordered.map((d) => ({ docKey: Number(d.docKey), source: d.source })),
      );
      await completions.add(
        client,
        index.indexId,
        index.mappings,
        index.settings,
        ordered.map((d) => ({ docKey: Number(d.docKey), source: d.source })),
      );
    },

    async addAlongside(client, index, documents, alongside) {
      const queue = new StatementQueue();
      const docKeys = documents.map((d) => Number(d.docKey));
      const ascending = docKeys.every((key, i) => i === 0 || key > docKeys[i - 1]!);
      if (documents.length === 0 || !ascending || hasNestedPaths(index.mappings)) {
        // Nested objects are analysed after the batch's documents (batch-analyzer.ts): in one piece.
        await alongside(queue);
        await writer.add(client, index, documents);
        return;
      }
      const claimed = claim(client, index.indexId, queue);
      claimed.catch(() => undefined);
      const rows = alongside(queue);
      rows.catch(() => undefined);
      try {
        const sources = documents.map((d) => d.source);
        const analyzer = new BatchAnalyzer(index.mappings, index.settings);
        const written = await analyzeAndSaveInParts(
          client,
          index.indexId,
          analyzer,
          sources,
          docKeys,
          claimed,
          queue,
          partDocs,
        );
        await rows;
        const cache = await claimed;
        if (cache) learn(cache, written);
      } catch (error) {
        await Promise.allSettled([claimed, rows]);
        caches.drop(index.indexId);
        throw error;
      }
      const located = documents.map((d, i) => ({ docKey: docKeys[i]!, source: d.source }));
      await vectors.add(client, index.indexId, index.mappings, located);
      await completions.add(client, index.indexId, index.mappings, index.settings, located);
    },

    async remove(client, index, rootKeys) {
      if (rootKeys.length === 0) return;
      // A mapping never loses a nested path, so one without any never indexed nested objects.
      const docKeys = hasNestedPaths(index.mappings)
        ? [...rootKeys, ...(await removeNestedDocs(client, index.indexId, rootKeys))]
        : rootKeys;
      // Removal lowers statistics and shrinks or drops blocks, tails included: the cache starts over.
      (await claim(client, index.indexId))?.clear();
      const statDeltas = await removedFieldStats(client, index.indexId, docKeys);
      const unused = await removePostings(client, index.indexId, docKeys);
      await deleteUnusedTerms(client, index.indexId, unused);
      await saveFieldStatDeltas(client, index.indexId, statDeltas);
      await deleteDocValues(client, index.indexId, docKeys);
      await removeDocValueColumns(client, index.indexId, docKeys);
      await vectors.remove(client, index.indexId, index.mappings, docKeys.map(Number));
      await completions.remove(client, index.indexId, index.mappings, docKeys.map(Number));
    },

    async copyIndex(client, fromIndexId, toIndexId) {
      (await claim(client, toIndexId))?.clear();
      await copyInvertedIndex(client, fromIndexId, toIndexId);
      await vectors.copy(client, fromIndexId, toIndexId);
      await completions.copy(client, fromIndexId, toIndexId);
      await copyNestedDocs(client, fromIndexId, toIndexId);
    },

    async compactIndex(client, index, maxNumSegments) {
      const minRun = maxNumSegments !== undefined && maxNumSegments > 0 ? maxNumSegments + 1 : MERGE_AT;
      await mergeAllSegments(client, index.indexId, Math.max(2, minRun));
      return vectors.compact(client, index.indexId, index.mappings);
    },

    async dropIndex(client, indexId) {
      caches.drop(indexId);
      await deleteInvertedIndex(client, indexId);
      await vectors.drop(client, indexId);
      await completions.drop(client, indexId);
      await dropNestedDocs(client, indexId);
    },
  };
  return writer;
}
