import { OAuthError } from '@acme/common';
import type { Request } from 'express';

/**
 * The request's parameters as single strings. A repeated parameter (the urlencoded parser makes it an
 * array) is refused: RFC 6749 §3.1 and §3.2, "parameters MUST NOT be included more than once".
 */
export function parseParams(source: unknown): Record<string, string> {
  const params: Record<string, string> = {};
  if (source === undefined || source === null) return params;
  if (typeof source !== 'object' || Array.isArray(source))
    throw new OAuthError('invalid_request', 'malformed request body');
  for (const [name, value] of Object.entries(source as Record<string, unknown>)) {
    if (Array.isArray(value)) throw new OAuthError('invalid_request', `duplicate parameter: ${name}`);
    if (typeof value !== 'string')
      throw new OAuthError('invalid_request', `parameter ${name} must be a string`);
    params[name] = value;
  }
  return params;
}

/** Body parameters of a form POST; anything but application/x-www-form-urlencoded is refused (RFC 6749 §3.2). */
export function parseFormBody(req: Request, allowJson = false): Record<string, string> {
  if (!req.is('application/x-www-form-urlencoded') && !(allowJson && req.is('application/json')))
    throw new OAuthError('invalid_request', 'body must be application/x-www-form-urlencoded');
  return parseParams(req.body);
}

/**
 * HTTP Basic credentials, with the id and secret form-url-decoded as RFC 6749 §2.3.1 requires.
 * undefined when no Basic header is present; invalid_client when it is malformed.
 */
export function parseBasicAuth(header: string | undefined): { id: string; secret: string } | undefined {
  if (!header || !/^basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    const id = formDecode(decoded.slice(0, colon));
    const secret = formDecode(decoded.slice(colon + 1));
    // No stored id or secret contains NUL, and Postgres text cannot hold one: an unknown client, not a 500.
    if (id.includes('\u0000') || secret.includes('\u0000')) return undefined;
    return { id, secret };
  } catch {
    return undefined;
  }
}

export function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}
