// The audit log's types and its repository interface, apart from the recorder (audit-events.ts), which
// needs the AuthContext: auth-context.ts imports this file, so the two do not import each other.

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
