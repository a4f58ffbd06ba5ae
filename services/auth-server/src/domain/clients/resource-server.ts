import type { ClientJwks } from './client-jwks';

/** A resource server: authenticates to introspection (RFC 7662 §2.1) and names an audience. */
export interface ResourceServer {
  id: string;
  secretHash: Buffer;
  audience: string;
  scopes: string[];
  /** Public keys for private_key_jwt at /token_info (RFC 7523, 0011); at most one of the two. */
  jwks?: ClientJwks | null;
  jwksUri?: string | null;
  /**
   * client_secret_jwt (RFC 7523 §2.2, 0014): the secret sealed with `createResourceServerSecretEncryption`,
   * present only for a resource server registered for it; its HMAC assertions need the secret itself.
   */
  secretCiphertext?: string | null;
}

/** Implemented by storage/resource-servers.repo.ts. Lookups skip disabled resource servers. */
export interface ResourceServersRepo {
  save(rs: ResourceServer): Promise<ResourceServer>;
  findById(id: string): Promise<ResourceServer | undefined>;
  list(): Promise<ResourceServer[]>;
  /**
   * A new secret: its hash, and its sealed copy, which is stored only when the row already keeps one
   * (a client_secret_jwt resource server stays one, with its sealed secret in step with the hash).
   */
  updateSecret(id: string, secretHash: Buffer, secretCiphertext: string): Promise<void>;
  /**
   * Makes the stored row match `rs` atomically; a row that already matches is not written. A row that keeps a
   * sealed secret gets `sealedSecret` (the new secret sealed) with a new hash.
   */
  upsert(rs: ResourceServer, sealedSecret: string): Promise<'created' | 'updated' | 'unchanged'>;
  delete(id: string): Promise<boolean>;
}
