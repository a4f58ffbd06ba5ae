/**
 * Who performed an admin action, for audit events: an admin user signed in to the console, or the holder
 * of ADMIN_TOKEN (the JSON API; `cli` when the request says it comes from `npm run admin`, which only the
 * token holder can say, so it is a label, not a proof).
 */
export type AdminActor =
  | { kind: 'admin-token' | 'cli'; sourceIp?: string }
  | { kind: 'user'; userId: string; username: string; sourceIp?: string };

/** The `actor` column: the admin's username, or 'admin-token' / 'cli'. */
export function actorLabel(actor: AdminActor): string {
  return actor.kind === 'user' ? actor.username : actor.kind;
}

/** The one role the console knows (users.roles, migration 0019). */
export const ADMIN_ROLE = 'admin';
