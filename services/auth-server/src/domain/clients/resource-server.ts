/** A resource server: authenticates to introspection (RFC 7662 §2.1) and names an audience. */
export interface ResourceServer {
  id: string;
  secretHash: Buffer;
  audience: string;
  scopes: string[];
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
