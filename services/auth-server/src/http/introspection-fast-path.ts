import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';
import { clientIp, frontRoute, type AnyFrontRoute } from '@acme/common';
import { INTROSPECTION_HEADERS, type IntrospectionHandler } from './introspection.route';
import { wantsJwtIntrospection } from './introspection-media-type';
import { parseParams } from './parse-params';

/** body-parser's limits on the express route: 16 kB, 1000 parameters. */
const BODY_LIMIT = 16 * 1024;
const PARAMETER_LIMIT = 1000;
const FORM = /^application\/x-www-form-urlencoded[ \t]*(?:;[ \t]*charset=(?:utf-8|"utf-8")[ \t]*)?$/i;

/**
 * POST /token_info in front of express (issue 4: the hot path of every resource-server call), a
 * front route of @acme/common's frontHandler (issue 19). Profiles of the route under load were
 * express machinery, not the lookup: the app-wide stack, raw-body streams, type-is, qs,
 * res.json/res.send, and above all express's Object.setPrototypeOf(req/res, express's prototypes)
 * on node's request and response objects, which alone cost more per request than a whole plain
 * node:http answer (~45 us against ~20 us here). This route takes the usual request (a urlencoded
 * utf-8 body of known length <= 16 kB, no encoding, no query) on node's own objects with the same
 * steps as the express route, in the same order: the prelude (request id, access line, metrics under
 * /token_info) in frontHandler, the body read and parsed as body-parser does, then
 * IntrospectionHandler (allow-list, throttle, Basic check, duplicate parameters refused) with req.ip
 * as express computes it. An error goes to the app's OAuth error handler, which writes the same
 * envelope. Anything else goes to the express route (JSON, chunked, compressed, other charsets, over
 * the limit).
 */
export function introspectionFrontRoute(
  app: Express,
  deps: {
    handle: IntrospectionHandler;
    /** The signing keys are loaded (JWT access tokens are verified with them). */
    ready: () => Promise<void>;
  },
): AnyFrontRoute {
  const { handle } = deps;
  const ipOf = clientIp(app);
  return frontRoute({
    match: (req) => (isLeanIntrospection(req) ? true : undefined),
    route: () => '/token_info',
    async serve(req, res) {
      // On errors too, as the express route sets them before its body parsers.
      for (const [name, value] of Object.entries(INTROSPECTION_HEADERS)) res.setHeader(name, value);
      const form = parseForm(await readBody(req, Number(req.headers['content-length'])));
      await deps.ready();
      answer(res, await handle(req, ipOf(req), () => parseParams(form)));
    },
  });
}

/**
 * POST /token_info with a urlencoded utf-8 body of known length <= 16 kB, no content encoding, that
 * wants JSON: a resource server asking for a JWT (RFC 9701) takes the express route, so the JSON
 * answer pays only the Accept check (wantsJwtIntrospection).
 */
function isLeanIntrospection(req: IncomingMessage): boolean {
  if (req.method !== 'POST' || req.url !== '/token_info') return false;
  const { headers } = req;
  if (wantsJwtIntrospection(headers.accept)) return false;
  const type = headers['content-type'];
  const length = headers['content-length'];
  if (type === undefined || length === undefined || !FORM.test(type)) return false;
  if (headers['transfer-encoding'] !== undefined) return false;
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  const bytes = Number(length);
  return Number.isInteger(bytes) && bytes >= 0 && bytes <= BODY_LIMIT;
}

/** The introspection headers are already set (serve), on errors too. */
function answer(res: ServerResponse, result: unknown): void {
  const body = JSON.stringify(result);
  res.writeHead(200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** The body as utf-8; a size that differs from Content-Length or an aborted upload is a 400, as raw-body says. */
function readBody(req: IncomingMessage, length: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const fail = (message: string) => reject(Object.assign(new Error(message), { status: 400 }));
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (received !== length) return fail('request size did not match content length');
      resolve((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8'));
    });
    req.on('aborted', () => fail('request aborted'));
    req.on('error', reject);
  });
}

/**
 * application/x-www-form-urlencoded as body-parser's `extended: false` reads it (qs with depth 0):
 * flat keys, `+` is a space, undecodable percent sequences kept as sent, a repeated key becomes an
 * array (parseParams then refuses it), empty keys and __proto__ dropped, more than 1000 parameters a 413.
 */
export function parseForm(text: string): Record<string, string | string[]> {
  const form: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  if (text === '') return form;
  const parts = text.split('&');
  if (parts.length > PARAMETER_LIMIT) throw Object.assign(new Error('too many parameters'), { status: 413 });
  for (const part of parts) {
    if (part === '') continue;
    const bracketEquals = part.indexOf(']=');
    const eq = bracketEquals < 0 ? part.indexOf('=') : bracketEquals + 1;
    const key = decode(eq < 0 ? part : part.slice(0, eq));
    if (key === '' || key === '__proto__') continue;
    const value = eq < 0 ? '' : decode(part.slice(eq + 1));
    const previous = form[key];
    form[key] = previous === undefined ? value : [previous, value].flat();
  }
  return form;
}

function decode(value: string): string {
  const spaced = value.includes('+') ? value.replace(/\+/g, ' ') : value;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}
