import express, { type Request, type RequestHandler } from 'express';
import { parseJsonWithLocations } from '../query/json-locations';

/**
 * Reads the request body as text for the search APIs (GET with a body included, any JSON media type
 * the clients send), so DSL errors can carry line/col. A body another parser already read is used as is.
 */
export const readSearchBody: RequestHandler = express.text({ type: () => true, limit: '100mb' });

export function searchBodyOf(req: Request): unknown {
  const body: unknown = req.body;
  if (body === undefined || body === null) return undefined;
  if (Buffer.isBuffer(body)) return parseText(body.toString('utf8'));
  if (typeof body === 'string') return parseText(body);
  if (typeof body === 'object' && Object.keys(body).length === 0 && !req.headers['content-length'])
    return undefined;
  return body;
}

function parseText(text: string): unknown {
  return text.trim() === '' ? undefined : parseJsonWithLocations(text);
}

/** Query-string parameters as plain strings (the last one wins when repeated). */
export function queryParams(req: Request): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(req.query)) {
    out[key] = Array.isArray(value) ? String(value.at(-1)) : typeof value === 'string' ? value : undefined;
  }
  return out;
}
