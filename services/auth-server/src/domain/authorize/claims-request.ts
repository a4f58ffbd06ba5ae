import { OAuthError } from '@acme/common';
import { ACR_VALUES, acrRank, requestedAcr, type Acr } from '../sessions/authentication-methods';
import { isReleasableClaim } from '../users/claims-for-scopes';

/**
 * The OpenID Connect `claims` request parameter (OIDC Core 1.0 §5.5): a JSON object whose `id_token` and
 * `userinfo` members each map claim names to null (a default request) or to `{essential, value, values}`
 * (§5.5.1). It comes as a string at /authorize and /par, as a JSON object inside a request object (§6.1;
 * resolve-request-object.ts turns that back into its JSON text, so one parser sees both).
 */
export interface ClaimsRequest {
  /** Claims asked for in the ID token, by name (a Map: names are the client's strings). */
  idToken: ReadonlyMap<string, ClaimRequest>;
  /** Claims asked for at the UserInfo endpoint. */
  userinfo: ReadonlyMap<string, ClaimRequest>;
}

export interface ClaimRequest {
  essential: boolean;
  /** §5.5.1 `value` (as a one-element list) or `values`; only the string ones are kept (acr, sub). */
  values: readonly string[];
}

/** The longest `claims` text taken: a request for every standard claim with a few acr values fits. */
export const MAX_CLAIMS_PARAMETER_LENGTH = 4096;
/** Bounds on the work one request makes: claim names per member, values per claim. */
const MAX_CLAIMS_PER_MEMBER = 64;
const MAX_VALUES_PER_CLAIM = 16;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Parses the parameter's JSON text. Members other than `id_token` and `userinfo` are ignored (§5.5: they
 * are extensions), and so are members of an individual request other than essential/value/values
 * (§5.5.1: "other members MAY be defined… MUST be ignored if not understood"). Malformed JSON, a non-object
 * where an object is required, a non-boolean `essential`, a non-array `values`, or too much of anything
 * is `invalid_request`. JSON.parse makes `__proto__` an own key; the result is Maps, never read by key.
 */
export function parseClaimsParameter(text: string): ClaimsRequest {
  const invalid = (description: string) => new OAuthError('invalid_request', `claims: ${description}`);
  if (text.length > MAX_CLAIMS_PARAMETER_LENGTH) throw invalid('the parameter is too long');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid('not valid JSON');
  }
  if (!isObject(parsed)) throw invalid('must be a JSON object');
  const member = (name: 'id_token' | 'userinfo'): Map<string, ClaimRequest> => {
    const out = new Map<string, ClaimRequest>();
    if (!Object.hasOwn(parsed, name) || parsed[name] === null) return out;
    const requests = parsed[name];
    if (!isObject(requests)) throw invalid(`${name} must be an object`);
    const entries = Object.entries(requests);
    if (entries.length > MAX_CLAIMS_PER_MEMBER) throw invalid(`too many claims in ${name}`);
    for (const [claim, request] of entries) out.set(claim, parseClaimRequest(claim, request, invalid));
    return out;
  };
  return { idToken: member('id_token'), userinfo: member('userinfo') };
}

function parseClaimRequest(
  claim: string,
  request: unknown,
  invalid: (description: string) => OAuthError,
): ClaimRequest {
  if (request === null) return { essential: false, values: [] };
  if (!isObject(request)) throw invalid(`the request for ${claim} must be null or an object`);
  const essential = Object.hasOwn(request, 'essential') ? request.essential : false;
  if (typeof essential !== 'boolean') throw invalid(`essential must be true or false (${claim})`);
  const values: unknown[] = [];
  if (Object.hasOwn(request, 'values')) {
    if (!Array.isArray(request.values)) throw invalid(`values must be an array (${claim})`);
    if (request.values.length > MAX_VALUES_PER_CLAIM) throw invalid(`too many values for ${claim}`);
    values.push(...(request.values as unknown[]));
  }
  if (Object.hasOwn(request, 'value')) values.push(request.value);
  return { essential, values: values.filter((value): value is string => typeof value === 'string') };
}

/**
 * The level an essential `acr` request for the ID token requires (§5.5.1.1): like acr_values, the weakest
 * of its values we know (meeting any one honours it). `unmeetable` when none is ours: no sign-in here can
 * produce one of them, a failed authentication (§5.5.1.1). undefined when acr is not asked as essential
 * with values: a voluntary acr request is a preference only.
 */
export function essentialAcr(claims: ClaimsRequest | undefined): Acr | 'unmeetable' | undefined {
  const acr = claims?.idToken.get('acr');
  if (!acr?.essential || acr.values.length === 0) return undefined;
  return requestedAcr(acr.values) ?? 'unmeetable';
}

/**
 * The `acr` an ID token carries for a session signed in at `sessionAcr` (§5.5.1.1): when acr was asked
 * for with values, the strongest of them the session meets (an essential request "MUST return an acr
 * Claim Value that matches one of the requested values"; the level order is ACR_VALUES'); the session's
 * own acr when none is met or none was asked (a voluntary request that cannot be met gets the current one).
 */
export function idTokenAcr(claims: ClaimsRequest | undefined, sessionAcr: Acr): Acr {
  const asked = (claims?.idToken.get('acr')?.values ?? []).map(acrRank).filter((rank) => rank >= 0);
  const met = asked.filter((rank) => rank <= acrRank(sessionAcr));
  return met.length ? ACR_VALUES[Math.max(...met)]! : sessionAcr;
}

/**
 * The user claims a request asks for by name that this server releases (the standard claims of §5.1 it
 * holds, claims-for-scopes.ts); protocol claims (sub, acr, auth_time…) are in every ID token anyway, and
 * names it does not know are ignored (§5.5: a claim that is not available is simply not returned).
 */
export function requestedUserClaims(claims: ClaimsRequest | undefined): {
  idToken: string[];
  userinfo: string[];
} {
  const names = (member: ReadonlyMap<string, ClaimRequest> | undefined) =>
    [...(member?.keys() ?? [])].filter(isReleasableClaim).sort();
  return { idToken: names(claims?.idToken), userinfo: names(claims?.userinfo) };
}

/** The value an ID token's `sub` was asked to have (§5.5.1: only that user may get a positive answer). */
export function requestedSubject(claims: ClaimsRequest | undefined): string | undefined {
  const sub = claims?.idToken.get('sub');
  return sub && sub.values.length > 0 ? sub.values[0] : undefined;
}
