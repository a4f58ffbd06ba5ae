import type { Queryable } from '../storage/queryable';
import { findVectors } from '../storage/hnsw-graph.repo';
import type { DenseVectorField } from './dense-vector-fields';
import type { HnswGraph, VectorHit } from './hnsw-graph';
import { graphToken, loadGraph } from './hnsw-graph-cache';
import { sharedGraphCaches } from './vector-writer';
import { decodeVector } from './vector-similarity';

/**
 * The graph of a field as the caller's snapshot sees it: the in-process one when it holds that
 * snapshot's state, else loaded from the tables (and kept). Undefined when no vector was written.
 */
export async function openGraph(
  db: Queryable,
  indexId: string,
  field: DenseVectorField,
): Promise<HnswGraph | undefined> {
  const token = await graphToken(db, indexId, field.path);
  if (token === undefined) return undefined;
  const cached = sharedGraphCaches.lookup(indexId, field, token);
  if (cached) return cached;
  const graph = await loadGraph(db, indexId, field);
  if (graph) sharedGraphCaches.install(indexId, field, graph, token);
  return graph;
}

/** Below this many accepted documents per candidate, a filtered search compares them all (Lucene's exact fallback). */
const EXACT_FILTER_RATIO = 10;

/**
 * The k nearest live vectors of a field: through the graph (exploring `numCandidates` on layer 0) for
 * hnsw fields, exactly for flat ones; `accepted` (the knn filter's documents) restricts the results
 * during the search, and a filter small enough is searched exactly, as Lucene does.
 */
export async function nearestVectors(
  db: Queryable,
  indexId: string,
  field: DenseVectorField,
  query: readonly number[],
  k: number,
  numCandidates: number,
  accepted?: Set<number>,
): Promise<{ hits: VectorHit[]; graph: HnswGraph } | undefined> {
  const graph = await openGraph(db, indexId, field);
  if (!graph) return undefined;
  const prepared = graph.prepare(query);
  const accept = accepted ? (docKey: number) => accepted.has(docKey) : undefined;
  if (accepted && accepted.size <= numCandidates * EXACT_FILTER_RATIO) {
    return { hits: graph.exactAmong(prepared, k, accepted), graph };
  }
  return { hits: graph.search(prepared, k, numCandidates, accept), graph };
}

/** Stored vectors of some documents (script_score's exact path), decoded. */
export async function loadDocumentVectors(
  db: Queryable,
  indexId: string,
  field: DenseVectorField,
  docKeys: number[],
): Promise<Map<number, Float32Array>> {
  const raw = await findVectors(db, indexId, field.path, docKeys);
  const out = new Map<number, Float32Array>();
  for (const [k, v] of raw) out.set(k, decodeVector(v, field.elementType));
  return out;
}

/** SQL: the doc keys with a stored vector in a field (the exists query on a dense_vector). */
export function docsWithVector(indexIdSql: string, fieldSql: string): string {
  return `SELECT doc_key FROM dense_vectors WHERE index_id = ${indexIdSql} AND field = ${fieldSql}`;
}
