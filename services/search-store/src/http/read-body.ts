import type { Request, RequestHandler } from 'express';
import { EsError } from '@acme/common';
import { parseMediaType } from './media-type';
import { parseJsonText } from './parse-json-text';

/** The raw JSON text of the request, kept to report `[line:col]` of document errors. */
export interface JsonBodyLocals {
  rawBody?: string;
  /** Armed by readJsonBody, run by readArmedBody once the route's scope check passed. */
  readBody?: () => Promise<void>;
}

export function tooLarge(limit: number): EsError {
  return new EsError(
    'content_too_long_exception',
    `request body is too large; the limit is [${limit}] bytes`,
    {
      status: 413,
    },
  );
}

/**
 * Arms the reading of a JSON body (GET bodies too, as Elasticsearch accepts them) up to `maxBytes`
 * (413 beyond); the route reads it after its scope check (readArmedBody, http/scoped-router.ts), so
 * a caller without credentials or without the route's scope never makes us read or parse a byte,
 * and the answer is the same 401/403 on the front path (api/lean-search.ts). A path no route serves
 * is not read either (no handler found, as Elasticsearch's RestController answers before any body).
 * NDJSON bodies (`_bulk`) are left on the stream for their route to read line by line.
 */
export function readJsonBody(maxBytes: number): RequestHandler {
  return (req, res, next) => {
    (res.locals as JsonBodyLocals).readBody = () => readInto(req, res.locals as JsonBodyLocals, maxBytes);
    next();
  };
}

/** The route step after the scope guard: reads the body readJsonBody armed, once. */
export const readArmedBody: RequestHandler = async (_req, res, next) => {
  const locals = res.locals as JsonBodyLocals;
  const read = locals.readBody;
  locals.readBody = undefined;
  if (read) await read();
  next();
};

async function readInto(req: Request, locals: JsonBodyLocals, maxBytes: number): Promise<void> {
  // The Content-Type only matters when there is a body (ES ignores it on bodyless requests).
  const hasBody =
    Number(req.headers['content-length'] ?? '0') > 0 || req.headers['transfer-encoding'] !== undefined;
  const kind = hasBody ? parseMediaType(req.headers['content-type']) : undefined;
  if (kind === 'ndjson' || /\/_(bulk|msearch)$/.test(req.path)) return;
  checkDeclaredLength(req, maxBytes);
  let text = await readText(req, maxBytes);
  req.body = undefined;
  // ES accepts the body in `?source=` (with `source_content_type`) for clients that cannot send GET bodies.
  if (text.trim() === '' && typeof req.query.source === 'string') {
    if (parseMediaType(String(req.query.source_content_type ?? '')) !== 'json') {
      throw new EsError(
        'illegal_argument_exception',
        'source and source_content_type parameters are required',
      );
    }
    text = req.query.source;
  }
  if (text.trim() === '') return;
  locals.rawBody = text;
  req.body = parseJsonText(text);
}

/** A Content-Length over the limit is refused before a byte is read (ES http.max_content_length). */
export function checkDeclaredLength(req: Request, maxBytes: number): void {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > maxBytes) throw tooLarge(maxBytes);
}

async function readText(req: Request, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      req.resume();
      throw tooLarge(maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The JSON body as an object, or `{}` when absent; anything else is a parse error. */
export function bodyObject(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new EsError('x_content_parse_exception', '[1:1] request body must be a JSON object');
  }
  return body as Record<string, unknown>;
}
