import type { ErrorRequestHandler } from 'express';
import { EsError, isEsError } from '../errors/es-error';
import { OAuthError, isOAuthError } from '../errors/oauth-error';
import type { Logger } from '../logging/create-logger';
import { isStatementCancelled } from '../storage/statement-cancelled';
import { isStorageUnavailable, isUnstorableInput } from './storage-unavailable';

/** Body-parser errors carry `type`/`status`; they are the client's fault, not ours. */
interface HttpishError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
}

function clientStatus(error: unknown): number | undefined {
  const e = error as HttpishError | null;
  const status = e?.status ?? e?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

/**
 * The last handler of auth-server: typed OAuth errors go out as `{error, error_description}` with their
 * status and headers; client errors from body parsing become invalid_request; anything else is a 500
 * `server_error` without a stack, and its cause is logged. An unreachable database is a 503
 * temporarily_unavailable (RFC 6749 §4.1.2.1), which a client may retry.
 */
export function oauthErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    let oauth: OAuthError;
    if (isOAuthError(error)) oauth = error;
    else if (clientStatus(error) === 413) oauth = new OAuthError('invalid_request', 'request body too large');
    else if (clientStatus(error)) oauth = new OAuthError('invalid_request', 'malformed request body');
    else if (isUnstorableInput(error))
      oauth = new OAuthError('invalid_request', 'request contains unsupported characters');
    else if (isStorageUnavailable(error) || isStatementCancelled(error)) {
      // A statement past PG_STATEMENT_TIMEOUT_MS means an overloaded or locked database here: retryable.
      logger.warn('storage unavailable', { requestId: req.id, error: describeError(error) });
      oauth = new OAuthError(
        'temporarily_unavailable',
        'the server is temporarily unable to handle the request',
        {
          'Retry-After': '1',
        },
      );
    } else {
      logger.error('unhandled error', { requestId: req.id, error: describeError(error) });
      oauth = new OAuthError('server_error', 'internal error');
    }
    if (res.headersSent) return;
    res.status(oauth.status).set(oauth.headers).set('Cache-Control', 'no-store').json(oauth.toBody());
  };
}

/**
 * The last handler of search-store: typed ES errors go out in Elasticsearch's envelope; anything
 * untyped is a 500 `exception` without a stack, and its cause is logged. An unreachable database is a
 * 503 cluster_block_exception, as Elasticsearch answers before its cluster state is recovered.
 */
export function esErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    let es: EsError;
    if (isEsError(error)) es = error;
    else if (clientStatus(error) === 413)
      es = new EsError('content_too_long_exception', 'request body is too large', { status: 413 });
    else if (clientStatus(error)) {
      es = new EsError('x_content_parse_exception', 'failed to parse request body');
    } else if (isUnstorableInput(error)) {
      es = new EsError(
        'illegal_argument_exception',
        'request contains characters that cannot be stored (U+0000)',
      );
    } else if (isStatementCancelled(error)) {
      // A statement past PG_STATEMENT_TIMEOUT_MS: Elasticsearch's answer to a search past its time budget
      // (SearchTimeoutException, 429). Not 503: clients retry that at once, and the same work again.
      logger.warn('statement cancelled', { requestId: req.id, error: describeError(error) });
      es = new EsError('search_timeout_exception', 'Time exceeded');
    } else if (isStorageUnavailable(error)) {
      // What Elasticsearch answers while its cluster state is not recovered: a retryable 503.
      logger.warn('storage unavailable', { requestId: req.id, error: describeError(error) });
      es = new EsError(
        'cluster_block_exception',
        'blocked by: [SERVICE_UNAVAILABLE/1/state not recovered / initialized];',
        { status: 503, headers: { 'Retry-After': '1' } },
      );
    } else {
      logger.error('unhandled error', { requestId: req.id, error: describeError(error) });
      es = new EsError('exception', 'internal error');
    }
    if (res.headersSent) return;
    res.status(es.status).set(es.headers).json(es.toBody());
  };
}

/** Name, message and the first stack frames: enough to find the cause, never request data. */
export function describeError(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    return {
      name: error.name,
      message: error.message,
      stack: error.stack?.split('\n').slice(0, 6).join('\n'),
    };
  }
  return { value: String(error) };
}
