import { copyDictionary, newDictionary, ownValue } from '@acme/common';

/**
 * OIDC Core §5.4: the claims each scope releases. Looked up by scope names, which clients register:
 * without a prototype a scope named `constructor` releases nothing instead of iterating `Object`.
 */
const SCOPE_CLAIMS: Record<string, string[]> = copyDictionary({
  profile: [
    'name',
    'family_name',
    'given_name',
    'middle_name',
    'nickname',
    'preferred_username',
    'profile',
    'picture',
    'website',
    'gender',
    'birthdate',
    'zoneinfo',
    'locale',
    'updated_at',
  ],
  email: ['email', 'email_verified'],
  address: ['address'],
  phone: ['phone_number', 'phone_number_verified'],
});

/** Every claim some scope releases: the user claims a `claims` request may also ask for by name. */
const RELEASABLE = new Set(Object.values(SCOPE_CLAIMS).flat());

export function isReleasableClaim(name: string): boolean {
  return RELEASABLE.has(name);
}

/** The names of the claims these scopes release. */
export function claimNamesForScopes(scopes: readonly string[]): string[] {
  return scopes.flatMap((scope) => SCOPE_CLAIMS[scope] ?? []);
}

/**
 * The user's claims the scopes release, plus those asked for by name (`named`: the OIDC Core §5.5
 * `claims` request, as consented and recorded on the grant), when the user has them.
 */
export function claimsForScopes(
  claims: Record<string, unknown>,
  scopes: string[],
  named: readonly string[] = [],
): Record<string, unknown> {
  const released = newDictionary<unknown>();
  const names = [...claimNamesForScopes(scopes), ...named.filter(isReleasableClaim)];
  for (const name of names) {
    const value = ownValue(claims, name);
    if (value !== undefined) released[name] = value;
  }
  return released;
}
