import { Client } from 'es8';
import { uniqueId } from '@acme/testkit';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import {
  avgFieldLength,
  formatFloat,
  idf,
  idfSum,
  normInverseCache,
  termScore,
  termWeight,
} from '../../src/query/score/bm25';
import { intToByte4 } from '../../src/index/small-float';

export const ARTICLES_MAPPING = {
  properties: {
    title: { type: 'text' as const, fields: { keyword: { type: 'keyword' as const, ignore_above: 256 } } },
    body: { type: 'text' as const },
    tags: { type: 'keyword' as const },
    views: { type: 'integer' as const },
    published: { type: 'date' as const },
    draft: { type: 'boolean' as const },
  },
};

/** Four documents: `title` has lengths 2, 3, 4 (the worked example of API-NOTES §A2.1). */
export const ARTICLES: Record<string, Record<string, unknown>> = {
  '1': {
    title: 'quick fox',
    body: 'the quick brown fox jumps over the lazy dog',
    tags: ['animal', 'fast'],
    views: 10,
    published: '2024-01-10',
    draft: false,
  },
  '2': {
    title: 'lazy brown dog',
    body: 'a lazy dog sleeps all day long',
    tags: ['animal'],
    views: 5,
    published: '2024-02-01T10:00:00Z',
    draft: true,
  },
  '3': {
    title: 'the big red barn',
    body: 'red barn on the hill with a quick view',
    tags: ['farm'],
    views: 20,
    published: '2023-12-31',
  },
  '4': { body: 'fox fox fox den', tags: [] },
};

export interface SearchFixture {
  store: RunningSearchStore;
  es: Client;
  articles: { name: string };
  notes: { name: string };
  suffix: string;
  stop(): Promise<void>;
}

/** search-store on port 0; two indices created and filled through the real index and bulk APIs. */
export async function startSearchFixture(): Promise<SearchFixture> {
  const store = await startSearchStore();
  const es = new Client({ node: store.url });
  const suffix = uniqueId('s')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
  const articles = { name: `articles-${suffix}` };
  const notes = { name: `notes-${suffix}` };
  await es.indices.create({ index: articles.name, mappings: ARTICLES_MAPPING });
  await es.indices.create({ index: notes.name, mappings: { properties: { title: { type: 'text' } } } });
  const bulk = await es.bulk({
    refresh: true,
    operations: [
      ...Object.entries(ARTICLES).flatMap(([id, doc]) => [
        { index: { _index: articles.name, _id: id } },
        doc,
      ]),
      { index: { _index: notes.name, _id: 'n1' } },
      { title: 'a fox note' },
    ],
  });
  if (bulk.errors) throw new Error(`fixture bulk failed: ${JSON.stringify(bulk.items)}`);
  await es.indices.updateAliases({
    actions: [
      { add: { index: articles.name, alias: `arts-${suffix}` } },
      { add: { index: articles.name, alias: `animals-${suffix}`, filter: { term: { tags: 'animal' } } } },
    ],
  });
  return {
    store,
    es,
    articles,
    notes,
    suffix,
    async stop() {
      await es.close();
      await store.stop();
    },
  };
}

/** One BM25 term score from the formula, float32 as Elasticsearch computes it. */
export function expectedTermScore(t: {
  df: number;
  docCount: number;
  sumTtf: number;
  freq: number;
  dl: number;
  boost?: number;
  idf?: number;
}): number {
  const avgdl = avgFieldLength({ docCount: t.docCount, sumTotalTermFreq: t.sumTtf });
  const weight = termWeight(t.boost ?? 1, t.idf ?? idf(t.df, t.docCount));
  return termScore(weight, t.freq, normInverseCache(avgdl)[intToByte4(t.dl)]!);
}

/** Clause scores summed in double and cast to float, as Lucene's BooleanScorer does; printed as ES prints. */
export function sumScores(...scores: number[]): number {
  return formatFloat(Math.fround(scores.reduce((a, b) => a + b, 0)));
}

export { formatFloat, idfSum };
