import { OAuthError } from '@acme/common';

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * OIDC Back-Channel Logout 1.0 §2.2: an absolute URL, no fragment. The logout token travels in it, so
 * https, except plain http on a loopback address (an RP on the same machine, development).
 */
export function checkBackchannelLogoutUri(uri: string): void {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new OAuthError('invalid_client_metadata', `backchannel_logout_uri is not an absolute URL: ${uri}`);
  }
  if (url.hash || uri.includes('#'))
    throw new OAuthError('invalid_client_metadata', `backchannel_logout_uri has a fragment: ${uri}`);
  if (url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname))) return;
  throw new OAuthError(
    'invalid_client_metadata',
    `backchannel_logout_uri must use https (or http on a loopback address): ${uri}`,
  );
}
