import type { Queryable } from '../storage/queryable';
import { findGraph, loadVectorPages } from '../storage/hnsw-graph.repo';
import { graphOptionsOf, type DenseVectorField } from './dense-vector-fields';
import { HnswGraph } from './hnsw-graph';
import { decodeVector } from './vector-similarity';

/**
 * The persisted neighbour lists of a node: for each layer 0..level a uint16 count, then that many
 * float64 doc keys (exact to 2^53; doc keys come from one sequence).
 */
export function encodeNeighbours(graph: HnswGraph, ordinal: number): Buffer {
  const level = graph.levelOf(ordinal);
  const lists: Int32Array[] = [];
  let bytes = 0;
  for (let l = 0; l <= level; l++) {
    const list = graph.neighbours(ordinal, l);
    lists.push(list);
    bytes += 2 + list.length * 8;
  }
  const out = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const list of lists) {
    out.writeUInt16LE(list.length, at);
    at += 2;
    for (let i = 0; i < list.length; i++) {
      out.writeDoubleLE(graph.docKeyOf(list[i]!), at);
      at += 8;
    }
  }
  return out;
}

function decodeNeighbours(
  bytes: Buffer,
  level: number,
  ordinalOf: (docKey: number) => number | undefined,
): number[][] {
  const layers: number[][] = [];
  let at = 0;
  for (let l = 0; l <= level && at + 2 <= bytes.length; l++) {
    const count = bytes.readUInt16LE(at);
    at += 2;
    const list: number[] = [];
    for (let i = 0; i < count; i++, at += 8) {
      const ordinal = ordinalOf(bytes.readDoubleLE(at));
      if (ordinal !== undefined) list.push(ordinal);
    }
    layers.push(list);
  }
  return layers;
}

interface CachedGraph {
  graph: HnswGraph;
  /** The graph's current token, as the last write through this cache (or the load) set it. */
  token: string;
  /**
   * Tokens of states this graph holds everything of: the graph only ever grows (deletes are
   * tombstones), so it serves a search whose snapshot saw any of them; extra nodes a snapshot cannot
   * see are dropped by the search's join with its documents.
   */
  lineage: Set<string>;
  options: string;
}

const MAX_LINEAGE = 256;

/**
 * In-process graphs per (index, field), checked against `hnsw_graphs.token`: as the term dictionary
 * cache, self-checking, so several search-store instances (or a rolled-back write) never serve a
 * graph that is not the stored one's superset.
 */
export class HnswGraphCaches {
  private readonly graphs = new Map<string, CachedGraph>();

  private key(indexId: string, path: string): string {
    return `${indexId}\u0000${path}`;
  }

  private static optionsKey(field: DenseVectorField): string {
    return JSON.stringify([
      field.dims,
      field.similarity,
      field.elementType,
      field.indexType,
      field.m,
      field.efConstruction,
      field.confidenceInterval,
    ]);
  }

  /** The cached graph if it holds the state of `token`. */
  lookup(indexId: string, field: DenseVectorField, token: string): HnswGraph | undefined {
    const cached = this.graphs.get(this.key(indexId, field.path));
    if (!cached || cached.options !== HnswGraphCaches.optionsKey(field)) return undefined;
    return cached.lineage.has(token) ? cached.graph : undefined;
  }

  /** For a writer holding the graph's lock: the cache if its token is the one the graph had. */
  forWriter(indexId: string, field: DenseVectorField, previous: string | null): HnswGraph | undefined {
    const cached = this.graphs.get(this.key(indexId, field.path));
    if (!cached || cached.options !== HnswGraphCaches.optionsKey(field)) return undefined;
    return cached.token === previous ? cached.graph : undefined;
  }

  /** Records that `graph` is now the state of `token` (after a write through it, or a load). */
  install(indexId: string, field: DenseVectorField, graph: HnswGraph, token: string): void {
    const key = this.key(indexId, field.path);
    const cached = this.graphs.get(key);
    const lineage = cached && cached.graph === graph ? cached.lineage : new Set<string>();
    lineage.add(token);
    if (lineage.size > MAX_LINEAGE) lineage.delete(lineage.values().next().value!);
    this.graphs.set(key, { graph, token, lineage, options: HnswGraphCaches.optionsKey(field) });
  }

  drop(indexId: string, path?: string): void {
    if (path !== undefined) {
      this.graphs.delete(this.key(indexId, path));
      return;
    }
    for (const key of [...this.graphs.keys()])
      if (key.startsWith(`${indexId}\u0000`)) this.graphs.delete(key);
  }
}

/** Builds a field's graph from its stored rows (in the caller's snapshot). */
export async function loadGraph(
  db: Queryable,
  indexId: string,
  field: DenseVectorField,
): Promise<HnswGraph | undefined> {
  const row = await findGraph(db, indexId, field.path);
  const graph = new HnswGraph(graphOptionsOf(field, field.dims ?? 0));
  const pending: { ordinal: number; level: number; neighbours: Buffer }[] = [];
  for await (const page of loadVectorPages(db, indexId, field.path)) {
    for (const r of page) {
      const vector = graph.prepare(decodeVector(r.vec, field.elementType));
      const ordinal = graph.append(r.docKey, vector, r.level ?? 0, r.deleted);
      if (r.neighbours) pending.push({ ordinal, level: r.level ?? 0, neighbours: r.neighbours });
    }
  }
  for (const p of pending) {
    decodeNeighbours(p.neighbours, p.level, (k) => graph.ordinalOf(k)).forEach((list, layer) =>
      graph.setNeighbours(p.ordinal, layer, list),
    );
  }
  graph.takeDirty();
  if (row?.entryDocKey !== null && row?.entryDocKey !== undefined) {
    graph.entry = graph.ordinalOf(row.entryDocKey) ?? -1;
    graph.maxLevel = graph.entry < 0 ? -1 : row.maxLevel;
  }
  return graph;
}

/** The token a search's snapshot sees for a field's graph (undefined: no vectors written yet). */
export async function graphToken(db: Queryable, indexId: string, path: string): Promise<string | undefined> {
  return (await findGraph(db, indexId, path))?.token;
}
