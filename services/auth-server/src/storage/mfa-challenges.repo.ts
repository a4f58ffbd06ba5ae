import type { Queryable } from './db';
import {
  ACR_PHISHING_RESISTANT_HARDWARE,
  ACR_VALUES,
  type Acr,
  type AuthenticationMethod,
} from '../domain/sessions/authentication-methods';
import type { MfaChallengesRepo } from '../domain/sessions/mfa-challenge';

/** Table mfa_challenges (migrations 0016, 0021): sign-ins waiting for their second factor, minutes long. */
export function createMfaChallengesRepo(db: Queryable): MfaChallengesRepo {
  return {
    async save(challengeHash, c, purpose = 'pages') {
      await db.query(
        `INSERT INTO mfa_challenges
           (challenge_hash, user_id, amr, session_hash, return_to, wanted_acr, expires_at, purpose)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [challengeHash, c.userId, c.amr, c.sessionHash, c.returnTo, c.wantedAcr, c.expiresAt, purpose],
      );
    },
    async find(challengeHash, now, purpose = 'pages') {
      const { rows } = await db.query<{
        user_id: string;
        username: string;
        amr: AuthenticationMethod[];
        session_hash: Buffer | null;
        return_to: string;
        wanted_acr: string | null;
        expires_at: Date;
      }>(
        `SELECT c.user_id, u.username, c.amr, c.session_hash, c.return_to, c.wanted_acr, c.expires_at
           FROM mfa_challenges c JOIN users u ON u.user_id = c.user_id
          WHERE c.challenge_hash = $1 AND c.expires_at > $2 AND u.disabled_at IS NULL AND c.purpose = $3`,
        [challengeHash, now, purpose],
      );
      const row = rows[0];
      return row
        ? {
            userId: row.user_id,
            username: row.username,
            amr: row.amr,
            sessionHash: row.session_hash,
            returnTo: row.return_to,
            // Only our values are written; anything else reads as the strictest possible level (unreachable).
            wantedAcr: row.wanted_acr === null ? null : wantedAcrOf(row.wanted_acr),
            expiresAt: row.expires_at,
          }
        : null;
    },
    async delete(challengeHash) {
      const { rowCount } = await db.query('DELETE FROM mfa_challenges WHERE challenge_hash = $1', [
        challengeHash,
      ]);
      return (rowCount ?? 0) > 0;
    },
    async deleteExpired(now, limit) {
      const { rowCount } = await db.query(
        `DELETE FROM mfa_challenges WHERE challenge_hash IN (
           SELECT challenge_hash FROM mfa_challenges WHERE expires_at <= $1 LIMIT $2)`,
        [now, limit],
      );
      return rowCount ?? 0;
    },
  };
}

function wantedAcrOf(value: string): Acr {
  return ACR_VALUES.find((acr) => acr === value) ?? ACR_PHISHING_RESISTANT_HARDWARE;
}
