import type { AuthContext } from '../auth-context';
import { createResourceServerSecretEncryption } from '../crypto/key-encryption';

/** search-store's resource server as `docker compose up` and `npm start` register it. */
export const SEARCH_STORE_RESOURCE_SERVER = {
  id: 'search-store',
  audience: 'search-store',
  scopes: ['search.read', 'search.write', 'search.admin'],
} as const;

/**
 * Registers search-store's resource server from a secret given in the environment, at every start,
 * so that a fresh `docker compose up` gives a working pair with no hand steps (the way Keycloak
 * imports a realm at start). The environment is the source of truth for this one resource server:
 * - absent: created, the secret stored as a keyed hash like any resource-server secret;
 * - present with the same secret, audience and scopes: nothing is written;
 * - present with another secret (a rotation, or the secret `npm run admin` generated): the stored hash
 *   is replaced, so the old secret stops working at once; audience and scopes are set back too.
 */
export async function bootstrapSearchStore(
  ctx: AuthContext,
  secret: string,
): Promise<'created' | 'updated' | 'unchanged'> {
  const outcome = await ctx.repos.resourceServers.upsert(
    {
      ...SEARCH_STORE_RESOURCE_SERVER,
      scopes: [...SEARCH_STORE_RESOURCE_SERVER.scopes],
      secretHash: ctx.hasher.hash(secret),
    },
    // Kept only if it was registered for client_secret_jwt: then the sealed copy must follow the hash.
    createResourceServerSecretEncryption(ctx.config.TOKEN_SIGNING_SECRET).encrypt(secret),
  );
  ctx.logger.info('bootstrap: resource server', { id: SEARCH_STORE_RESOURCE_SERVER.id, outcome });
  return outcome;
}
