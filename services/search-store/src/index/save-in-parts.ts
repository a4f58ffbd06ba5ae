import type { PoolClient } from 'pg';
import type { AnalyzedPart, BatchAnalyzer } from './batch-analyzer';
import { EventLoopTurns } from '../storage/event-loop-turns';
import type { StatementQueue } from '../storage/statement-queue';
import { copyChunks, sendCopy } from '../storage/copy-lines';
import {
  findOrAddTerms,
  insertDocTokens,
  renderDocValues,
  saveFields,
  saveFieldStatDeltas,
  type DocValueRow,
} from './inverted-index.repo';
import { writeSegment, type Tail } from './posting-blocks.repo';
import { appendDocValueColumns } from './doc-value-columns.repo';
import { termIdOrder, valueRows } from './save-analyzed-batch';
import type { TermDictionaryCache } from './term-dictionary-cache';

/** Milliseconds of analysis between two turns of the event loop (node-pg sends and reads meanwhile). */
const ANALYSIS_SLICE_MS = 5;

/**
 * Analyses a batch `partDocs` documents at a time and writes it in the caller's transaction, Postgres
 * working on part k while Node analyses part k + 1 (issue 23: analysis was not overlapped with any
 * Postgres work past the documents' COPY). Per part, as soon as it is analysed: its new fields, then
 * one dictionary statement for its terms neither an earlier part nor the cache knows, then its doc
 * values by COPY; once the dictionary statement's ids are back, its token streams by binary COPY,
 * rendered between slices of the next part's analysis. After the last part: field statistics and doc
 * value columns of the whole batch, then the batch's postings as ONE segment (posting-blocks.repo.ts:
 * a term met in several parts still gets one run of blocks, so parts add no small blocks), the last
 * part's streams rendered while Postgres copies the blocks.
 *
 * Every statement goes through `queue`, so they run in order on the one client, back to back; the
 * caller queued its own before (the dictionary claim whose cache `cache` resolves to, the documents'
 * rows). Everything is in the caller's transaction: a search sees the batch entirely or not at all,
 * and statistics are the batch's totals, counted once. `docKeys[ordinal]` ascend with the ordinal.
 * Returns each batch term's id and last block after the batch, and its cache slot (-1 when it had none),
 * for the caller to update the cache once everything is written.
 */
export async function analyzeAndSaveInParts(
  client: PoolClient,
  indexId: string,
  analyzer: BatchAnalyzer,
  sources: readonly Record<string, unknown>[],
  docKeys: ArrayLike<number>,
  claimed: Promise<TermDictionaryCache | undefined>,
  queue: StatementQueue,
  partDocs: number,
): Promise<PartedBatchResult> {
  const state = new PartState();
  /** Every statement queued: awaited at the end, each handled at once so that none rejects unhandled. */
  const statements: Promise<unknown>[] = [];
  /** The first statement that failed: the transaction is aborted, the rest of the analysis is moot. */
  const failed: { error?: unknown } = {};
  const track = <T>(promise: Promise<T>): Promise<T> => {
    promise.catch((error: unknown) => {
      if (!('error' in failed)) failed.error = error;
    });
    statements.push(promise);
    return promise;
  };
  // Every part's dictionary statement, and the last part (its streams wait for the blocks).
  const lookups: Promise<void>[] = [];
  let last: AnalyzedPart | undefined;
  let aborted = false;
  const turns = new EventLoopTurns(ANALYSIS_SLICE_MS);
  try {
    for (let from = 0; from < sources.length; from += partDocs) {
      const to = Math.min(sources.length, from + partDocs);
      for (let i = from; i < to; i++) {
        analyzer.add(sources[i]!);
        if (turns.due()) await turns.give();
      }
      if ('error' in failed) throw failed.error;
      const part = analyzer.part();
      const looked = track(lookUp(client, indexId, part, state, claimed, queue));
      lookups.push(looked);
      // Its doc values need only the field ids (queued before): off the batch's tail, where Postgres
      // copied them after the last part while Node waited (issue 23).
      track(writeValues(client, indexId, part, docKeys, state, queue));
      state.valuesSent = part.firstValue + part.valueDoc.length;
      if (to === sources.length) last = part;
      // A part's streams are rendered as soon as its term ids are back, between slices of the next
      // part's analysis, and queued: Postgres copies them while Node analyses on (waiting for the next
      // part to be analysed first left Postgres idle, issue 23). The last part's wait for the blocks.
      else
        looked
          .then(() => {
            if (!aborted) track(writeStreams(client, indexId, part, docKeys, state, queue));
          })
          .catch(() => undefined);
    }
    // The batch's postings and their doc keys need no term id: built while Postgres runs what the
    // parts queued (the last part's dictionary statement waits behind the previous parts' COPYs, ~50 ms
    // of a 5,000-document batch that Node spent idle before the ~50 ms of work below; issue 23). A turn
    // between the steps lets node-pg send the next statement and read Postgres's replies meanwhile.
    await turns.give();
    const batch = analyzer.finish();
    await turns.give();
    const postingKeys = new Float64Array(batch.postingDoc.length);
    for (let p = 0; p < postingKeys.length; p++) postingKeys[p] = docKeys[batch.postingDoc[p]!]!;
    // Each callback above ran before its await here ends: every part's streams but the last are tracked.
    for (const looked of lookups) await looked;
    const terms = batch.termText.length;
    track(
      queue.add(() =>
        saveFieldStatDeltas(
          client,
          indexId,
          batch.fields.map((_, f) => ({
            fieldId: state.fieldIds[f]!,
            docCount: batch.statDocCount[f]!,
            sumTotalTermFreq: batch.statSumTotalTermFreq[f]!,
          })),
        ),
      ),
    );
    // Values no part carried (none: a writer of parts takes no nested objects, the only ones finish adds).
    track(
      sendCopy(
        client,
        renderDocValues(indexId, valueRows(batch, docKeys, state.fieldIds, state.valuesSent)),
        queue,
      ),
    );
    track(appendDocValueColumns(client, indexId, valueRows(batch, docKeys, state.fieldIds), queue));
    await turns.give();
    const termIds = state.codeIds.subarray(1, terms + 1);
    const tailsAfter = await track(
      writeSegment(
        client,
        indexId,
        {
          termIds,
          order: termIdOrder(state.hits, state.missing, termIds),
          tails: state.tails,
          docFreqs: batch.docFreq,
          totalTermFreqs: batch.totalTermFreq,
          start: batch.postingStart,
          docKeys: postingKeys,
          freqs: batch.postingFreq,
          norms: batch.postingNorm,
        },
        queue,
        () => {
          if (last) track(writeStreams(client, indexId, last, docKeys, state, queue));
        },
      ),
    );
    // The callback above ran before the blocks' COPY ended: the last streams are tracked by now.
    await Promise.all(statements);
    return {
      termIds,
      tailsAfter,
      slots: state.slots,
      fieldIds: state.fieldIds,
      termField: batch.termField,
      termText: batch.termText,
    };
  } catch (error) {
    // No part's streams start once this failed, and those started are waited for: nothing reaches
    // the client after the caller's ROLLBACK.
    aborted = true;
    await Promise.allSettled(lookups);
    await Promise.allSettled(statements);
    throw error;
  }
}

/** What the cache learns once a batch written in parts is (index-writer.ts updates it). */
export interface PartedBatchResult {
  termIds: Float64Array;
  tailsAfter: Tail[];
  /** Per batch term, its cache slot, -1 when the cache did not know it. */
  slots: Int32Array;
  fieldIds: number[];
  termField: Int32Array;
  termText: string[];
}

/** What the parts learn from Postgres and the cache, by batch field and term. */
class PartState {
  fieldIds: number[] = [];
  /** Term id by code (batch term + 1; code 0, a gap, stays 0): the token streams' lookup. */
  codeIds = new Float64Array(1024);
  tails: (Tail | undefined)[] = [];
  slots = new Int32Array(1024);
  /** Batch terms the cache knew, and those the dictionary statements looked up. */
  hits: number[] = [];
  missing: number[] = [];
  /** doc_values rows sent with the parts: batch rows [0, valuesSent). */
  valuesSent = 0;

  /** Makes room for batch terms [0, terms). */
  reserve(terms: number): void {
    if (terms + 1 > this.codeIds.length) {
      const ids = new Float64Array(Math.max(terms + 1, this.codeIds.length * 2));
      ids.set(this.codeIds);
      this.codeIds = ids;
    }
    if (terms > this.slots.length) {
      const slots = new Int32Array(Math.max(terms, this.slots.length * 2));
      slots.set(this.slots);
      this.slots = slots;
    }
  }
}

/**
 * Queues a part's new fields and its dictionary statement. The cache is read when the statement is
 * sent, after the claim and the field ids are back (queued before it), so Node never waits here.
 */
function lookUp(
  client: PoolClient,
  indexId: string,
  part: AnalyzedPart,
  state: PartState,
  claimed: Promise<TermDictionaryCache | undefined>,
  queue: StatementQueue,
): Promise<void> {
  if (part.fields.length > 0) {
    const fields = part.fields;
    void queue
      .add(() => saveFields(client, indexId, fields))
      .then((ids) => fields.forEach((f, i) => (state.fieldIds[part.firstField + i] = ids.get(f.path)!)))
      .catch(() => undefined); // the dictionary statement behind it rejects with the same error
  }
  return queue.add(async () => {
    const cache = await claimed;
    const { firstTerm, termField, termText } = part;
    const count = termText.length;
    state.reserve(firstTerm + count);
    const fieldOf = (i: number) => state.fieldIds[termField[i]!]!;
    const missing: number[] = [];
    for (let i = 0; i < count; i++) {
      const t = firstTerm + i;
      const slot = cache ? cache.find(fieldOf(i), termText[i]!) : -1;
      state.slots[t] = slot;
      if (slot === -1) {
        missing.push(i);
        continue;
      }
      state.hits.push(t);
      state.codeIds[t + 1] = cache!.termId(slot);
      state.tails[t] = cache!.tail(slot);
    }
    // Sorted by (field id, term) as the dictionary statement takes them.
    missing.sort(
      (a, b) =>
        fieldOf(a) - fieldOf(b) || (termText[a]! < termText[b]! ? -1 : termText[a]! > termText[b]! ? 1 : 0),
    );
    const saved = await findOrAddTerms(client, indexId, {
      fieldIds: missing.map(fieldOf),
      terms: missing.map((i) => termText[i]!),
    });
    missing.forEach((i, k) => {
      const t = firstTerm + i;
      state.missing.push(t);
      state.codeIds[t + 1] = saved.termIds[k]!;
      state.tails[t] = saved.tails[k];
    });
  });
}

/** Renders a part's token streams under doc keys, field ids and term ids (all known now) and queues their COPY. */
function writeStreams(
  client: PoolClient,
  indexId: string,
  part: AnalyzedPart,
  docKeys: ArrayLike<number>,
  state: PartState,
  queue: StatementQueue,
): Promise<void> {
  if (part.streamDoc.length === 0) return Promise.resolve();
  return insertDocTokens(
    client,
    indexId,
    {
      docKeys: Array.from(part.streamDoc, (d) => docKeys[d]!),
      fieldIds: Array.from(part.streamField, (f) => state.fieldIds[f]!),
      start: part.streamStart,
      lengths: part.streamLength,
      tokens: part.streamTokens,
      termIds: state.codeIds,
    },
    queue,
  );
}

/** Queues a part's doc_values COPY, rendered once the field ids are back (their statement is ahead). */
function writeValues(
  client: PoolClient,
  indexId: string,
  part: AnalyzedPart,
  docKeys: ArrayLike<number>,
  state: PartState,
  queue: StatementQueue,
): Promise<void> {
  if (part.valueDoc.length === 0) return Promise.resolve();
  return queue.add(() => {
    const rows: DocValueRow[] = [];
    for (let i = 0; i < part.valueDoc.length; i++) {
      rows.push({
        fieldId: state.fieldIds[part.valueField[i]!]!,
        docKey: docKeys[part.valueDoc[i]!]!,
        num: part.valueNum[i] ?? null,
        kw: part.valueKw[i] ?? null,
      });
    }
    const copy = renderDocValues(indexId, rows);
    return copyChunks(client, copy.sql, [copy.text]);
  });
}
