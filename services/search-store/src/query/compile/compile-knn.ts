import { denseVectorField, type DenseVectorField } from '../../index/dense-vector-fields';
import { nearestVectors } from '../../index/vector-reader';
import { scoreOfSim, thresholdScore } from '../../index/vector-similarity';
import type { Query } from '../query-ast';
import { ShardQueryError } from '../shard-query-error';
import { NOTHING, type CompileContext } from './compile-context';
import { SqlParams } from './sql-params';

type KnnQuery = Extract<Query, { kind: 'knn' }>;
type Compile = (ctx: CompileContext, query: Query, boost: number, scoring: boolean) => Promise<string>;

function illegal(reason: string): ShardQueryError {
  return new ShardQueryError({ type: 'illegal_argument_exception', reason });
}

/** The field a vector query searches, checked as ES's DenseVectorFieldType does; undefined if unmapped. */
export function vectorFieldOf(ctx: CompileContext, path: string, what: string): DenseVectorField | undefined {
  const field = ctx.reader.fields.get(path);
  if (!field) return undefined;
  if (field.type !== 'dense_vector') {
    throw illegal(`[${what}] queries are only supported on [dense_vector] fields`);
  }
  return denseVectorField(path, field.mapping);
}

/** The query vector against the field (dims, byte range), ES's messages. */
export function checkQueryVector(field: DenseVectorField, vector: readonly number[]): void {
  if (field.dims !== undefined && vector.length !== field.dims) {
    throw illegal(
      `The query vector has a different number of dimensions [${vector.length}] than the document vectors [${field.dims}].`,
    );
  }
  if (field.elementType === 'byte') {
    for (let i = 0; i < vector.length; i++) {
      const v = vector[i]!;
      if (!Number.isInteger(v) || v < -128 || v > 127) {
        throw illegal(
          `element_type [byte] vectors only support integers between [-128, 127] but found [${v}] at dim [${i}]; Preview of invalid vector: [${vector.slice(0, 10).join(', ')}]`,
        );
      }
    }
  }
  if (field.similarity === 'cosine' && vector.every((v) => v === 0)) {
    throw illegal(
      `The [cosine] similarity does not support vectors with zero magnitude. Preview of invalid vector: [${vector.slice(0, 10).join(', ')}]`,
    );
  }
}

/**
 * A knn query (or a top-level knn clause) on one index: the k nearest vectors found in Node (the graph,
 * or every vector of a flat field) with the filter's documents as the accepted set during the search,
 * then a relation of (doc_key, score) joined with the snapshot's documents. Scores are the
 * similarity's ES transform × boost; `similarity` drops hits below its threshold.
 */
export async function compileKnn(
  ctx: CompileContext,
  query: KnnQuery,
  boost: number,
  scoring: boolean,
  compile: Compile,
): Promise<string> {
  const field = vectorFieldOf(ctx, query.field, 'knn');
  if (!field) throw illegal(`field [${query.field}] does not exist in the mapping`);
  if (!field.indexed) {
    throw illegal(
      `to perform knn search on field [${query.field}], its mapping must have [index] set to [true]`,
    );
  }
  checkQueryVector(field, query.queryVector);
  const { params, reader } = ctx;
  const filters = [...query.filter, ...(reader.filter ? [reader.filter] : [])];
  let accepted: Set<number> | undefined;
  if (filters.length > 0) {
    const own = new SqlParams();
    const filterSql = await compile(
      { ...ctx, params: own },
      { kind: 'bool', must: [], should: [], filter: filters, mustNot: [], boost: 1 },
      1,
      false,
    );
    // The filter runs on its own parameters' values so far: the statement is sent now, in the snapshot.
    const { rows } = await ctx.db.query<{ doc_key: string }>(
      `SELECT doc_key FROM (${filterSql}) f`,
      own.values,
    );
    accepted = new Set(rows.map((r) => Number(r.doc_key)));
  }
  const found = await nearestVectors(
    ctx.db,
    reader.indexId,
    field,
    query.queryVector,
    query.k,
    query.numCandidates,
    accepted,
  );
  if (!found) return NOTHING;
  const dims = field.dims ?? query.queryVector.length;
  const min =
    query.similarity === undefined
      ? -Infinity
      : thresholdScore(field.similarity, query.similarity, dims, field.elementType);
  const keys: number[] = [];
  const scores: number[] = [];
  for (const hit of found.hits) {
    const score = scoreOfSim(field.similarity, hit.sim, dims, field.elementType);
    if (score < min) continue;
    keys.push(hit.docKey);
    scores.push(scoring ? Math.fround(score * boost) : 0);
  }
  if (keys.length === 0) return NOTHING;
  // The cache may hold nodes of writes this snapshot cannot see (in flight or later): the documents decide.
  return `SELECT k.doc_key, k.s FROM unnest(${params.add(keys)}::bigint[], ${params.add(scores)}::float4[]) AS k(doc_key, s)
    WHERE EXISTS (SELECT 1 FROM documents d WHERE d.index_id = ${params.add(reader.indexId)}::bigint AND d.doc_key = k.doc_key)`;
}
