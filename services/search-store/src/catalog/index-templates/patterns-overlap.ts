/**
 * Whether some index name matches a pattern of each list: ES intersects the two patterns' automata
 * (MetadataIndexTemplateService#findConflictingV2Templates). For `*`-only globs that is a walk over
 * the pairs of positions (memoised, so at most |a| × |b| steps per pair of patterns: index patterns
 * are at most a few hundred characters).
 */
export function patternListsOverlap(a: readonly string[], b: readonly string[]): boolean {
  return a.some((p) => b.some((q) => patternsOverlap(p, q)));
}

export function patternsOverlap(p: string, q: string): boolean {
  const n = p.length;
  const m = q.length;
  // seen[i * (m + 1) + j]: 0 unknown, 1 visited (no common word from here on).
  const seen = new Uint8Array((n + 1) * (m + 1));
  const stack: number[] = [0];
  while (stack.length > 0) {
    const state = stack.pop()!;
    if (seen[state]) continue;
    seen[state] = 1;
    const i = Math.floor(state / (m + 1));
    const j = state % (m + 1);
    if (i === n && j === m) return true;
    const pc = i < n ? p[i] : undefined;
    const qc = j < m ? q[j] : undefined;
    const next = (ni: number, nj: number) => stack.push(ni * (m + 1) + nj);
    // A star may produce nothing, or swallow what the other side produces next.
    if (pc === '*') {
      next(i + 1, j);
      if (j < m) next(i, j + 1);
    }
    if (qc === '*') {
      next(i, j + 1);
      if (i < n) next(i + 1, j);
    }
    if (pc !== undefined && qc !== undefined && pc !== '*' && qc !== '*' && pc === qc) next(i + 1, j + 1);
  }
  return false;
}
