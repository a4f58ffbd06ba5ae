import type { OAuthError } from '@acme/common';
import type { Translator } from '../i18n/translator';

type T = Translator['t'];

/**
 * The domain's validation details (English `error_description`s, the JSON admin API's wire text) in the
 * console page's language. The domain words them once for the API; the console maps each known wording to
 * a message of its own here (test/web/unit/console-problem.test.ts drives the domain's checks and fails when
 * a wording here no longer matches). Each rule is a fixed prefix (and, for the URI rules, the value after
 * it), so matching is linear in the text. An unknown detail is shown as the domain worded it.
 */
const PREFIXED: readonly (readonly [string, (t: T, value: string) => string | undefined])[] = [
  [
    'redirect URI must use https (or loopback http for native apps): ',
    (t, uri) =>
      t('Redirect URI {uri} must use https (native apps may also use http on a loopback address).', { uri }),
  ],
  ['not an absolute URI: ', (t, uri) => t('{uri} is not an absolute URI.', { uri })],
  ['fragment not allowed: ', (t, uri) => t('{uri} must not contain a fragment (#).', { uri })],
  ['JWT access tokens must expire', (t) => t('JWT access tokens must expire: give them a lifetime.')],
  ['public clients cannot use client_credentials', (t) => t('Public clients cannot use client credentials.')],
  ['public clients cannot use token exchange', (t) => t('Public clients cannot use token exchange.')],
  [
    'token response types need the implicit grant type',
    (t) => t('Token response types need the implicit grant type.'),
  ],
  [
    'logo_uri must be on an origin listed in UI_LOGO_ORIGINS',
    (t) => t('The logo must come from an origin the operator allows (UI_LOGO_ORIGINS).'),
  ],
  [
    'logo_uri must be an https URL',
    (t) => t('The logo URL must be an https URL without credentials or fragment.'),
  ],
  [
    'backchannel_logout_uri is not an absolute URL: ',
    (t, uri) => t('Back-channel logout URI {uri} is not an absolute URL.', { uri }),
  ],
  [
    'backchannel_logout_uri has a fragment: ',
    (t, uri) => t('Back-channel logout URI {uri} must not contain a fragment (#).', { uri }),
  ],
  [
    'backchannel_logout_uri must use https (or http on a loopback address): ',
    (t, uri) => t('Back-channel logout URI {uri} must use https (or http on a loopback address).', { uri }),
  ],
  [
    'resource server ',
    (t, rest) =>
      rest.endsWith(' exists')
        ? t('A resource server with the ID {id} exists already.', { id: rest.slice(0, -' exists'.length) })
        : undefined,
  ],
];

/** zod's issue list as the domain joins it: `path: message; path: message` (path: letters, digits, _ and .). */
const ISSUE = /^([A-Za-z_][A-Za-z0-9_.]{0,100}): (.{1,500})$/;
const TOO_SMALL_TEXT = /^Too small: expected string to have >=(\d{1,6}) characters$/;
const TOO_BIG_TEXT = /^Too big: expected string to have <=(\d{1,6}) characters$/;
const TOO_MANY = /^Too big: expected array to have <=(\d{1,6}) items$/;

function issueText(t: T, issue: string): string | undefined {
  const match = ISSUE.exec(issue);
  if (!match) return undefined;
  const field = match[1]!;
  const message = match[2]!;
  const small = TOO_SMALL_TEXT.exec(message);
  if (small) return t('{field}: at least {n} characters.', { field, n: small[1]! });
  const big = TOO_BIG_TEXT.exec(message);
  if (big) return t('{field}: at most {n} characters.', { field, n: big[1]! });
  const many = TOO_MANY.exec(message);
  if (many) return t('{field}: at most {n} values.', { field, n: many[1]! });
  return t('{field}: this value is not allowed.', { field });
}

/** The detail of a refused admin change, in the page's language where the console knows the wording. */
export function consoleProblem(error: OAuthError, t: T): string {
  const detail = error.description;
  if (detail === undefined) return error.code;
  for (const [prefix, word] of PREFIXED) {
    const worded = detail.startsWith(prefix) ? word(t, detail.slice(prefix.length)) : undefined;
    if (worded !== undefined) return worded;
  }
  if (detail.length > 4000) return detail;
  const issues = detail.split('; ', 21);
  if (issues.length <= 20) {
    const worded = issues.map((issue) => issueText(t, issue));
    if (worded.every((text) => text !== undefined)) return worded.join(' ');
  }
  return detail;
}
