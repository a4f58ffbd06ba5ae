import type { Request, Response } from 'express';
import type { Logger } from '@acme/common';
import { auditPageEvent, type PageAuditEvent } from './page-audit';

/** What a page step says when its throttle asks the browser to wait. */
export interface Throttled {
  /** The audit event; the line also carries `retryAfterSeconds`. */
  event: PageAuditEvent;
  /** The audit fields that name who was throttled (never the secret tried). */
  fields: Record<string, string | number | string[] | undefined>;
  /** Seconds until the throttle lets the next try through (> 0). */
  wait: number;
  /** The translated message the page shows. */
  error: string;
}

/**
 * The one answer every throttled sign-in or code step gives: an audit line, `Retry-After` in seconds
 * (RFC 9110 §10.2.3) and the step's own page with 429 (RFC 6585 §4), so the routes cannot drift apart
 * on what a throttled guess is told or logged.
 */
export function answerThrottled<T>(
  logger: Logger,
  req: Request,
  res: Response,
  { event, fields, wait, error }: Throttled,
  answer: (status: number, error: string) => T,
): T {
  auditPageEvent(logger, req, event, { ...fields, retryAfterSeconds: wait });
  res.set('Retry-After', String(wait));
  return answer(429, error);
}
