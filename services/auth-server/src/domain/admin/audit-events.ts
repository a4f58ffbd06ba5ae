import type { AuthContext } from '../auth-context';
import { actorLabel, type AdminActor } from './admin-actor';

export type AdminAction =
  | 'client.create'
  | 'client.update'
  | 'client.secret_rotate'
  | 'client.delete'
  | 'resource_server.create'
  | 'resource_server.secret_rotate'
  | 'resource_server.delete'
  | 'user.create'
  | 'user.disable'
  | 'user.enable'
  | 'user.role_grant'
  | 'user.role_revoke'
  | 'user.mfa_reset'
  | 'grants.revoke'
  | 'session.end'
  | 'signing_key.rotate'
  | 'initial_access_token.create'
  | 'console.sign_in'
  | 'console.sign_out';

export type AuditTargetType =
  | 'client'
  | 'resource_server'
  | 'user'
  | 'grant'
  | 'session'
  | 'signing_key'
  | 'initial_access_token'
  | 'console';

export interface AuditEvent {
  id: string;
  at: Date;
  actor: string;
  actorUserId: string | null;
  action: AdminAction;
  targetType: AuditTargetType;
  targetId: string | null;
  details: Record<string, unknown>;
  sourceIp: string | null;
}

/** Where the page of events starts: strictly older than this (at, id), newest first. */
export interface AuditCursor {
  at: Date;
  id: string;
}

/** Implemented by storage/audit-events.repo.ts (table audit_events, migration 0019). */
export interface AuditEventsRepo {
  insert(event: Omit<AuditEvent, 'id' | 'at'>): Promise<void>;
  /** Newest first; `limit` is bounded by the caller (listAuditEvents). */
  list(query: { limit: number; before?: AuditCursor }): Promise<AuditEvent[]>;
}

/** Largest page of events anyone can ask for. */
export const MAX_AUDIT_PAGE = 100;

/** Keys never written to `details`, whatever a caller passes (defence in depth: callers pass ids and names). */
const SECRET_KEY = /secret|password|hash|(^|_)token$/i;

function withoutSecrets(details: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(details).filter(([key]) => !SECRET_KEY.test(key)));
}

/**
 * The one recorder of admin actions: every domain function of domain/admin/ calls it, so the console and
 * the JSON API (and the CLI through it) write the same events. Ids and names only, never a secret.
 */
export async function recordAdminEvent(
  ctx: AuthContext,
  actor: AdminActor,
  action: AdminAction,
  target: { type: AuditTargetType; id?: string | null },
  details: Record<string, unknown> = {},
): Promise<void> {
  await ctx.repos.auditEvents.insert({
    actor: actorLabel(actor),
    actorUserId: actor.kind === 'user' ? actor.userId : null,
    action,
    targetType: target.type,
    targetId: target.id ?? null,
    details: withoutSecrets(details),
    sourceIp: actor.sourceIp ?? null,
  });
}

/** A page of events, newest first, at most MAX_AUDIT_PAGE. */
export function listAuditEvents(ctx: AuthContext, query: { limit?: number; before?: AuditCursor }) {
  const limit = Math.min(Math.max(Math.trunc(query.limit ?? 50), 1), MAX_AUDIT_PAGE);
  return ctx.repos.auditEvents.list({ limit, ...(query.before ? { before: query.before } : {}) });
}

/** The cursor's wire form `<ISO time>_<uuid>` (the next page link), or undefined when malformed. */
export function parseAuditCursor(value: unknown): AuditCursor | undefined {
  if (typeof value !== 'string' || value.length > 100) return undefined;
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?Z)_([0-9a-f-]{36})$/.exec(value);
  if (!match) return undefined;
  const at = new Date(match[1]!);
  return Number.isNaN(at.getTime()) ? undefined : { at, id: match[2]! };
}

export const formatAuditCursor = (event: AuditEvent): string => `${event.at.toISOString()}_${event.id}`;
