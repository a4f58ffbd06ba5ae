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
}

/** Implemented by storage/resource-servers.repo.ts. Lookups skip disabled resource servers. */
export interface ResourceServersRepo {
  save(rs: ResourceServer): Promise<ResourceServer>;
  findById(id: string): Promise<ResourceServer | undefined>;
  list(): Promise<ResourceServer[]>;
  updateSecretHash(id: string, secretHash: Buffer): Promise<void>;
  /** Makes the stored row match `rs` atomically; a row that already matches is not written. */
  upsert(rs: ResourceServer): Promise<'created' | 'updated' | 'unchanged'>;
  delete(id: string): Promise<boolean>;
}
