import type { Pool } from 'pg';
import type { BackchannelLogoutRepo } from '../domain/logout/backchannel-logout-repo';

interface DueRow {
  delivery_id: string;
  client_id: string;
  uri: string;
  user_id: string;
  sid: string | null;
  jti: string;
  attempts: number;
}

export function createBackchannelLogoutRepo(pool: Pool): BackchannelLogoutRepo {
  return {
    async enqueueForSessions(userId, sids) {
      if (sids.length === 0) return 0;
      const { rowCount } = await pool.query(
        `INSERT INTO backchannel_logout_deliveries (client_id, user_id, sid)
         SELECT DISTINCT g.client_id, g.user_id, g.sid
           FROM grants g JOIN clients c ON c.client_id = g.client_id
          WHERE g.user_id = $1 AND g.sid = ANY($2::text[])
            AND c.backchannel_logout_uri IS NOT NULL AND c.disabled_at IS NULL`,
        [userId, sids],
      );
      return rowCount ?? 0;
    },
    async claimDue(limit, leaseMs) {
      const { rows } = await pool.query<DueRow>(
        `UPDATE backchannel_logout_deliveries d
            SET attempts = d.attempts + 1,
                next_attempt_at = now() + make_interval(secs => $2::float8 / 1000)
           FROM (SELECT delivery_id FROM backchannel_logout_deliveries
                  WHERE next_attempt_at <= now() ORDER BY next_attempt_at LIMIT $1
                  FOR UPDATE SKIP LOCKED) due, clients c
          WHERE d.delivery_id = due.delivery_id AND c.client_id = d.client_id
         RETURNING d.delivery_id, d.client_id, c.backchannel_logout_uri AS uri, d.user_id, d.sid,
                   d.jti, d.attempts`,
        [limit, leaseMs],
      );
      return rows.map((row) => ({
        deliveryId: row.delivery_id,
        clientId: row.client_id,
        uri: row.uri,
        userId: row.user_id,
        sid: row.sid,
        jti: row.jti,
        attempts: row.attempts,
      }));
    },
    async remove(deliveryId) {
      await pool.query('DELETE FROM backchannel_logout_deliveries WHERE delivery_id = $1', [deliveryId]);
    },
    async recordFailure(deliveryId, error, retryInMs) {
      await pool.query(
        `UPDATE backchannel_logout_deliveries
            SET last_error = $2, next_attempt_at = now() + make_interval(secs => $3::float8 / 1000)
          WHERE delivery_id = $1`,
        [deliveryId, error.slice(0, 500), retryInMs],
      );
    },
    async msUntilNextDue() {
      // Not greatest(0, …) alone: GREATEST ignores NULL, so an empty table would read as "due now".
      const { rows } = await pool.query<{ ms: number | null }>(
        `SELECT CASE WHEN min(next_attempt_at) IS NULL THEN NULL
                     ELSE greatest(0, extract(epoch FROM min(next_attempt_at) - now()) * 1000)::float8 END AS ms
           FROM backchannel_logout_deliveries`,
      );
      return rows[0]?.ms ?? null;
    },
  };
}
