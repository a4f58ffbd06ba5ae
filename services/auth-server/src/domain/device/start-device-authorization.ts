import { OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import type { Client } from '../clients/client';
import { generateSecret } from '../crypto/secret-hasher';
import { parseScope } from '../grants/parse-scope';
import { resolveAudience } from '../tokens/resolve-audience';
import { checkDeviceGrantAllowed } from './check-device-grant-allowed';
import { deriveUserCode, formatUserCode, hashUserCode } from './user-code';

/** RFC 8628 §3.2 device authorization response. */
export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** A collision of live user codes is ~N / 20^8; past a few in a row something else is wrong. */
const MAX_ATTEMPTS = 5;

/**
 * RFC 8628 §3.1–3.2: the device asks for a device code and a user code. Scope is required and bounded by
 * the client's registered scopes (as at /authorize); `resource` is RFC 8707's, resolved now so the page
 * and the tokens agree. The device code carries 256 bits; both codes are stored only as keyed hashes.
 */
export async function startDeviceAuthorization(
  ctx: AuthContext,
  client: Client,
  params: { scope?: string; resource: string[] },
): Promise<DeviceAuthorizationResponse> {
  checkDeviceGrantAllowed(client);
  const scopes = parseScope(params.scope);
  if (scopes.length === 0) throw new OAuthError('invalid_scope', 'scope is required');
  const unknown = scopes.filter((s) => !client.scopes.includes(s));
  if (unknown.length)
    throw new OAuthError('invalid_scope', `scope not allowed for this client: ${unknown.join(' ')}`);
  const resources = resolveAudience(params.resource, scopes, await ctx.repos.resourceServers.list());
  const { DEVICE_CODE_TTL_SECONDS: ttlSeconds, DEVICE_POLL_INTERVAL_SECONDS: intervalSeconds } = ctx.config;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const deviceCode = generateSecret();
    const userCode = deriveUserCode(ctx.hasher, deviceCode);
    const created = await ctx.repos.deviceAuthorizations.create({
      userCodeHash: hashUserCode(ctx.hasher, userCode),
      deviceCodeHash: ctx.hasher.hash(deviceCode),
      clientId: client.clientId,
      scopes,
      resources,
      intervalSeconds,
      ttlSeconds,
    });
    if (!created) continue; // that user code is live for another device: draw again
    const shown = formatUserCode(userCode);
    const verificationUri = `${ctx.config.ISSUER}/device`;
    return {
      device_code: deviceCode,
      user_code: shown,
      verification_uri: verificationUri,
      // §3.3.1: the code in the URI, for a QR code or a link; the page still shows it to compare.
      verification_uri_complete: `${verificationUri}?${new URLSearchParams({ user_code: shown })}`,
      expires_in: ttlSeconds,
      interval: intervalSeconds,
    };
  }
  throw new Error(`no free user code after ${MAX_ATTEMPTS} attempts`);
}
