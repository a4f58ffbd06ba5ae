import { newDictionary, OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import type { Client } from '../clients/client';
import { generateSecret } from '../crypto/secret-hasher';
import { AuthorizeError } from './authorization-flow';
import { parseAuthorizationRequest } from './parse-authorization-request';
import type { ClientAssertionDeps } from '../clients/verify-client-assertion';
import { claimRequestObjectJti, resolveRequestObject } from './resolve-request-object';
import { REQUEST_URI_PREFIX, type PushedParams } from './pushed-request';

/** Client authentication parameters: they authenticate the push, they are not part of the request. */
const CLIENT_AUTH_PARAMS = new Set(['client_secret', 'client_assertion', 'client_assertion_type']);

/**
 * RFC 9126 §2: the authenticated client's authorization request, validated as /authorize validates it
 * (same parser: redirect_uri registered, response_type, scope, PKCE…), stored under the keyed hash of a
 * 256-bit random `request_uri` for PAR_TTL_SECONDS. §2.1: a pushed `request_uri` is refused; §2.3:
 * errors are the OAuth envelope with 400.
 */
export async function pushAuthorizationRequest(
  ctx: AuthContext,
  keys: ClientAssertionDeps,
  client: Client,
  body: Record<string, string>,
  resources: string[],
): Promise<{ request_uri: string; expires_in: number }> {
  if (body.request_uri !== undefined)
    throw new OAuthError('invalid_request', 'request_uri cannot be pushed (RFC 9126 §2.1)');
  const params: PushedParams = newDictionary();
  for (const [name, value] of Object.entries(body)) if (!CLIENT_AUTH_PARAMS.has(name)) params[name] = value;
  params.client_id = client.clientId;
  if (resources.length) params.resource = resources;
  try {
    // RFC 9126 §3: a pushed `request` object is verified as at /authorize; what is stored is as sent.
    const object = await resolveRequestObject(ctx, keys, params);
    await parseAuthorizationRequest(ctx, object.params, { pushed: true, signed: object.signed });
    // The push uses the request object up (RFC 9101 §10.10): the request_uri stands for it from now on.
    if (object.jti) await claimRequestObjectJti(keys, object.jti);
  } catch (error) {
    if (error instanceof AuthorizeError) throw error.error;
    throw error;
  }
  const random = generateSecret();
  await ctx.repos.pushedRequests.save({
    requestHash: ctx.hasher.hash(random),
    clientId: client.clientId,
    params,
    ttlSeconds: ctx.config.PAR_TTL_SECONDS,
  });
  return { request_uri: `${REQUEST_URI_PREFIX}${random}`, expires_in: ctx.config.PAR_TTL_SECONDS };
}
