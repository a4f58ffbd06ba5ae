import type { AuthContext } from '../auth-context';
import { actorLabel, type AdminActor } from './admin-actor';
import type { AdminAction, AuditCursor, AuditEvent, AuditTargetType } from './audit-event';

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
