import express, { type Router } from 'express';
import { OAuthError } from '@acme/common';
import type { AuthContext } from '../domain/auth-context';
import type { RevocationMessage } from '../domain/revocation/revocation-feed';
import { parseBasicAuth } from './parse-params';
import type { FailureLimiter } from './rate-limit';
import { createResourceServerAuth } from './resource-server-auth';

/**
 * GET /revocations/stream: Server-Sent Events (WHATWG HTML §9.2) telling a resource server, at once,
 * which access tokens were revoked on any instance, so it drops its cached introspection answers instead
 * of trusting them until their cache bound (issue 7). Authenticated exactly like /token_info (the same
 * passport Basic strategy, failures throttled the same way).
 * - `event: revocation`, `id:` increasing on this instance, `data:` {"jti":[…],"sub"?,"client_id"?,"reason"}
 *   with the jti values /token_info exposes;
 * - `event: resync`: events may have been missed (this instance's fan-out was down): clear everything;
 * - the stream ends when the instance stops, so the subscriber reconnects (to another instance) at once;
 * - a comment line every REVOCATION_STREAM_HEARTBEAT_SECONDS keeps proxies from closing an idle stream
 *   and lets the subscriber notice a dead connection.
 * Nothing is replayed on reconnect (no Last-Event-ID): a subscriber clears its cache on every (re)connect.
 */
export function revocationStreamRouter(ctx: AuthContext, limiter: FailureLimiter): Router {
  const router = express.Router();
  const authenticate = createResourceServerAuth(ctx);
  const heartbeatMs = ctx.config.REVOCATION_STREAM_HEARTBEAT_SECONDS * 1000;
  let lastId = 0;
  router.get('/revocations/stream', async (req, res) => {
    res.set('Cache-Control', 'no-store');
    const ip = req.ip ?? 'unknown';
    const rsId = parseBasicAuth(req.headers.authorization)?.id;
    const keys = rsId ? [`ip:${ip}`, `rs:${rsId}`] : [`ip:${ip}`];
    limiter.check(...keys);
    const rs = await authenticate(req, res).catch(async (error: unknown) => {
      if (error instanceof OAuthError && error.code === 'invalid_client') {
        ctx.audit('resource_server_auth_failure', { ip, resource_server: rsId });
        await limiter.fail(...keys);
      }
      throw error;
    });
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
      if (message.type === 'shutdown') res.end();
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
  });
  return router;
}
