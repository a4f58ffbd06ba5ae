import type { Pool, PoolClient } from 'pg';
import { analyze, findAnalyzer } from '../../analysis/analyzer';
import { searchAnalyzerFor } from '../../index/analyze-document';
import { compileQuery } from '../../query/compile/compile-query';
import type { IndexReader } from '../../query/index-reader';
import { phraseFrequency } from '../../query/compile/phrase-frequency';
import { findTermPosting, findTermPositions, toPositions } from '../../index/postings-reader';
import type { Query } from '../../query/query-ast';
import {
  avgFieldLength,
  B,
  formatFloat,
  idf,
  idfSum,
  K1,
  K1_PLUS_ONE,
  normInverseCache,
  termScore,
} from '../../query/score/bm25';
import { LENGTH_TABLE } from '../../index/small-float';
import { SqlParams } from '../../query/compile/sql-params';
import { explainNested } from './explain-nested';

/** Elasticsearch's `_explanation` tree: `{value, description, details}`. */
export interface Explanation {
  value: number;
  description: string;
  details: Explanation[];
}

const leaf = (value: number, description: string): Explanation => ({
  value: formatFloat(Math.fround(value)),
  description,
  details: [],
});

/**
 * Explains one hit: each node's value is its score for this document (computed by the same SQL the
 * search ran), and BM25 term scores are broken down as Lucene's BM25Similarity.explain does.
 */
export async function explainHit(
  db: Pool | PoolClient,
  reader: IndexReader,
  query: Query,
  docKey: string,
  score: number,
  now: number,
): Promise<Explanation> {
  const tree = await explainNode({ db, reader, docKey, now }, query, 1);
  return tree ?? leaf(score, 'no matching clause');
}

interface ExplainContext {
  db: Pool | PoolClient;
  reader: IndexReader;
  docKey: string;
  now: number;
}

async function scoreOf(ctx: ExplainContext, query: Query, boost: number): Promise<number | undefined> {
  const params = new SqlParams();
  const sql = await compileQuery(
    { db: ctx.db, reader: ctx.reader, params, now: ctx.now },
    query,
    boost,
    true,
  );
  const { rows } = await ctx.db.query<{ s: number }>(
    `SELECT s FROM (${sql}) x WHERE doc_key = ${params.add(ctx.docKey)}`,
    params.values,
  );
  return rows[0]?.s;
}

async function explainNode(
  ctx: ExplainContext,
  query: Query,
  boost: number,
): Promise<Explanation | undefined> {
  const value = await scoreOf(ctx, query, boost);
  if (value === undefined) return undefined;
  const b = Math.fround(boost * query.boost);
  switch (query.kind) {
    case 'bool': {
      const details: Explanation[] = [];
      for (const q of [...query.must, ...query.should]) {
        const e = await explainNode(ctx, q, b);
        if (e) details.push(e);
      }
      for (const q of query.filter) {
        const e = await explainNode(ctx, q, 1);
        if (e)
          details.push({
            value: 0,
            description: 'match on required clause, product of:',
            details: [leaf(0, '# clause'), e],
          });
      }
      return { value: formatFloat(value), description: 'sum of:', details };
    }
    case 'dis_max': {
      const details = (await Promise.all(query.queries.map((q) => explainNode(ctx, q, b)))).filter(
        (e): e is Explanation => !!e,
      );
      const description =
        query.tieBreaker === 0 ? 'max of:' : `max plus ${query.tieBreaker} times others of:`;
      return { value: formatFloat(value), description, details };
    }
    case 'match':
    case 'term': {
      const field = ctx.reader.fields.get(query.field);
      if (!field || (field.type !== 'text' && field.type !== 'keyword')) break;
      const text = query.kind === 'match' ? String(query.query) : String(query.value);
      const terms =
        query.kind === 'match' && field.type === 'text'
          ? analyze(
              query.analyzer
                ? findAnalyzer(query.analyzer, ctx.reader.settings)
                : searchAnalyzerFor(field, ctx.reader.settings),
              text,
            ).map((t) => t.term)
          : [text];
      const details: Explanation[] = [];
      for (const term of terms) {
        const e = await explainTerm(ctx, query.field, term, b);
        if (e) details.push(e);
      }
      if (details.length === 1) return details[0];
      return { value: formatFloat(value), description: 'sum of:', details };
    }
    case 'match_all':
      return leaf(value, '*:*');
    case 'nested':
      return explainNested(
        ctx.db,
        ctx.reader,
        ctx.docKey,
        ctx.now,
        query,
        b,
        value,
        (reader, docKey, q, qb) => explainNode({ ...ctx, reader, docKey }, q, qb),
      );
    case 'match_phrase': {
      const phrase = await explainPhrase(ctx, query, b);
      if (phrase) return phrase;
      break;
    }
    default:
      break;
  }
  return leaf(value, `ConstantScore(${describe(query)})^${b}`);
}

function describe(query: Query): string {
  switch (query.kind) {
    case 'term':
    case 'prefix':
    case 'wildcard':
      return `${query.field}:${query.value}`;
    case 'terms':
      return `${query.field}:(${query.values.join(' ')})`;
    case 'range':
      return `${query.field}:[${query.gte ?? query.gt ?? '*'} TO ${query.lte ?? query.lt ?? '*'}]`;
    case 'exists':
      return `FieldExistsQuery [field=${query.field}]`;
    case 'ids':
      return `_id:(${query.values.join(' ')})`;
    default:
      return query.kind;
  }
}

async function explainTerm(
  ctx: ExplainContext,
  fieldName: string,
  term: string,
  boost: number,
): Promise<Explanation | undefined> {
  const field = ctx.reader.fields.get(fieldName);
  if (!field || field.fieldId === undefined) return undefined;
  const row = await findTermPosting(ctx.db, ctx.reader.indexId, field.fieldId, term, ctx.docKey);
  if (!row) return undefined;
  const n = row.doc_freq;
  const N = field.docCount;
  const idfValue = idf(n, N);
  const avgdl = avgFieldLength({ docCount: N, sumTotalTermFreq: field.sumTotalTermFreq });
  const boostValue = Math.fround(Math.fround(boost) * K1_PLUS_ONE);
  const weight = Math.fround(boostValue * idfValue);
  const score = termScore(weight, row.freq, normInverseCache(avgdl)[row.norm]!);
  const dl = LENGTH_TABLE[row.norm]!;
  const tf = Math.fround(score / weight);
  return {
    value: formatFloat(score),
    description: `weight(${fieldName}:${term} in ${ctx.docKey}) [PerFieldSimilarity], result of:`,
    details: [
      {
        value: formatFloat(score),
        description: `score(freq=${row.freq.toFixed(1)}), computed as boost * idf * tf from:`,
        details: [
          leaf(boostValue, 'boost'),
          {
            value: formatFloat(idfValue),
            description: 'idf, computed as log(1 + (N - n + 0.5) / (n + 0.5)) from:',
            details: [
              leaf(n, 'n, number of documents containing term'),
              leaf(N, 'N, total number of documents with field'),
            ],
          },
          {
            value: formatFloat(tf),
            description: 'tf, computed as freq / (freq + k1 * (1 - b + b * dl / avgdl)) from:',
            details: [
              leaf(row.freq, 'freq, occurrences of term within document'),
              leaf(K1, 'k1, term saturation parameter'),
              leaf(B, 'b, length normalization parameter'),
              leaf(dl, row.norm > 39 ? 'dl, length of field (approximate)' : 'dl, length of field'),
              leaf(avgdl, 'avgdl, average length of field'),
            ],
          },
        ],
      },
    ],
  };
}

/** A phrase's BM25 breakdown: the phrase frequency in this document and the idf summed over its terms. */
async function explainPhrase(
  ctx: ExplainContext,
  query: Extract<Query, { kind: 'match_phrase' }>,
  boost: number,
): Promise<Explanation | undefined> {
  const field = ctx.reader.fields.get(query.field);
  if (!field || field.type !== 'text' || field.fieldId === undefined) return undefined;
  const analyzer = query.analyzer
    ? findAnalyzer(query.analyzer, ctx.reader.settings)
    : searchAnalyzerFor(field, ctx.reader.settings);
  const tokens = analyze(analyzer, query.query);
  if (tokens.length < 2) return undefined;
  const rows = await findTermPositions(
    ctx.db,
    ctx.reader.indexId,
    field.fieldId,
    tokens.map((t) => t.term),
    ctx.docKey,
  );
  const byTerm = new Map(rows.map((r) => [r.term, r]));
  if (tokens.some((t) => !byTerm.has(t.term))) return undefined;
  const freq = phraseFrequency(
    tokens.map((t) => toPositions(byTerm.get(t.term)!.positions)),
    tokens.map((t) => t.position - tokens[0]!.position),
    query.slop,
  );
  const N = field.docCount;
  const idfValue = idfSum(
    tokens.map((t) => byTerm.get(t.term)!.doc_freq),
    N,
  );
  const avgdl = avgFieldLength({ docCount: N, sumTotalTermFreq: field.sumTotalTermFreq });
  const norm = rows[0]!.norm;
  const boostValue = Math.fround(Math.fround(boost) * K1_PLUS_ONE);
  const weight = Math.fround(boostValue * idfValue);
  const score = termScore(weight, freq, normInverseCache(avgdl)[norm]!);
  const dl = LENGTH_TABLE[norm]!;
  return {
    value: formatFloat(score),
    description: `weight(${query.field}:"${tokens.map((t) => t.term).join(' ')}"${query.slop > 0 ? `~${query.slop}` : ''} in ${ctx.docKey}) [PerFieldSimilarity], result of:`,
    details: [
      {
        value: formatFloat(score),
        description: `score(freq=${Number.isInteger(freq) ? freq.toFixed(1) : String(formatFloat(freq))}), computed as boost * idf * tf from:`,
        details: [
          leaf(boostValue, 'boost'),
          {
            value: formatFloat(idfValue),
            description: 'idf, sum of:',
            details: tokens.map((t) => ({
              value: formatFloat(idf(byTerm.get(t.term)!.doc_freq, N)),
              description: 'idf, computed as log(1 + (N - n + 0.5) / (n + 0.5)) from:',
              details: [
                leaf(byTerm.get(t.term)!.doc_freq, 'n, number of documents containing term'),
                leaf(N, 'N, total number of documents with field'),
              ],
            })),
          },
          {
            value: formatFloat(Math.fround(score / weight)),
            description: 'tf, computed as freq / (freq + k1 * (1 - b + b * dl / avgdl)) from:',
            details: [
              leaf(freq, 'phraseFreq=' + String(formatFloat(freq))),
              leaf(K1, 'k1, term saturation parameter'),
              leaf(B, 'b, length normalization parameter'),
              leaf(dl, norm > 39 ? 'dl, length of field (approximate)' : 'dl, length of field'),
              leaf(avgdl, 'avgdl, average length of field'),
            ],
          },
        ],
      },
    ],
  };
}
