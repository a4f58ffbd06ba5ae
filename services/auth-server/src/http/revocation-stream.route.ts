import express, { type Router } from 'express';
import { OAuthError } from '@acme/common';
import type { AuthContext } from '../domain/auth-context';
import type { RevocationMessage } from '../domain/revocation/revocation-feed';
import { parseBasicAuth } from './parse-params';
import type { FailureLimiter } from './rate-limit';
import type { ResourceServerAuth } from './resource-server-auth';

/**
 * GET /revocations/stream: Server-Sent Events (WHATWG HTML §9.2) telling a resource server, at once,
 * which access tokens were revoked on any instance, so it drops its cached introspection answers instead
 * of trusting them until their cache bound (issue 7). Authenticated exactly like /token_info (the same
 * passport Basic strategy, failures throttled the same way).
 * - `event: revocation`, `id:` increasing on this instance, `data:` {"jti":[…],"sub"?,"client_id"?,"reason"}
 *   with the jti values /token_info exposes;
 * - `event: resync`: events may have been missed (this instance's fan-out was down): clear everything;
 * - at most MAX_STREAMS_PER_RS open streams per resource server on an instance (then 429), and a
 *   subscriber that stops reading is cut off once its backlog passes MAX_BACKLOG_BYTES;
 * - the stream ends when the instance stops, so the subscriber reconnects (to another instance) at once;
 * - a comment line every REVOCATION_STREAM_HEARTBEAT_SECONDS keeps proxies from closing an idle stream
 *   and lets the subscriber notice a dead connection.
 * Nothing is replayed on reconnect (no Last-Event-ID): a subscriber clears its cache on every (re)connect.
 */
/** Open streams per resource server on one instance: enough for every replica of a resource server. */
const MAX_STREAMS_PER_RS = 32;
/** A subscriber that stops reading is cut off past this backlog; it reconnects and clears its cache. */
const MAX_BACKLOG_BYTES = 1 << 20;

export function revocationStreamRouter(
  ctx: AuthContext,
  limiter: FailureLimiter,
  rsAuth: ResourceServerAuth,
): Router {
  const router = express.Router();
  const heartbeatMs = ctx.config.REVOCATION_STREAM_HEARTBEAT_SECONDS * 1000;
  let lastId = 0;
  const open = new Map<string, number>();
  router.get('/revocations/stream', async (req, res) => {
    res.set('Cache-Control', 'no-store');
    const ip = req.ip ?? 'unknown';
    const rs = await rsAuth.authenticate(req).catch(async (error: unknown) => {
      if (error instanceof OAuthError && error.code === 'invalid_client') {
        const rsId = parseBasicAuth(req.headers.authorization)?.id;
        ctx.audit('resource_server_auth_failure', { ip, resource_server: rsId });
        await limiter.fail(ip);
      }
      throw error;
    });
    if (req.socket.destroyed) return; // hung up while we authenticated: 'close' has fired already
    const streams = open.get(rs.id) ?? 0;
    if (streams >= MAX_STREAMS_PER_RS)
      throw new OAuthError('too_many_requests', 'too many open revocation streams for this resource server', {
        'Retry-After': '30',
      });
    open.set(rs.id, streams + 1);
    res.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no', // reverse proxies must not buffer the stream
    });
    res.flushHeaders();
    req.socket.setNoDelay(true);
    req.socket.setTimeout(0);
    res.write(`retry: 2000\n: subscribed ${rs.id}\n\n`);
    const send = (message: RevocationMessage) => {
      if (res.writableLength > MAX_BACKLOG_BYTES) res.destroy();
      else if (message.type === 'shutdown') res.end();
      else if (message.type === 'resync') res.write(`id: ${++lastId}\nevent: resync\ndata: {}\n\n`);
      else res.write(`id: ${++lastId}\nevent: revocation\ndata: ${JSON.stringify(message.event)}\n\n`);
    };
    const unsubscribe = ctx.revocations.subscribe(send);
    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), heartbeatMs);
    heartbeat.unref();
    await new Promise<void>((resolve) => {
      res.once('close', resolve);
    });
    clearInterval(heartbeat);
    unsubscribe();
    const left = (open.get(rs.id) ?? 1) - 1;
    if (left > 0) open.set(rs.id, left);
    else open.delete(rs.id);
  });
  return router;
}
