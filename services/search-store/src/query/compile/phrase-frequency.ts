/**
 * Phrase frequency in one document, given each phrase term's positions and its offset in the phrase.
 * slop 0: Lucene's ExactPhraseMatcher (count of aligned starts). slop > 0: SloppyPhraseMatcher's
 * sloppy frequency Σ 1/(1 + matchLength) over matches whose span of normalised positions is ≤ slop.
 */
export function phraseFrequency(positions: number[][], offsets: number[], slop: number): number {
  if (slop === 0) return exactFrequency(positions, offsets);
  return sloppyFrequency(positions, offsets, slop);
}

function exactFrequency(positions: number[][], offsets: number[]): number {
  const sets = positions.map((p) => new Set(p));
  let freq = 0;
  for (const start of positions[0]!) {
    const base = start - offsets[0]!;
    if (offsets.every((offset, i) => sets[i]!.has(base + offset))) freq += 1;
  }
  return freq;
}

function sloppyFrequency(positions: number[][], offsets: number[], slop: number): number {
  // Normalised positions: position − offset, so an exact phrase has all terms on the same value.
  const lists = positions.map((p, i) => [...p].sort((a, b) => a - b).map((pos) => pos - offsets[i]!));
  const cursor = lists.map(() => 0);
  let freq = 0;
  for (;;) {
    let min = Infinity;
    let max = -Infinity;
    let minList = -1;
    for (let i = 0; i < lists.length; i++) {
      const value = lists[i]![cursor[i]!];
      if (value === undefined) return freq;
      if (value < min) {
        min = value;
        minList = i;
      }
      if (value > max) max = value;
    }
    const matchLength = max - min;
    if (matchLength <= slop) freq = Math.fround(freq + Math.fround(1 / (1 + matchLength)));
    cursor[minList]! += 1;
  }
}
