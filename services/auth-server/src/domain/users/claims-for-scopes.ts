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

export function claimsForScopes(claims: Record<string, unknown>, scopes: string[]): Record<string, unknown> {
  const released = newDictionary<unknown>();
  for (const scope of scopes) {
    for (const name of SCOPE_CLAIMS[scope] ?? []) {
      const value = ownValue(claims, name);
      if (value !== undefined) released[name] = value;
    }
  }
  return released;
}
