import type { IncomingMessage } from 'node:http';
import type { Express } from 'express';

/**
 * req.ip as express computes it (its getter, honouring the app's `trust proxy` setting), read from
 * node's request alone so a request answered by the front handler (front-handler.ts) keeps node's
 * prototype and still names the same address as the express path (throttling, allow-lists, the
 * address relayed to auth-server).
 */
export function clientIp(app: Express): (req: IncomingMessage) => string {
  let proto: object | null = app.request;
  let getter: (() => unknown) | undefined;
  while (proto && !getter) {
    getter = Object.getOwnPropertyDescriptor(proto, 'ip')?.get;
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  if (!getter) throw new Error('express request has no ip getter');
  const ip = getter;
  return (req) => {
    const view = { app, headers: req.headers, socket: req.socket, connection: req.socket };
    const value = ip.call(view);
    return typeof value === 'string' ? value : 'unknown';
  };
}
