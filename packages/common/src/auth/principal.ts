import type { ActiveIntrospection } from '../schemas/introspection.schema';

/**
 * Who a verified access token speaks for, as the resource server sees it. Built from an RFC 7662
 * introspection answer or from RFC 9068 JWT claims; scopes are the space-separated `scope` split once.
 */
export interface Principal {
  /** `sub`: the user, or the client itself for a client_credentials token. */
  subject?: string;
  clientId?: string;
  username?: string;
  scopes: readonly string[];
  /** Seconds since the epoch (`exp`). */
  expiresAt?: number;
  audience: readonly string[];
  source: 'introspection' | 'jwt';
  /** RFC 9449 §6: `cnf.jkt` of a DPoP-bound token; the request must prove that key. */
  dpopJkt?: string;
}

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by the bearer middleware once the token is verified. */
    principal?: Principal;
  }
}

/** RFC 6749 §3.3: scope is a space-delimited list; empty items are ignored. */
export function parseScope(scope: string | undefined): string[] {
  return scope ? scope.split(' ').filter(Boolean) : [];
}

export function hasScope(principal: Principal, scope: string): boolean {
  return principal.scopes.includes(scope);
}

/** The name shown in errors and logs: username, else client id, else subject. */
export function principalName(principal: Principal): string {
  return principal.username ?? principal.clientId ?? principal.subject ?? 'unknown';
}

/** RFC 7662 §2.2 claims → Principal. */
export function principalFromIntrospection(answer: ActiveIntrospection): Principal {
  const principal: Principal = {
    scopes: parseScope(answer.scope),
    audience: answer.aud === undefined ? [] : Array.isArray(answer.aud) ? answer.aud : [answer.aud],
    source: 'introspection',
  };
  if (answer.sub !== undefined) principal.subject = answer.sub;
  if (answer.client_id !== undefined) principal.clientId = answer.client_id;
  if (answer.username !== undefined) principal.username = answer.username;
  if (answer.exp !== undefined) principal.expiresAt = answer.exp;
  if (answer.cnf?.jkt !== undefined) principal.dpopJkt = answer.cnf.jkt;
  return principal;
}
