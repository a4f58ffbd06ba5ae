import type { Translator } from '../i18n/translator';

/**
 * A user claim asked for by name (OIDC Core §5.5 `claims`, §5.1 names) in the page's language, worded like
 * the scopes (scope-words.ts): claims that say one thing (given_name and family_name are the name) share
 * their words, and the consent page lists each wording once.
 */
export function claimWords(i18n: Translator, claim: string): string {
  switch (claim) {
    case 'name':
    case 'given_name':
    case 'family_name':
    case 'middle_name':
    case 'nickname':
      return i18n.t('See your name');
    case 'preferred_username':
      return i18n.t('See your username');
    case 'picture':
      return i18n.t('See your picture');
    case 'profile':
    case 'website':
      return i18n.t('See the addresses of your profile page and website');
    case 'gender':
      return i18n.t('See your gender');
    case 'birthdate':
      return i18n.t('See your date of birth');
    case 'zoneinfo':
    case 'locale':
      return i18n.t('See your time zone and language');
    case 'updated_at':
      return i18n.t('See when your profile was last changed');
    case 'email':
    case 'email_verified':
      return i18n.t('See your email address');
    case 'address':
      return i18n.t('See your postal address');
    case 'phone_number':
    case 'phone_number_verified':
      return i18n.t('See your phone number');
    default:
      return i18n.t('See your "{claim}" information', { claim });
  }
}

/** The claims in words, each wording once, in the claims' order. */
export function claimLines(i18n: Translator, claims: readonly string[]): { claim: string; words: string }[] {
  const seen = new Set<string>();
  const lines: { claim: string; words: string }[] = [];
  for (const claim of claims) {
    const words = claimWords(i18n, claim);
    if (seen.has(words)) continue;
    seen.add(words);
    lines.push({ claim, words });
  }
  return lines;
}
