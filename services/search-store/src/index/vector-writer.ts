import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import type { IndexMapping } from '../mapping/mapping-types';
import { EventLoopTurns } from '../storage/event-loop-turns';
import {
  claimGraph,
  copyVectorTables,
  deleteVectorTables,
  deleteNodes,
  deleteVectors,
  hasTombstones,
  saveEntry,
  saveNodes,
  saveVectors,
  tombstoneNodes,
} from '../storage/hnsw-graph.repo';
import { hasGraph, listDenseVectorFields, type DenseVectorField } from './dense-vector-fields';
import type { HnswGraph } from './hnsw-graph';
import { encodeNeighbours, HnswGraphCaches, loadGraph } from './hnsw-graph-cache';
import { encodeVector } from './vector-similarity';

/**
 * The one in-process set of graphs, shared by the writer and the searches of this process. Safe to
 * share across apps and databases: every use checks the graph's stored token (hnsw-graph-cache.ts).
 */
export const sharedGraphCaches = new HnswGraphCaches();

/** Milliseconds of graph building between two turns of the event loop (searches go on meanwhile). */
const INSERT_SLICE_MS = 10;

/** One statement at a time sent without waiting for it; its failure is thrown at the next check. */
class BackgroundWrites {
  private running: Promise<void> | undefined;
  private failure: { error: unknown } | undefined;

  send(write: () => Promise<unknown>): void {
    const running: Promise<void> = write().then(
      () => {
        if (this.running === running) this.running = undefined;
      },
      (error: unknown) => {
        this.failure ??= { error };
        if (this.running === running) this.running = undefined;
      },
    );
    this.running = running;
  }

  check(): void {
    if (this.failure) throw this.failure.error;
  }

  async settled(): Promise<void> {
    await this.running;
    this.check();
  }
}

/** The vector at a dotted path of a source, as the mapping validated it (an array of numbers). */
export function vectorAt(source: unknown, path: string): number[] | undefined {
  let node: unknown = source;
  let rest = path;
  while (rest !== '') {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    const record = node as Record<string, unknown>;
    const parts = rest.split('.');
    let found = false;
    // The longest own key first: `{"a.b": [..]}` and `{"a": {"b": [..]}}` both map to a.b.
    for (let i = parts.length; i >= 1; i--) {
      const key = parts.slice(0, i).join('.');
      if (Object.hasOwn(record, key)) {
        node = record[key];
        rest = parts.slice(i).join('.');
        found = true;
        break;
      }
    }
    if (!found) return undefined;
  }
  if (typeof node === 'number') return [node];
  return Array.isArray(node) && node.every((v) => typeof v === 'number') ? (node as number[]) : undefined;
}

/**
 * Writes dense_vector values and keeps each indexed field's HNSW graph, inside the document write's
 * transaction (the index row is already locked FOR UPDATE by write/execute-writes.ts, so writers to a
 * graph are serialised). Why in the transaction and not a background merge: a committed document is
 * at once findable by knn, as by every other query here, and no search ever scans an unmerged tail.
 */
export class VectorWriter {
  constructor(private readonly caches: HnswGraphCaches = sharedGraphCaches) {}

  private async openForWrite(
    client: PoolClient,
    indexId: string,
    field: DenseVectorField,
  ): Promise<{ graph: HnswGraph; token: string }> {
    const token = randomUUID();
    const previous = await claimGraph(client, indexId, field.path, token);
    const graph =
      this.caches.forWriter(indexId, field, previous) ?? (await loadGraph(client, indexId, field))!;
    return { graph, token };
  }

  async add(
    client: PoolClient,
    indexId: string,
    mappings: IndexMapping,
    documents: { docKey: number; source: Record<string, unknown> }[],
  ): Promise<void> {
    for (const field of listDenseVectorFields(mappings)) {
      const keys: number[] = [];
      const values: number[][] = [];
      for (const d of documents) {
        const v = vectorAt(d.source, field.path);
        if (v && v.length > 0) {
          keys.push(d.docKey);
          values.push(v);
        }
      }
      if (keys.length === 0) continue;
      const effective: DenseVectorField =
        field.dims === undefined ? { ...field, dims: values[0]!.length } : field;
      if (!effective.indexed) {
        await saveVectors(
          client,
          indexId,
          field.path,
          keys,
          values.map((v) => encodeVector(v, field.elementType)),
        );
        continue;
      }
      const { graph, token } = await this.openForWrite(client, indexId, effective);
      // Postgres writes the vectors while Node builds the graph (one statement at a time on a client).
      // The changed nodes go after: sent in slices while building, a node changed again later was
      // written again, tripling hnsw_nodes on disk (dead versions in one transaction) for ~15 % of a batch.
      const writes = new BackgroundWrites();
      try {
        writes.send(() =>
          saveVectors(
            client,
            indexId,
            field.path,
            keys,
            values.map((v) => encodeVector(v, field.elementType)),
          ),
        );
        const linked = hasGraph(effective);
        const turns = new EventLoopTurns(INSERT_SLICE_MS);
        for (let i = 0; i < keys.length; i++) {
          graph.insert(keys[i]!, graph.prepare(values[i]!));
          if (turns.due()) {
            await turns.give();
            writes.check();
          }
        }
        await writes.settled();
        if (linked) await this.persist(client, indexId, effective, graph);
        else graph.takeDirty();
        this.caches.install(indexId, effective, graph, token);
      } catch (error) {
        this.caches.drop(indexId, field.path);
        // Nothing may still be running on the client when the caller rolls back.
        await writes.settled().catch(() => undefined);
        throw error;
      }
    }
  }

  /** Deleted documents: graph nodes become tombstones (their vectors stay for the paths through them). */
  async remove(
    client: PoolClient,
    indexId: string,
    mappings: IndexMapping,
    docKeys: number[],
  ): Promise<void> {
    for (const field of listDenseVectorFields(mappings)) {
      if (!field.indexed || !hasGraph(field)) {
        await deleteVectors(client, indexId, field.path, docKeys);
        if (!field.indexed) continue;
      }
      const { graph, token } = await this.openForWrite(client, indexId, field);
      try {
        const dead = hasGraph(field) ? await tombstoneNodes(client, indexId, field.path, docKeys) : docKeys;
        for (const k of dead) {
          if (graph.markDeleted(k)) graph.repair(k);
        }
        if (hasGraph(field)) await this.persist(client, indexId, field, graph);
        this.caches.install(indexId, field, graph, token);
      } catch (error) {
        this.caches.drop(indexId, field.path);
        throw error;
      }
    }
  }

  /**
   * Graph compaction (force merge): each graph with tombstones is replaced by one without them
   * (hnsw-graph.ts `compacted`), the tombstones' nodes and vectors deleted, the relinked nodes and
   * the entry point written. Returns the number of tombstones removed.
   */
  async compact(client: PoolClient, indexId: string, mappings: IndexMapping): Promise<number> {
    let removedCount = 0;
    for (const field of listDenseVectorFields(mappings)) {
      if (!hasGraph(field) || !(await hasTombstones(client, indexId, field.path))) continue;
      const { graph, token } = await this.openForWrite(client, indexId, field);
      try {
        const { graph: next, removed, changed } = graph.compacted();
        await deleteNodes(client, indexId, field.path, removed);
        await deleteVectors(client, indexId, field.path, removed);
        await saveNodes(
          client,
          indexId,
          field.path,
          changed.map((docKey) => {
            const o = next.ordinalOf(docKey)!;
            return { docKey, level: next.levelOf(o), neighbours: encodeNeighbours(next, o) };
          }),
        );
        await saveEntry(
          client,
          indexId,
          field.path,
          next.entry < 0 ? null : next.docKeyOf(next.entry),
          next.entry < 0 ? -1 : next.maxLevel,
        );
        // A new graph object: searches holding the old tokens load or keep the old one, never this.
        this.caches.drop(indexId, field.path);
        this.caches.install(indexId, field, next, token);
        removedCount += removed.length;
      } catch (error) {
        this.caches.drop(indexId, field.path);
        throw error;
      }
    }
    return removedCount;
  }

  /** The nodes whose lists changed since the last call, encoded for hnsw_nodes. */
  private dirtyNodes(graph: HnswGraph): { docKey: number; level: number; neighbours: Buffer }[] {
    return graph.takeDirty().map((o) => ({
      docKey: graph.docKeyOf(o),
      level: graph.levelOf(o),
      neighbours: encodeNeighbours(graph, o),
    }));
  }

  /** Writes the nodes whose lists changed, and the entry point. */
  private async persist(
    client: PoolClient,
    indexId: string,
    field: DenseVectorField,
    graph: HnswGraph,
  ): Promise<void> {
    await saveNodes(client, indexId, field.path, this.dirtyNodes(graph));
    await saveEntry(
      client,
      indexId,
      field.path,
      graph.entry < 0 ? null : graph.docKeyOf(graph.entry),
      graph.maxLevel,
    );
  }

  async copy(client: PoolClient, fromIndexId: string, toIndexId: string): Promise<void> {
    this.caches.drop(toIndexId);
    await copyVectorTables(client, fromIndexId, toIndexId);
  }

  async drop(client: PoolClient, indexId: string): Promise<void> {
    this.caches.drop(indexId);
    await deleteVectorTables(client, indexId);
  }
}
