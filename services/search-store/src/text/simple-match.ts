/**
 * Elasticsearch's `Regex.simpleMatch`: `*` matches any run of characters (none, dots and line breaks
 * included); every other character matches itself. Used wherever a request names things with
 * wildcards: index expressions, aliases, `_source`/`fields` paths, `filter_path`, `_cat` columns,
 * setting names.
 *
 * Why not a RegExp: `^a.*.*.*…z$` backtracks exponentially in V8 on a near miss, so one request
 * with a few dozen stars froze the event loop for seconds (issue 17). This is the two-pointer greedy
 * match: on a mismatch, go back to the last `*` and let it swallow one more character. Earlier stars
 * never need revisiting (the last star can absorb anything they could), so the work is at most
 * pattern length × text length, with no allocation. Runs of `*` count as one.
 */
const STAR = 0x2a;

export function simpleMatch(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  /** Where the pattern resumes after the last star seen, and the text position that star started at. */
  let afterStar = -1;
  let starText = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern.charCodeAt(p) === STAR) {
      while (p < pattern.length && pattern.charCodeAt(p) === STAR) p += 1;
      afterStar = p;
      starText = t;
    } else if (p < pattern.length && pattern.charCodeAt(p) === text.charCodeAt(t)) {
      p += 1;
      t += 1;
    } else if (afterStar !== -1) {
      starText += 1;
      p = afterStar;
      t = starText;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern.charCodeAt(p) === STAR) p += 1;
  return p === pattern.length;
}

/** `simpleMatch` with the pattern fixed, and the common shapes (no star, only stars) answered without a scan. */
export function simpleMatcher(pattern: string): (text: string) => boolean {
  if (!pattern.includes('*')) return (text) => text === pattern;
  if (/^\*+$/.test(pattern)) return () => true;
  return (text) => simpleMatch(pattern, text);
}
