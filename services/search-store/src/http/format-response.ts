import type { RequestHandler, Response } from 'express';
import { applyFilterPath } from './filter-path';
import { prettyJson } from './pretty-json';
import { stringifyWithRaw } from './raw-json';
import { isTruthyParam } from './query-params';

/**
 * Replaces `res.json` for this request so every JSON answer (errors included, since the error handler
 * calls `res.json` too) honours `?pretty`, `?filter_path` (success bodies only) and `?error_trace`, and carries
 * `application/json; charset=UTF-8` (what Elasticsearch answers to a plain JSON request).
 */
export function formatResponse(): RequestHandler {
  return (req, res, next) => {
    const pretty = isTruthyParam(req.query.pretty);
    const filterPath = typeof req.query.filter_path === 'string' ? req.query.filter_path : undefined;
    const errorTrace = isTruthyParam(req.query.error_trace);
    // Elasticsearch echoes X-Opaque-Id so callers can match responses and logs to requests.
    const opaqueId = req.headers['x-opaque-id'];
    if (typeof opaqueId === 'string') res.setHeader('X-Opaque-Id', opaqueId);
    res.json = (body: unknown) => {
      if (!pretty && filterPath === undefined && !errorTrace) {
        return sendText(res, 'application/json; charset=UTF-8', stringifyWithRaw(body));
      }
      // Re-printing: embedded raw sources become plain values first (RawJson#toJSON).
      let value = body === undefined ? undefined : (JSON.parse(JSON.stringify(body)) as unknown);
      if (errorTrace && isErrorBody(value)) value = withStackTrace(value);
      // Never on an error envelope (ES AbstractRestChannel#newErrorBuilder "disable filtering when
      // building error responses"): a 401 costs the anonymous caller's filter_path no work at all.
      if (filterPath !== undefined && !isErrorBody(value)) value = applyFilterPath(value, filterPath);
      return sendText(
        res,
        'application/json; charset=UTF-8',
        pretty ? prettyJson(value) : JSON.stringify(value),
      );
    };
    next();
  };
}

/**
 * Writes the body with exactly this Content-Type (express's send would lower-case `charset=UTF-8`,
 * which Elasticsearch spells in upper case). Node drops the body itself for HEAD.
 */
export function sendText(res: Response, contentType: string, text: string): Response {
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
  return res;
}

interface ErrorBody {
  error: Record<string, unknown>;
  status: number;
}

function isErrorBody(value: unknown): value is ErrorBody {
  const v = value as Partial<ErrorBody> | null;
  return typeof v === 'object' && v !== null && typeof v.status === 'number' && typeof v.error === 'object';
}

/**
 * `error_trace=true` makes Elasticsearch add `stack_trace` to the error. We have no Java frames to
 * show and never expose our own; the trace names the exception chain only.
 */
function withStackTrace(body: ErrorBody): ErrorBody {
  const chain: string[] = [];
  let cause: Record<string, unknown> | undefined = body.error;
  while (cause) {
    chain.push(`${String(cause.type)}: ${String(cause.reason)}`);
    cause = cause.caused_by as Record<string, unknown> | undefined;
  }
  return { ...body, error: { ...body.error, stack_trace: chain.join('\nCaused by: ') } };
}
