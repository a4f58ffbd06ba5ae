import type { RequestHandler } from 'express';
import { EsError } from '@acme/common';

/**
 * Parameters every REST handler accepts (ES `RestRequest` response params, `error_trace`, and the
 * request body given as `source` + `source_content_type`), read by `formatResponse`, the body reader
 * and the error handler rather than by the route.
 */
export const ALWAYS_ALLOWED_PARAMS: readonly string[] = [
  'pretty',
  'human',
  'error_trace',
  'filter_path',
  'format',
  'source',
  'source_content_type',
];

/**
 * Refuses URL parameters the route does not read, as Elasticsearch's `BaseRestHandler` does: 400
 * `illegal_argument_exception` "request [<path>] contains unrecognized parameter: [x] -> did you mean [y]?"
 * (a typo such as `refesh` is never silently ignored).
 */
export function checkParams(allowed: readonly string[]): RequestHandler {
  const candidates = [...new Set([...allowed, ...ALWAYS_ALLOWED_PARAMS])];
  const known = new Set(candidates);
  return (req, _res, next) => {
    const unknown = Object.keys(req.query as Record<string, unknown>)
      .filter((name) => !known.has(name))
      .sort();
    if (unknown.length === 0) {
      next();
      return;
    }
    next(new EsError('illegal_argument_exception', unrecognizedMessage(req.path, unknown, candidates)));
  };
}

export function unrecognizedMessage(path: string, unknown: string[], candidates: string[]): string {
  const parts = unknown.map((name) => {
    const scored = candidates
      .map((candidate) => ({ candidate, score: levenshteinSimilarity(name, candidate) }))
      .filter((s) => s.score > 0.5)
      .sort((a, b) => b.score - a.score || (a.candidate < b.candidate ? -1 : 1))
      .map((s) => s.candidate);
    if (scored.length === 0) return `[${name}]`;
    return `[${name}] -> did you mean ${scored.length === 1 ? `[${scored[0]}]` : `any of [${scored.join(', ')}]`}?`;
  });
  return `request [${path}] contains unrecognized parameter${unknown.length > 1 ? 's' : ''}: ${parts.join(', ')}`;
}

/** Lucene's `LevenshteinDistance.getDistance`: 1 − edits / the longer length (1 = equal). */
export function levenshteinSimilarity(a: string, b: string): number {
  const s = [...a];
  const t = [...b];
  if (s.length === 0 || t.length === 0) return s.length === t.length ? 1 : 0;
  let previous = Array.from({ length: s.length + 1 }, (_, i) => i);
  for (let j = 1; j <= t.length; j += 1) {
    const current = [j];
    for (let i = 1; i <= s.length; i += 1) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      current[i] = Math.min(current[i - 1]! + 1, previous[i]! + 1, previous[i - 1]! + cost);
    }
    previous = current;
  }
  return 1 - previous[s.length]! / Math.max(s.length, t.length);
}
