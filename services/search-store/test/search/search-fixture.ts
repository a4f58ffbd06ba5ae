import { Client } from 'es8';
import { uniqueId } from '@acme/testkit';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { indexHelpers } from '../index/support/index-fixture';
import type { IndexContext } from '../../src/index/index-writer';
import {
  avgFieldLength,
  formatFloat,
  idf,
  idfSum,
  normInverseCache,
  termScore,
  termWeight,
} from '../../src/query/score/bm25';
import { intToByte4 } from '../../src/query/score/small-float';

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
  articles: IndexContext;
  notes: IndexContext;
  stop(): Promise<void>;
}

/** search-store on port 0 with two indices written through the index writer, and the official client. */
export async function startSearchFixture(): Promise<SearchFixture> {
  const store = await startSearchStore();
  const helpers = indexHelpers(store.pool);
  const suffix = uniqueId('s')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
  const articles = await helpers.createIndex(ARTICLES_MAPPING, {}, `articles-${suffix}`);
  await helpers.putDocs(articles, ARTICLES);
  const notes = await helpers.createIndex({ properties: { title: { type: 'text' } } }, {}, `notes-${suffix}`);
  await helpers.putDocs(notes, { n1: { title: 'a fox note' } });
  await store.pool.query('INSERT INTO aliases (alias, index_id) VALUES ($1, $2)', [
    `arts-${suffix}`,
    articles.indexId,
  ]);
  await store.pool.query('INSERT INTO aliases (alias, index_id, filter) VALUES ($1, $2, $3)', [
    `animals-${suffix}`,
    articles.indexId,
    { term: { tags: 'animal' } },
  ]);
  const es = new Client({ node: store.url });
  return {
    store,
    es,
    articles,
    notes,
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
