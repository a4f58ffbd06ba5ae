/** OIDC Core §5.4: the claims each scope releases. */
const SCOPE_CLAIMS: Record<string, string[]> = {
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
};

export function claimsForScopes(claims: Record<string, unknown>, scopes: string[]): Record<string, unknown> {
  const released: Record<string, unknown> = {};
  for (const scope of scopes) {
    for (const name of SCOPE_CLAIMS[scope] ?? [])
      if (claims[name] !== undefined) released[name] = claims[name];
  }
  return released;
}
