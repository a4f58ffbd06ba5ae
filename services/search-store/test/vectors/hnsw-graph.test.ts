import { HnswGraph } from '../../src/index/hnsw-graph';
import { seededRandom } from '../support/seeded-random';
import type { Similarity } from '../../src/index/vector-similarity';
import type { Quantization } from '../../src/index/hnsw-graph';

/**
 * Property: on random data, the graph's k nearest are a subset of the true neighbours' candidates
 * (every hit is a live vector with its exact similarity) and recall@k against the exact scan stays
 * above the floor, for each similarity, with deletes, and with a filter.
 */
function randomVectors(n: number, dims: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, () => Float32Array.from({ length: dims }, () => random() * 2 - 1));
}

function build(
  similarity: Similarity,
  vectors: Float32Array[],
  codes: { quantization?: Quantization; quantizedBuild?: boolean } = {},
): HnswGraph {
  const graph = new HnswGraph({
    dims: vectors[0]!.length,
    similarity,
    linked: true,
    m: 16,
    efConstruction: 100,
    ...codes,
  });
  vectors.forEach((v, i) => graph.insert(i + 1, graph.prepare(v)));
  return graph;
}

function recall(
  graph: HnswGraph,
  queries: Float32Array[],
  k: number,
  ef: number,
  accept?: (docKey: number) => boolean,
): number {
  let found = 0;
  for (const q of queries) {
    const prepared = graph.prepare(q);
    const exact = new Set(graph.exact(prepared, k, accept).map((h) => h.docKey));
    const approx = graph.search(prepared, k, ef, accept);
    for (const hit of approx) {
      // A hit is a real vector with its exact similarity, live and accepted.
      expect(hit.sim).toBeCloseTo(graph.sim(prepared, graph.ordinalOf(hit.docKey)!), 5);
      expect(graph.isDeleted(graph.ordinalOf(hit.docKey)!)).toBe(false);
      if (accept) expect(accept(hit.docKey)).toBe(true);
      if (exact.has(hit.docKey)) found += 1;
    }
    expect(approx.length).toBe(Math.min(k, exact.size));
  }
  return found / (queries.length * k);
}

describe('HnswGraph', () => {
  it.each(['cosine', 'dot_product', 'l2_norm', 'max_inner_product'] as const)(
    'finds the k nearest with recall ≥ 0.9 on random 16-dim data (%s)',
    (similarity) => {
      const graph = build(similarity, randomVectors(3000, 16, 7));
      expect(recall(graph, randomVectors(50, 16, 99), 10, 100)).toBeGreaterThanOrEqual(0.9);
    },
  );

  it('links every node of a tiny graph (each is found as its own nearest)', () => {
    const vectors = randomVectors(40, 3, 3);
    const graph = build('cosine', vectors);
    vectors.forEach((v, i) => expect(graph.search(graph.prepare(v), 1, 10)[0]!.docKey).toBe(i + 1));
  });

  it('keeps recall with a third of the nodes deleted and repaired, and under a filter', () => {
    const vectors = randomVectors(3000, 16, 11);
    const graph = build('l2_norm', vectors);
    for (let k = 1; k <= 3000; k += 3) {
      graph.markDeleted(k);
      graph.repair(k);
    }
    // The entry point moved off the deleted nodes.
    expect(graph.isDeleted(graph.entry)).toBe(false);
    expect(recall(graph, randomVectors(50, 16, 5), 10, 100)).toBeGreaterThanOrEqual(0.9);
    const even = (docKey: number) => docKey % 2 === 0;
    expect(recall(graph, randomVectors(50, 16, 6), 10, 100, even)).toBeGreaterThanOrEqual(0.9);
  });

  describe('scalar quantisation (int8_hnsw, int4_hnsw)', () => {
    // Clustered 64-dim data: quantisation errors matter most when neighbours are close together.
    function clustered(n: number, seed: number): Float32Array[] {
      const random = seededRandom(seed);
      const centres = randomVectors(20, 64, 1);
      return Array.from({ length: n }, () => {
        const c = centres[Math.floor(random() * centres.length)]!;
        return Float32Array.from(c, (x) => x + (random() - 0.5) * 0.4);
      });
    }

    it.each([
      ['int8', 'cosine', { bits: 8 }],
      ['int8', 'l2_norm', { bits: 8 }],
      ['int8 with confidence_interval 0.95', 'dot_product', { bits: 8, confidenceInterval: 0.95 }],
      ['int4', 'cosine', { bits: 4 }],
      ['int4', 'max_inner_product', { bits: 4 }],
    ] as const)(
      '%s walks codes and re-scores with floats: exact similarities, recall ≥ 0.9 (%s)',
      (_name, similarity, quantization) => {
        const graph = build(similarity, clustered(2000, 21), { quantization });
        expect(graph.hasCodes).toBe(true);
        // recall() checks every hit's sim against the float vectors: the re-scoring is exact.
        expect(recall(graph, clustered(40, 22), 10, 100)).toBeGreaterThanOrEqual(0.9);
      },
    );

    it('builds an hnsw graph on codes with the same recall as on floats', () => {
      const vectors = clustered(2000, 31);
      const queries = clustered(40, 32);
      const onFloats = recall(build('cosine', vectors), queries, 10, 100);
      const onCodes = recall(build('cosine', vectors, { quantizedBuild: true }), queries, 10, 100);
      expect(onFloats).toBeGreaterThanOrEqual(0.9);
      expect(onCodes).toBeGreaterThanOrEqual(onFloats - 0.02);
    });
  });

  it('compacts away tombstones: half the nodes deleted, recall holds and every link is live', () => {
    const vectors = randomVectors(3000, 16, 41);
    const graph = build('cosine', vectors);
    for (let k = 1; k <= 3000; k += 2) {
      graph.markDeleted(k);
      graph.repair(k);
    }
    const { graph: compacted, removed, changed } = graph.compacted();
    expect(removed).toHaveLength(1500);
    expect(changed.length).toBeGreaterThan(0);
    expect(compacted.size).toBe(1500);
    expect(compacted.tombstones).toBe(0);
    for (let o = 0; o < compacted.size; o++) {
      expect(compacted.docKeyOf(o) % 2).toBe(0);
      for (let l = 0; l <= compacted.levelOf(o); l++) {
        for (const n of compacted.neighbours(o, l)) {
          expect(n).toBeGreaterThanOrEqual(0);
          expect(n).toBeLessThan(compacted.size);
          expect(n).not.toBe(o);
        }
      }
    }
    expect(compacted.isDeleted(compacted.entry)).toBe(false);
    expect(recall(compacted, randomVectors(50, 16, 42), 10, 100)).toBeGreaterThanOrEqual(0.9);
    // It still takes inserts.
    compacted.insert(5001, compacted.prepare(vectors[0]!));
    expect(compacted.search(compacted.prepare(vectors[0]!), 1, 10)[0]!.docKey).toBe(5001);
  });
});
