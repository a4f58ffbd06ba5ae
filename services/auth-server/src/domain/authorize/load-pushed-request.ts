import { OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import { AuthorizeError } from './authorization-flow';
import { REQUEST_URI_PREFIX, type PushedParams } from './pushed-request';

const RANDOM_PART = /^[A-Za-z0-9_-]{43}$/;

/**
 * RFC 9126 §4: /authorize with `request_uri` takes the pushed parameters and ignores every other one but
 * `client_id`, which must name the client that pushed it. An unknown, expired, used or another client's
 * request_uri gets the same answer, an error page (no redirect_uri can be trusted without the request).
 */
export async function loadPushedRequest(
  ctx: AuthContext,
  raw: Record<string, unknown>,
): Promise<{ params: PushedParams; requestHash: Buffer }> {
  const { request_uri: requestUri, client_id: clientId } = raw;
  if (typeof requestUri !== 'string' || typeof clientId !== 'string')
    throw new AuthorizeError(
      new OAuthError('invalid_request', 'request_uri and client_id must each appear once'),
      false,
    );
  // RFC 9101 §5.2: we fetch no request_uri; only our own PAR urns are taken.
  if (!requestUri.startsWith(REQUEST_URI_PREFIX))
    throw new AuthorizeError(
      new OAuthError('request_uri_not_supported', 'only request_uri values from POST /par are accepted'),
      false,
    );
  const random = requestUri.startsWith(REQUEST_URI_PREFIX) ? requestUri.slice(REQUEST_URI_PREFIX.length) : '';
  const requestHash = ctx.hasher.hash(random);
  const params = RANDOM_PART.test(random)
    ? await ctx.repos.pushedRequests.load(requestHash, clientId)
    : undefined;
  if (!params)
    throw new AuthorizeError(
      new OAuthError('invalid_request_uri', 'request_uri is unknown, expired or already used'),
      false,
    );
  return { params, requestHash };
}
