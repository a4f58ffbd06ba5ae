import { newDictionary, OAuthError, ownValue } from '@acme/common';
import type { Request } from 'express';

/** RFC 8707 §2 and RFC 8693 §2.1: `resource` and `audience` may be repeated; read them with listParam. */
const REPEATABLE = new Set(['resource', 'audience']);

/**
 * The request's parameters as single strings. A repeated parameter (the urlencoded parser makes it an
 * array) is refused: RFC 6749 §3.1 and §3.2, "parameters MUST NOT be included more than once"; a
 * repeated `resource` is left to listParam.
 */
export function parseParams(source: unknown): Record<string, string> {
  // Parameter names are the client's: without a prototype `__proto__=x` stays a parameter (and is then
  // ignored like any unknown one, RFC 6749 §3.1), and reads like `params.grant_type` are own reads.
  const params = newDictionary<string>();
  if (source === undefined || source === null) return params;
  if (typeof source !== 'object' || Array.isArray(source))
    throw new OAuthError('invalid_request', 'malformed request body');
  for (const [name, value] of Object.entries(source as Record<string, unknown>)) {
    if (Array.isArray(value) && REPEATABLE.has(name)) continue;
    if (Array.isArray(value)) throw new OAuthError('invalid_request', `duplicate parameter: ${name}`);
    if (typeof value !== 'string')
      throw new OAuthError('invalid_request', `parameter ${name} must be a string`);
    params[name] = value;
  }
  return params;
}

/** Every value of a repeatable parameter (RFC 8707 `resource`), in request order. */
export function listParam(source: unknown, name: string): string[] {
  if (source === null || typeof source !== 'object') return [];
  const value = ownValue(source as Record<string, unknown>, name);
  const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
  if (!values.every((item) => typeof item === 'string'))
    throw new OAuthError('invalid_request', `parameter ${name} must be a string`);
  return values as string[];
}

/**
 * The name of the first key repeated in the top-level object of a JSON text, if any. JSON.parse keeps
 * the last of duplicate keys silently; a repeated parameter is refused like in a form (RFC 6749 §3.2).
 */
export function findDuplicateJsonKey(text: string): string | undefined {
  const seen = new Set<string>();
  let depth = 0;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (ch === '{' || ch === '[') depth += 1;
    else if (ch === '}' || ch === ']') depth -= 1;
    else if (ch === '"') {
      const start = i;
      for (i += 1; i < text.length && text[i] !== '"'; i += 1) if (text[i] === '\\') i += 1;
      let next = i + 1;
      while (next < text.length && ' \t\n\r'.includes(text[next]!)) next += 1;
      if (depth !== 1 || text[next] !== ':') continue;
      let key: string;
      try {
        key = JSON.parse(text.slice(start, i + 1)) as string;
      } catch {
        return undefined; // malformed: JSON.parse of the whole body reports it
      }
      if (seen.has(key)) return key;
      seen.add(key);
    }
  }
  return undefined;
}

/** Body parameters of a form POST; anything but application/x-www-form-urlencoded is refused (RFC 6749 §3.2). */
export function parseFormBody(req: Request, allowJson = false): Record<string, string> {
  if (allowJson && req.is('application/json')) return parseParams(parseJsonBody(req.body));
  if (!req.is('application/x-www-form-urlencoded'))
    throw new OAuthError('invalid_request', 'body must be application/x-www-form-urlencoded');
  return parseParams(req.body);
}

/** A JSON body read as text (express.text), parsed with duplicate keys refused. */
function parseJsonBody(body: unknown): unknown {
  if (typeof body !== 'string') throw new OAuthError('invalid_request', 'malformed JSON body');
  const duplicate = findDuplicateJsonKey(body);
  if (duplicate !== undefined) throw new OAuthError('invalid_request', `duplicate parameter: ${duplicate}`);
  try {
    return JSON.parse(body);
  } catch {
    throw new OAuthError('invalid_request', 'malformed JSON body');
  }
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
