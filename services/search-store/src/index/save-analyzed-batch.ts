import type { PoolClient } from 'pg';
import type { AnalyzedBatch } from './batch-analyzer';
import { sendCopy } from '../storage/copy-lines';
import { EventLoopTurns } from '../storage/event-loop-turns';
import { StatementQueue } from '../storage/statement-queue';
import {
  insertDocTokens,
  renderDocValues,
  saveFieldStatDeltas,
  saveFields,
  findOrAddTerms,
  type DocTokenStreams,
  type DocValueRow,
} from './inverted-index.repo';
import { writeSegment, type Tail } from './posting-blocks.repo';
import { appendDocValueColumns } from './doc-value-columns.repo';
import type { TermDictionaryCache } from './term-dictionary-cache';

/**
 * Writes an analysed batch under its doc keys (`docKeys[ordinal]`, ascending with the ordinal, above
 * every key the index holds), in the caller's transaction: fields, then the ids and tails of the terms
 * the cache does not know (term-dictionary-cache.ts), then the batch's segment of blocks (carrying
 * each term's totals, posting-blocks.repo.ts) and token streams (with each field's length), which
 * need the term ids; field statistics and doc values need none.
 *
 * One client runs one statement at a time, and Node and Postgres take turns unless the next statement
 * is queued before the previous one ends. So each statement is queued as soon as what it needs is
 * known, and rendered while Postgres runs the one before it: the rows without term ids go behind the
 * dictionary statement and are written while Node renders the blocks; the token streams are rendered
 * while Postgres copies the blocks, and their COPY goes behind it (DESIGN.md, "Write path").
 */
export async function saveAnalyzedBatch(
  client: PoolClient,
  indexId: string,
  batch: AnalyzedBatch,
  docKeys: ArrayLike<number>,
  cache?: TermDictionaryCache,
): Promise<void> {
  if (batch.fields.length === 0) return;
  const ids = await saveFields(client, indexId, batch.fields);
  const fieldIds = batch.fields.map((f) => ids.get(f.path)!);

  // Terms the cache knows need no answer from Postgres: only the others go to the dictionary
  // statement, sorted by (field id, term) as it takes them.
  const { termField, termText } = batch;
  const terms = termText.length;
  const known = new Int32Array(terms);
  const termIds = new Float64Array(terms);
  const tails = new Array<Tail | undefined>(terms);
  const missing: number[] = [];
  const hits: number[] = [];
  for (let t = 0; t < terms; t++) {
    const slot = cache ? cache.find(fieldIds[termField[t]!]!, termText[t]!) : -1;
    known[t] = slot;
    if (slot === -1) {
      missing.push(t);
      continue;
    }
    hits.push(t);
    termIds[t] = cache!.termId(slot);
    tails[t] = cache!.tail(slot);
  }
  missing.sort(
    (a, b) =>
      fieldIds[termField[a]!]! - fieldIds[termField[b]!]! ||
      (termText[a]! < termText[b]! ? -1 : termText[a]! > termText[b]! ? 1 : 0),
  );
  const keys = {
    fieldIds: missing.map((t) => fieldIds[termField[t]!]!),
    terms: missing.map((t) => termText[t]!),
  };
  // Only the terms not cached need a statement before the blocks, and once warm it is short: the
  // statistics of every term ride on the last block the batch writes for it (migration 0010).
  const queue = new StatementQueue();
  const dictionary = queue.add(() => findOrAddTerms(client, indexId, keys));
  // The queue sends from a microtask: let that run now, not after the synchronous work below.
  await Promise.resolve();
  const turns = new EventLoopTurns(1);
  const statDeltas = batch.fields.map((_, f) => ({
    fieldId: fieldIds[f]!,
    docCount: batch.statDocCount[f]!,
    sumTotalTermFreq: batch.statSumTotalTermFreq[f]!,
  }));
  const fieldStats = queue.add(() => saveFieldStatDeltas(client, indexId, statDeltas));
  fieldStats.catch(() => undefined);
  const postingKeys = new Float64Array(batch.postingDoc.length);
  for (let p = 0; p < postingKeys.length; p++) postingKeys[p] = docKeys[batch.postingDoc[p]!]!;
  await turns.give();
  const unordered = Promise.all([
    fieldStats,
    sendCopy(client, renderDocValues(indexId, valueRows(batch, docKeys, fieldIds)), queue),
    appendDocValueColumns(client, indexId, valueRows(batch, docKeys, fieldIds), queue),
  ]);
  // Awaited at the end; until then a failure of the dictionary statement must not leave it unhandled.
  unordered.catch(() => undefined);
  const saved = await dictionary;
  missing.forEach((t, i) => {
    termIds[t] = saved.termIds[i]!;
    tails[t] = saved.tails[i];
  });
  // The rows queued behind the dictionary statement are sent once Node reads Postgres's replies.
  await turns.give();

  // Both plan and render in slices (EventLoopTurns), each statement queued when it is ready.
  const postings = {
    termIds,
    order: termIdOrder(hits, missing, termIds),
    tails,
    docFreqs: batch.docFreq,
    totalTermFreqs: batch.totalTermFreq,
    start: batch.postingStart,
    docKeys: postingKeys,
    freqs: batch.postingFreq,
    norms: batch.postingNorm,
  };
  // The token streams are rendered once the blocks' COPY is queued: Postgres writes the blocks meanwhile.
  let streaming: Promise<void> | undefined;
  const tailsAfter = await writeSegment(client, indexId, postings, queue, () => {
    if (batch.streamDoc.length === 0) return;
    streaming = insertDocTokens(client, indexId, tokenStreams(batch, docKeys, fieldIds, termIds), queue);
    streaming.catch(() => undefined);
  });
  await Promise.all([unordered, streaming]);
  if (!cache) return;
  // Written: the cache learns the new terms (within its limit) and every tail (index-writer.ts drops
  // it on any failure).
  for (let t = 0; t < terms; t++) {
    if (known[t] === -1) cache.add(fieldIds[termField[t]!]!, termText[t]!, termIds[t]!, tailsAfter[t]!);
    else cache.setTail(known[t]!, tailsAfter[t]!);
  }
}

export function* valueRows(
  batch: AnalyzedBatch,
  docKeys: ArrayLike<number>,
  fieldIds: number[],
  from = 0,
): Generator<DocValueRow> {
  for (let i = from; i < batch.valueDoc.length; i++) {
    yield {
      fieldId: fieldIds[batch.valueField[i]!]!,
      docKey: docKeys[batch.valueDoc[i]!]!,
      num: batch.valueNum[i]!,
      kw: batch.valueKw[i]!,
    };
  }
}

/**
 * Every batch term (those the cache knew, `hits`, and the others, `missing`) in ascending term id
 * order. Term ids are distinct, so with the batch term in the low bits each key termId · 2^bits + t
 * is distinct, and exact while below 2^53: a Float64Array's own numeric sort then orders the ~38k
 * terms of a 5,000-document batch without calling a comparator back ~6·10⁵ times (issue 23).
 */
export function termIdOrder(hits: number[], missing: number[], termIds: Float64Array): Int32Array {
  const count = hits.length + missing.length;
  const order = new Int32Array(count);
  let maxTerm = 0;
  let maxId = 0;
  for (const list of [hits, missing])
    for (const t of list) {
      if (t > maxTerm) maxTerm = t;
      if (termIds[t]! > maxId) maxId = termIds[t]!;
    }
  const scale = 2 ** (32 - Math.clz32(maxTerm));
  if ((maxId + 1) * scale > Number.MAX_SAFE_INTEGER) {
    const all = [...hits, ...missing].sort((a, b) => termIds[a]! - termIds[b]!);
    order.set(all);
    return order;
  }
  const keys = new Float64Array(count);
  let k = 0;
  for (const list of [hits, missing]) for (const t of list) keys[k++] = termIds[t]! * scale + t;
  keys.sort();
  for (let i = 0; i < count; i++) order[i] = keys[i]! % scale;
  return order;
}

/** Token streams under doc keys and field ids; a batch term t + 1 stands for term id `termIds[t]` (0, a gap, stays). */
function tokenStreams(
  batch: AnalyzedBatch,
  docKeys: ArrayLike<number>,
  fieldIds: number[],
  termIds: Float64Array,
): DocTokenStreams {
  const ids = new Float64Array(termIds.length + 1);
  ids.set(termIds, 1);
  return {
    docKeys: Array.from(batch.streamDoc, (d) => docKeys[d]!),
    fieldIds: Array.from(batch.streamField, (f) => fieldIds[f]!),
    start: batch.streamStart,
    lengths: batch.streamLength,
    tokens: batch.streamTokens,
    termIds: ids,
  };
}
