import type { ClientJwk, ClientJwks } from './client-jwks';
import type { ClientJwksFetcher } from './client-jwks-fetcher';

/** Where a client's (or resource server's) public keys are registered: at most one of the two. */
export interface RegisteredKeys {
  jwks: ClientJwks | null;
  jwksUri: string | null;
}

/**
 * The registered key a JWT's header names (`kid`), or the only key when it names none (RFC 8725 §3.10:
 * a key is only ever taken from the signer's own set). A `jwks_uri` set comes from the fetcher's cache; a
 * `kid` not in it may be a rotated-in key, so the set is fetched again (at most once per refetch interval).
 * 'unavailable': the set could not be fetched and none is cached.
 */
export async function findClientKey(
  fetcher: ClientJwksFetcher,
  keys: RegisteredKeys,
  kid: string | undefined,
): Promise<ClientJwk | 'unavailable' | undefined> {
  const pick = (set: ClientJwk[]) =>
    kid === undefined ? (set.length === 1 ? set[0] : undefined) : set.find((k) => k.kid === kid);
  if (keys.jwks) return pick(keys.jwks.keys);
  if (!keys.jwksUri) return undefined;
  const cached = await fetcher.get(keys.jwksUri);
  const jwk = cached && pick(cached.keys);
  if (jwk) return jwk;
  const fetched = await fetcher.get(keys.jwksUri, { refresh: true });
  if (!fetched && !cached) return 'unavailable';
  return fetched && pick(fetched.keys);
}
