import type { IncomingMessage } from 'node:http';
import { BlockList, isIPv6 } from 'node:net';
import express, { type Router } from 'express';
import { OAuthError, type IntrospectionResponse } from '@acme/common';
import type { AuthContext } from '../domain/auth-context';
import { introspectToken } from '../domain/introspection/introspect-token';
import { parseBasicAuth, parseFormBody } from './parse-params';
import type { FailureLimiter } from './rate-limit';
import type { ResourceServerAuth } from './resource-server-auth';

/** Headers of every /token_info answer, errors included (RFC 7662 §2.2 refers to RFC 6749 §5.1). */
export const INTROSPECTION_HEADERS = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

/**
 * Everything of POST /token_info after the body is read: allow-list, throttle, Basic credentials,
 * parameters (read only once the caller is authenticated), lookup. The express route and the lean
 * path in front of express (introspection-fast-path.ts) share it, so both answer alike.
 */
export type IntrospectionHandler = (
  req: IncomingMessage,
  /** The caller's address (req.ip: the socket's, or the forwarded one under TRUST_PROXY). */
  ip: string,
  readParams: () => Record<string, string>,
) => Promise<IntrospectionResponse>;

/**
 * Failed authentications are throttled per source address (429 + Retry-After), never per id.
 * INTROSPECTION_ALLOW_CIDRS narrows who may call at all; Basic stays required either way.
 */
export function createIntrospectionHandler(
  ctx: AuthContext,
  limiter: FailureLimiter,
  rsAuth: ResourceServerAuth,
): IntrospectionHandler {
  const allowed = buildAllowList(ctx.config.INTROSPECTION_ALLOW_CIDRS);
  return async (req, ip, readParams) => {
    if (allowed && !isAllowed(allowed, ip))
      throw new OAuthError('access_denied', 'introspection is not allowed from this address');
    // Checked before any counter: the right credentials always pass (rate-limit.ts).
    const rs = await rsAuth.authenticate(req).catch(async (error: unknown) => {
      if (error instanceof OAuthError && error.code === 'invalid_client') {
        const rsId = parseBasicAuth(req.headers.authorization)?.id;
        ctx.audit('resource_server_auth_failure', { ip, resource_server: rsId });
        await limiter.fail(ip);
      }
      throw error;
    });
    const params = readParams();
    if (!params.token) throw new OAuthError('invalid_request', 'token is required');
    // token_type_hint is only a hint (RFC 7662 §2.1): every kind is looked up by the same hash.
    return introspectToken(ctx, params.token, rs);
  };
}

/**
 * POST /token_info (RFC 7662) for resource servers: Basic credentials, form or JSON body, no-store.
 * The lean path answers the usual small form posts before express; this route takes the rest
 * (JSON bodies, chunked or compressed bodies, other charsets, oversized bodies).
 */
export function introspectionRouter(handle: IntrospectionHandler): Router {
  const router = express.Router();
  router.post(
    '/token_info',
    // Before the body parsers: their errors (413, a bad charset) carry the headers too.
    (_req, res, next) => {
      res.set(INTROSPECTION_HEADERS);
      next();
    },
    express.urlencoded({ extended: false, limit: '16kb' }),
    // Read as text so duplicate keys can be refused before JSON.parse drops them (parseFormBody).
    express.text({ type: 'application/json', limit: '16kb' }),
    async (req, res) => {
      res.json(await handle(req, req.ip ?? 'unknown', () => parseFormBody(req, true)));
    },
  );
  return router;
}

function buildAllowList(cidrs: string[] | undefined): BlockList | undefined {
  if (!cidrs?.length) return undefined;
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [net = '', bits] = cidr.split('/');
    const type = isIPv6(net) ? 'ipv6' : 'ipv4';
    list.addSubnet(net, Number(bits ?? (type === 'ipv6' ? 128 : 32)), type);
  }
  return list;
}

function isAllowed(list: BlockList, address: string): boolean {
  const ip = address.replace(/^::ffff:/, '');
  return list.check(ip, isIPv6(ip) ? 'ipv6' : 'ipv4');
}
