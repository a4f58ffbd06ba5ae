import type { ErrorRequestHandler, Request } from 'express';
import { describeError, isOAuthError, type Logger } from '@acme/common';
import { renderError } from './views/error.view';
import type { PageChrome } from './views/layout.view';

/** An error shown to a person as an HTML page (never a redirect). */
export class PageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly code?: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(`${title}: ${detail}`);
    this.name = 'PageError';
  }
}

/** Renders PageErrors and 4xx OAuth errors as HTML; anything else is a 500 page without detail, and its
 *  cause is logged. */
export function pageErrorHandler(logger: Logger, chrome?: (req: Request) => PageChrome): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    let page: PageError;
    if (error instanceof PageError) page = error;
    // A typed protocol error from the flow (e.g. the client was deleted mid-interaction): show it, no redirect.
    else if (isOAuthError(error) && error.status < 500)
      page = new PageError(
        error.status,
        'This sign-in request cannot continue',
        error.description ?? 'The request was refused.',
        error.code,
      );
    else if (isBodyParserError(error))
      page = new PageError(400, 'Bad request', 'The form could not be read.', 'invalid_request');
    else {
      logger.error('unhandled error', { requestId: req.id, error: describeError(error) });
      page = new PageError(500, 'Something went wrong', 'Please try again later.', 'server_error');
    }
    if (res.headersSent) return;
    res
      .status(page.status)
      .set(page.headers)
      .type('html')
      .send(renderError({ title: page.title, message: page.detail, code: page.code, chrome: chrome?.(req) }));
  };
}

function isBodyParserError(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}
