import type { IncomingMessage } from 'node:http';
import { BlockList, isIPv6 } from 'node:net';
import express, { type Router } from 'express';
import { OAuthError, type IntrospectionResponse } from '@acme/common';
import type { AuthContext } from '../domain/auth-context';
import type { ResourceServer } from '../domain/clients/resource-server';
import { introspectToken } from '../domain/introspection/introspect-token';
import { signIntrospectionResponse } from '../domain/introspection/sign-introspection-response';
import { verifyResourceServerAssertion } from '../domain/introspection/verify-resource-server-assertion';
import {
  JWT_BEARER_ASSERTION_TYPE,
  type ClientAssertionDeps,
} from '../domain/clients/verify-client-assertion';
import { JWT_INTROSPECTION_TYPE, wantsJwtIntrospection } from './introspection-media-type';
import { parseBasicAuth, parseFormBody } from './parse-params';
import type { FailureLimiter } from './rate-limit';
import { RS_REALM, type ResourceServerAuth } from './resource-server-auth';

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

/** The same steps answering with a signed JWT (RFC 9701) instead of the JSON object. */
export type JwtIntrospectionHandler = (
  req: IncomingMessage,
  ip: string,
  readParams: () => Record<string, string>,
) => Promise<string>;

export interface IntrospectionHandlers {
  json: IntrospectionHandler;
  jwt: JwtIntrospectionHandler;
}

/**
 * Failed authentications are throttled per source address (429 + Retry-After), never per id.
 * INTROSPECTION_ALLOW_CIDRS narrows who may call at all; Basic stays required either way. The JSON
 * handler is the hot path: its steps are plain functions returning promises, so it awaits no more than
 * before the JWT handler shared them.
 */
export function createIntrospectionHandlers(
  ctx: AuthContext,
  limiter: FailureLimiter,
  rsAuth: ResourceServerAuth,
  assertions: ClientAssertionDeps,
): IntrospectionHandlers {
  const allowed = buildAllowList(ctx.config.INTROSPECTION_ALLOW_CIDRS);
  const unauthorized = new OAuthError('invalid_client', 'resource server authentication failed', {
    'WWW-Authenticate': `Basic realm="${RS_REALM}", charset="UTF-8"`,
  });
  /** private_key_jwt (RFC 7523 §2.2); a failure counts against its source as a wrong secret does. */
  const byAssertion = async (params: Record<string, string>, ip: string): Promise<ResourceServer> => {
    const result =
      params.client_assertion_type === JWT_BEARER_ASSERTION_TYPE && params.client_assertion
        ? await verifyResourceServerAssertion(ctx, assertions, params.client_assertion)
        : { failure: 'malformed' as const, rsId: undefined };
    // RFC 7521 §4.2: a client_id sent alongside must name the assertion's issuer.
    if ('rs' in result && (params.client_id === undefined || params.client_id === result.rs.id))
      return result.rs;
    const [rsId, reason] =
      'rs' in result ? [result.rs.id, 'client_id_mismatch'] : [result.rsId, result.failure];
    ctx.audit('resource_server_auth_failure', { ip, resource_server: rsId, reason });
    await limiter.fail(ip);
    throw unauthorized;
  };
  const authenticate = (
    req: IncomingMessage,
    ip: string,
    readParams: () => Record<string, string>,
  ): Promise<ResourceServer> => {
    if (allowed && !isAllowed(allowed, ip))
      throw new OAuthError('access_denied', 'introspection is not allowed from this address');
    // Without an Authorization header the body may carry an assertion; anything else is Basic (or a 401).
    if (req.headers.authorization === undefined) {
      const params = paramsOrUndefined(readParams);
      if (params && (params.client_assertion !== undefined || params.client_assertion_type !== undefined))
        return byAssertion(params, ip);
    }
    // Checked before any counter: the right credentials always pass (rate-limit.ts).
    return rsAuth.authenticate(req).catch(async (error: unknown) => {
      if (error instanceof OAuthError && error.code === 'invalid_client') {
        const rsId = parseBasicAuth(req.headers.authorization)?.id;
        ctx.audit('resource_server_auth_failure', { ip, resource_server: rsId });
        await limiter.fail(ip);
      }
      throw error;
    });
  };
  const lookup = (rs: ResourceServer, readParams: () => Record<string, string>, req: IncomingMessage) => {
    const params = readParams();
    if (
      req.headers.authorization !== undefined &&
      (params.client_assertion !== undefined || params.client_assertion_type !== undefined)
    )
      throw new OAuthError('invalid_request', 'use exactly one client authentication method');
    if (!params.token) throw new OAuthError('invalid_request', 'token is required');
    // token_type_hint is only a hint (RFC 7662 §2.1): every kind is looked up by the same hash.
    return introspectToken(ctx, params.token, rs);
  };
  return {
    json: async (req, ip, readParams) => lookup(await authenticate(req, ip, readParams), readParams, req),
    jwt: async (req, ip, readParams) => {
      const rs = await authenticate(req, ip, readParams);
      return signIntrospectionResponse(ctx, rs, await lookup(rs, readParams, req));
    },
  };
}

/**
 * POST /token_info (RFC 7662) for resource servers: Basic credentials, form or JSON body, no-store;
 * a signed JWT instead of the JSON object when the Accept header asks for one (RFC 9701 §4).
 * The lean path answers the usual small form posts before express; this route takes the rest
 * (JSON bodies, chunked or compressed bodies, other charsets, oversized bodies).
 */
export function introspectionRouter(handle: IntrospectionHandlers): Router {
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
      const readParams = () => parseFormBody(req, true);
      if (!wantsJwtIntrospection(req.headers.accept))
        return void res.json(await handle.json(req, req.ip ?? 'unknown', readParams));
      // RFC 9701 §5: the JWT is the whole body, of exactly this type (res.send would add a charset).
      const body = await handle.jwt(req, req.ip ?? 'unknown', readParams);
      res.writeHead(200, {
        'Content-Type': JWT_INTROSPECTION_TYPE,
        'Content-Length': Buffer.byteLength(body),
      });
      res.end(body);
    },
  );
  return router;
}

/** The parameters, or undefined when they cannot be read (duplicates): then Basic decides, as before. */
function paramsOrUndefined(readParams: () => Record<string, string>): Record<string, string> | undefined {
  try {
    return readParams();
  } catch {
    return undefined;
  }
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
