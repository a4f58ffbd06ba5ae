import { newDictionary } from '@acme/common';
import type { Request, Response } from 'express';
import type { JsonBodyLocals } from '../http/read-body';
import { parseJsonWithLocations } from '../query/parse/json-locations';

/**
 * The search body, parsed again from the raw text the body reader kept (res.locals.rawBody) so that
 * query DSL errors carry Elasticsearch's line/col; the reader has already rejected malformed JSON.
 */
export function searchBodyOf(req: Request, res: Response): unknown {
  const raw = (res.locals as JsonBodyLocals).rawBody;
  if (typeof raw === 'string' && raw.trim() !== '') return parseJsonWithLocations(raw);
  const body: unknown = req.body;
  return body === null ? undefined : body;
}

/** Query-string parameters as plain strings (the last one wins when repeated). */
export function queryParams(req: Request): Record<string, string | undefined> {
  // Null prototype: a `?constructor=` or `?__proto__=` parameter is a key, and reads like
  // `params.size` never reach an inherited member (issue 17).
  const out = newDictionary<string | undefined>();
  for (const [key, value] of Object.entries(req.query)) {
    out[key] = Array.isArray(value) ? String(value.at(-1)) : typeof value === 'string' ? value : undefined;
  }
  return out;
}
