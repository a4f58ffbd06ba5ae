/**
 * Lucene's LevenshteinAutomata as FuzzyQuery uses them: does a term lie within `maxEdits` edits of
 * the query term, and how many? Edits are insertions, deletions and substitutions of one code point,
 * plus (with `transpositions`, ES's default `fuzzy_transpositions: true`) the swap of two adjacent
 * code points counted as one edit: the restricted Damerau–Levenshtein ("optimal string alignment")
 * distance that Schulz & Mihov's automaton with transpositions accepts.
 *
 * Rather than compiling the deterministic automaton Lucene builds from parametric tables, this runs
 * the nondeterministic one: its state after reading a prefix of the term is one row of the edit
 * distance table limited to the diagonal band |i − j| ≤ maxEdits (cells outside it exceed
 * maxEdits). Each code point of a term costs O(maxEdits) work, so a term is decided in linear
 * time, and the walk stops as soon as no cell of the row is within maxEdits (the automaton's dead
 * state). maxEdits is at most 2, as in Lucene (LevenshteinAutomata.MAXIMUM_SUPPORTED_DISTANCE).
 */
export const MAX_EDITS = 2;

export class LevenshteinAutomaton {
  private readonly query: number[];

  constructor(
    query: string,
    readonly maxEdits: number,
    readonly transpositions: boolean,
  ) {
    if (!Number.isInteger(maxEdits) || maxEdits < 0 || maxEdits > MAX_EDITS)
      throw new RangeError(`maxEdits must be between 0 and ${MAX_EDITS}`);
    this.query = codePoints(query);
  }

  /** The edit distance between the term and the query, or -1 when it exceeds maxEdits. */
  distance(term: string): number {
    return this.distanceOf(codePoints(term));
  }

  /** `distance` over code points already split. */
  distanceOf(term: number[]): number {
    const q = this.query;
    const k = this.maxEdits;
    const m = q.length;
    const n = term.length;
    if (Math.abs(m - n) > k) return -1;
    const over = k + 1;
    // Rows of the table: prev2 (j − 2), prev (j − 1), row (j); column i is the query prefix length.
    let prev2 = new Array<number>(m + 1).fill(over);
    let prev = new Array<number>(m + 1);
    let row = new Array<number>(m + 1).fill(over);
    for (let i = 0; i <= m; i++) prev[i] = i <= k ? i : over;
    for (let j = 1; j <= n; j++) {
      const c = term[j - 1]!;
      const lo = Math.max(1, j - k);
      const hi = Math.min(m, j + k);
      row[0] = j <= k ? j : over;
      if (lo > 1) row[lo - 1] = over;
      let best = row[0];
      for (let i = lo; i <= hi; i++) {
        const cost = q[i - 1] === c ? 0 : 1;
        let d = Math.min(prev[i - 1]! + cost, prev[i]! + 1, row[i - 1]! + 1);
        if (
          this.transpositions &&
          i > 1 &&
          j > 1 &&
          q[i - 1] === term[j - 2] &&
          q[i - 2] === c &&
          prev2[i - 2]! + 1 < d
        )
          d = prev2[i - 2]! + 1;
        row[i] = d > over ? over : d;
        if (row[i]! < best) best = row[i]!;
      }
      if (hi < m) row[hi + 1] = over;
      if (best > k) return -1;
      [prev2, prev, row] = [prev, row, prev2];
      row.fill(over);
    }
    const d = prev[m]!;
    return d <= k ? d : -1;
  }
}

/** A string's Unicode code points (Lucene's automata run over code points, not UTF-16 units). */
export function codePoints(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.codePointAt(i)!;
    out.push(c);
    if (c > 0xffff) i += 1;
  }
  return out;
}
