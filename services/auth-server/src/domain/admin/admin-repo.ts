import type { Client } from '../clients/client';

export interface AdminUser {
  userId: string;
  username: string;
  claims: Record<string, unknown>;
  roles: string[];
  disabled: boolean;
  createdAt: Date;
}

export interface AdminGrant {
  grantId: string;
  clientId: string;
  userId: string | null;
  username: string | null;
  scopes: string[];
  sid: string | null;
  createdAt: Date;
}

export interface AdminSession {
  sid: string;
  userId: string;
  username: string;
  authTime: Date;
  expiresAt: Date;
}

export interface SigningKeyInfo {
  kid: string;
  alg: string;
  createdAt: Date;
  retiredAt: Date | null;
  /** When a retired key leaves the JWKS. */
  expiresAt: Date | null;
}

/**
 * What the admin use cases read and write beyond the protocol repos (storage/admin.repo.ts). Every list
 * takes a bounded `limit` (the callers clamp it).
 */
export interface AdminRepo {
  /** Users by username prefix (case-insensitive), disabled ones too, by username. */
  listUsers(query: { search?: string; limit: number; offset: number }): Promise<AdminUser[]>;
  /** A user whether enabled or not. */
  findUser(userId: string): Promise<AdminUser | undefined>;
  /** Sets or clears disabled_at; false when there is no such user. */
  setUserDisabled(userId: string, disabled: boolean): Promise<boolean>;
  /** Adds or removes a role; false when there is no such user. */
  setUserRole(userId: string, role: string, granted: boolean): Promise<boolean>;
  /** An enabled user holding `role`, for the console's sign-in (case-insensitive username). */
  findLoginWithRole(
    username: string,
    role: string,
  ): Promise<{ userId: string; username: string; passwordHash: string } | undefined>;
  /** Writes every editable metadata column of the client (its secret stays). */
  updateClient(client: Omit<Client, 'createdAt'>): Promise<Client>;
  /** Active (not revoked) grants, newest first. */
  listGrants(query: { userId?: string; clientId?: string; limit: number }): Promise<AdminGrant[]>;
  /** Live page sessions, newest first. */
  listSessions(query: { userId?: string; limit: number }): Promise<AdminSession[]>;
  /** Deletes one page session of the user; false when none. */
  deleteSession(userId: string, sid: string): Promise<boolean>;
  /** Deletes every page session and console session of the user; returns the page sessions' sids. */
  deleteUserSessions(userId: string): Promise<string[]>;
  listSigningKeys(limit: number): Promise<SigningKeyInfo[]>;
}
