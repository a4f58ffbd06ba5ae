import type { Queryable } from './db';
import type { AuditEvent, AuditEventsRepo } from '../domain/admin/audit-event';

export function createAuditEventsRepo(db: Queryable): AuditEventsRepo {
  return {
    async insert(event) {
      await db.query(
        `INSERT INTO audit_events (actor, actor_user_id, action, target_type, target_id, details, source_ip)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          event.actor,
          event.actorUserId,
          event.action,
          event.targetType,
          event.targetId,
          JSON.stringify(event.details),
          event.sourceIp,
        ],
      );
    },
    // Keyset paging on (at, id), index audit_events_at: each page costs the same however deep it is.
    async list({ limit, before }) {
      const { rows } = await db.query(
        `SELECT id, at, actor, actor_user_id, action, target_type, target_id, details, source_ip
           FROM audit_events
          WHERE $1::timestamptz IS NULL OR (at, id) < ($1::timestamptz, $2::uuid)
          ORDER BY at DESC, id DESC LIMIT $3`,
        [before?.at ?? null, before?.id ?? null, limit],
      );
      return rows.map((row: Record<string, unknown>): AuditEvent => ({
        id: row.id as string,
        at: row.at as Date,
        actor: row.actor as string,
        actorUserId: row.actor_user_id as string | null,
        action: row.action as AuditEvent['action'],
        targetType: row.target_type as AuditEvent['targetType'],
        targetId: row.target_id as string | null,
        details: row.details as Record<string, unknown>,
        sourceIp: row.source_ip as string | null,
      }));
    },
  };
}
