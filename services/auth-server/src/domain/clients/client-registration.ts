import type { Client } from './client';

/** RFC 7591 §2 metadata we keep only to answer it back (the protocol never reads it). */
export interface ExtraClientMetadata {
  logo_uri?: string;
  client_uri?: string;
  policy_uri?: string;
  tos_uri?: string;
  contacts?: string[];
}

/** A dynamically registered client's RFC 7592 record. Implemented by storage/client-registrations.repo.ts. */
export interface ClientRegistrationsRepo {
  /** RFC 7591 §3: spends one use of an unexpired initial access token; false when none is left. */
  consumeInitialToken(tokenHash: Buffer): Promise<boolean>;
  /** Whether the token could be spent now (checked before the metadata, spent after it is valid). */
  initialTokenUsable(tokenHash: Buffer): Promise<boolean>;
  /** Deletes initial access tokens expired before `before` (used-up ones go when they expire). */
  deleteExpiredInitialTokens(before: Date): Promise<number>;
  saveInitialToken(token: { id: string; tokenHash: Buffer; uses: number; expiresAt: Date }): Promise<void>;
  save(clientId: string, registrationTokenHash: Buffer, extra: ExtraClientMetadata): Promise<void>;
  find(clientId: string): Promise<{ registrationTokenHash: Buffer; extra: ExtraClientMetadata } | undefined>;
  /** RFC 7592 §2.2: replaces the client's metadata (its id and creation time stay). */
  replaceClient(client: Omit<Client, 'createdAt'>): Promise<Client>;
}
