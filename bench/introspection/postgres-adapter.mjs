// A minimal node-oidc-provider adapter on Postgres (one table, one statement per call): the peer's fair
// equal to our Postgres-backed /token_info. Interface: node-oidc-provider's example adapter
// (upsert, find, findByUserCode, findByUid, consume, destroy, revokeByGrantId).
import pg from 'pg';

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS oidc_models (
  model text NOT NULL,
  id text NOT NULL,
  payload jsonb NOT NULL,
  grant_id text,
  user_code text,
  uid text,
  expires_at timestamptz,
  consumed_at timestamptz,
  PRIMARY KEY (model, id)
);
CREATE INDEX IF NOT EXISTS oidc_models_grant_id ON oidc_models (grant_id);
CREATE INDEX IF NOT EXISTS oidc_models_user_code ON oidc_models (user_code);
CREATE INDEX IF NOT EXISTS oidc_models_uid ON oidc_models (uid);`;

export function createPostgresAdapter(databaseUrl, poolSize = 20) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  const toPayload = (row) =>
    row && (!row.expires_at || row.expires_at > new Date())
      ? { ...row.payload, ...(row.consumed_at ? { consumed: true } : {}) }
      : undefined;
  const findBy = async (model, column, value) => {
    const { rows } = await pool.query(
      `SELECT payload, expires_at, consumed_at FROM oidc_models WHERE model = $1 AND ${column} = $2`,
      [model, value],
    );
    return toPayload(rows[0]);
  };

  class PostgresAdapter {
    constructor(model) {
      this.model = model;
    }
    async upsert(id, payload, expiresIn) {
      await pool.query(
        `INSERT INTO oidc_models (model, id, payload, grant_id, user_code, uid, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $7::int IS NULL THEN NULL ELSE now() + make_interval(secs => $7::int) END)
         ON CONFLICT (model, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id,
           user_code = EXCLUDED.user_code, uid = EXCLUDED.uid, expires_at = EXCLUDED.expires_at`,
        [
          this.model,
          id,
          payload,
          payload.grantId ?? null,
          payload.userCode ?? null,
          payload.uid ?? null,
          expiresIn ?? null,
        ],
      );
    }
    find(id) {
      return findBy(this.model, 'id', id);
    }
    findByUserCode(userCode) {
      return findBy(this.model, 'user_code', userCode);
    }
    findByUid(uid) {
      return findBy(this.model, 'uid', uid);
    }
    async consume(id) {
      await pool.query('UPDATE oidc_models SET consumed_at = now() WHERE model = $1 AND id = $2', [
        this.model,
        id,
      ]);
    }
    async destroy(id) {
      await pool.query('DELETE FROM oidc_models WHERE model = $1 AND id = $2', [this.model, id]);
    }
    async revokeByGrantId(grantId) {
      await pool.query('DELETE FROM oidc_models WHERE grant_id = $1', [grantId]);
    }
  }
  return { PostgresAdapter, pool };
}
