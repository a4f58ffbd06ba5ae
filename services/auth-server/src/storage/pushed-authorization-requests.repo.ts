import type { Queryable } from './db';
import {
  PUSHED_REQUEST_INTERACTION_SECONDS,
  type PushedParams,
  type PushedRequestsRepo,
} from '../domain/authorize/pushed-request';

/** Every statement names the row by request_hash, the table's key (migration 0009). */
export function createPushedRequestsRepo(db: Queryable): PushedRequestsRepo {
  return {
    async save(request) {
      await db.query(
        `INSERT INTO pushed_authorization_requests (request_hash, client_id, params, expires_at)
         VALUES ($1, $2, $3, now() + make_interval(secs => $4))`,
        [request.requestHash, request.clientId, JSON.stringify(request.params), request.ttlSeconds],
      );
    },
    async load(requestHash, clientId) {
      const { rows } = await db.query(
        `UPDATE pushed_authorization_requests
            SET first_used_at = coalesce(first_used_at, now()),
                expires_at = CASE WHEN first_used_at IS NULL
                                  THEN greatest(expires_at, now() + make_interval(secs => $3))
                                  ELSE expires_at END
          WHERE request_hash = $1 AND client_id = $2 AND consumed_at IS NULL AND expires_at > now()
          RETURNING params`,
        [requestHash, clientId, PUSHED_REQUEST_INTERACTION_SECONDS],
      );
      return rows[0] ? (rows[0].params as PushedParams) : undefined;
    },
    async consume(requestHash) {
      const { rowCount } = await db.query(
        `UPDATE pushed_authorization_requests SET consumed_at = now()
          WHERE request_hash = $1 AND consumed_at IS NULL AND expires_at > now()`,
        [requestHash],
      );
      return rowCount === 1;
    },
    async deleteExpired(before) {
      const { rowCount } = await db.query('DELETE FROM pushed_authorization_requests WHERE expires_at < $1', [
        before,
      ]);
      return rowCount ?? 0;
    },
  };
}
