import type { PoolClient } from 'pg';
import type { AnalyzedBatch } from './batch-analyzer';
import { sendCopy } from '../storage/copy-lines';
import {
  insertDocTokens,
  renderDocValues,
  renderFieldLengths,
  saveFieldStatDeltas,
  saveFields,
  saveTermDeltas,
  type DocTokenStreams,
  type DocValueRow,
  type FieldLengthRow,
} from './inverted-index.repo';
import { appendPostings } from './posting-blocks.repo';

/**
 * Writes an analysed batch under its doc keys (`docKeys[ordinal]`, ascending with the ordinal, above
 * every key the index holds): fields → term dictionary (ids and tails) → blocks → token streams →
 * field lengths → field statistics → doc values, in the caller's transaction.
 */
export async function saveAnalyzedBatch(
  client: PoolClient,
  indexId: string,
  batch: AnalyzedBatch,
  docKeys: ArrayLike<number>,
): Promise<void> {
  if (batch.fields.length === 0) return;
  const ids = await saveFields(client, indexId, batch.fields);
  const fieldIds = batch.fields.map((f) => ids.get(f.path)!);

  // The dictionary statement takes the terms sorted by (field id, term).
  const { termField, termText } = batch;
  const order = Array.from({ length: termText.length }, (_, t) => t).sort(
    (a, b) =>
      fieldIds[termField[a]!]! - fieldIds[termField[b]!]! ||
      (termText[a]! < termText[b]! ? -1 : termText[a]! > termText[b]! ? 1 : 0),
  );
  const dictionary = saveTermDeltas(client, indexId, {
    fieldIds: order.map((t) => fieldIds[termField[t]!]!),
    terms: order.map((t) => termText[t]!),
    docFreqs: order.map((t) => batch.docFreq[t]!),
    totalTermFreqs: order.map((t) => batch.totalTermFreq[t]!),
  });
  // While Postgres runs the dictionary statement (the batch's longest), render the rows that need no term id.
  const lengths = renderFieldLengths(indexId, lengthRows(batch, docKeys, fieldIds));
  const values = renderDocValues(indexId, valueRows(batch, docKeys, fieldIds));
  const postingKeys = new Float64Array(batch.postingDoc.length);
  for (let p = 0; p < postingKeys.length; p++) postingKeys[p] = docKeys[batch.postingDoc[p]!]!;
  const saved = await dictionary;
  const termIds = new Array<string>(order.length);
  const tails = new Array<(typeof saved.tails)[number]>(order.length);
  order.forEach((t, i) => {
    termIds[t] = saved.termIds[i]!;
    tails[t] = saved.tails[i];
  });

  await appendPostings(client, indexId, {
    termIds,
    tails,
    start: batch.postingStart,
    docKeys: postingKeys,
    freqs: batch.postingFreq,
    norms: batch.postingNorm,
  });
  if (batch.streamDoc.length > 0)
    await insertDocTokens(client, indexId, tokenStreams(batch, docKeys, fieldIds, termIds));
  await sendCopy(client, lengths);
  await saveFieldStatDeltas(
    client,
    indexId,
    batch.fields.map((_, f) => ({
      fieldId: fieldIds[f]!,
      docCount: batch.statDocCount[f]!,
      sumTotalTermFreq: batch.statSumTotalTermFreq[f]!,
    })),
  );
  await sendCopy(client, values);
}

function* lengthRows(
  batch: AnalyzedBatch,
  docKeys: ArrayLike<number>,
  fieldIds: number[],
): Generator<FieldLengthRow> {
  for (let i = 0; i < batch.lengthDoc.length; i++) {
    yield {
      fieldId: fieldIds[batch.lengthField[i]!]!,
      docKey: docKeys[batch.lengthDoc[i]!]!,
      length: batch.lengthValue[i]!,
    };
  }
}

function* valueRows(
  batch: AnalyzedBatch,
  docKeys: ArrayLike<number>,
  fieldIds: number[],
): Generator<DocValueRow> {
  for (let i = 0; i < batch.valueDoc.length; i++) {
    yield {
      fieldId: fieldIds[batch.valueField[i]!]!,
      docKey: docKeys[batch.valueDoc[i]!]!,
      num: batch.valueNum[i]!,
      kw: batch.valueKw[i]!,
    };
  }
}

/** Token streams under doc keys, field ids and term ids (a batch term t + 1 becomes its id; 0, a gap, stays). */
function tokenStreams(
  batch: AnalyzedBatch,
  docKeys: ArrayLike<number>,
  fieldIds: number[],
  termIds: string[],
): DocTokenStreams {
  const ids = new Float64Array(termIds.length + 1);
  for (let t = 0; t < termIds.length; t++) ids[t + 1] = Number(termIds[t]);
  const { streamTokens } = batch;
  const tokens = new Float64Array(streamTokens.length);
  for (let i = 0; i < tokens.length; i++) tokens[i] = ids[streamTokens[i]!]!;
  return {
    docKeys: Array.from(batch.streamDoc, (d) => docKeys[d]!),
    fieldIds: Array.from(batch.streamField, (f) => fieldIds[f]!),
    start: batch.streamStart,
    tokens,
  };
}
