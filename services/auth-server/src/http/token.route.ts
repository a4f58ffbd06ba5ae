import express, { type Router } from 'express';
import { OAuthError } from '@acme/common';
import type { AuthContext } from '../domain/auth-context';
import { exchangeCode } from '../domain/grants/exchange-code';
import { refreshTokens } from '../domain/grants/refresh-tokens';
import { clientCredentials } from '../domain/grants/client-credentials';
import { DEVICE_CODE_GRANT_TYPE } from '../domain/device/device-authorization';
import { exchangeDeviceCode } from '../domain/device/exchange-device-code';
import { TOKEN_EXCHANGE_GRANT_TYPE } from '../domain/token-exchange/token-exchange';
import { exchangeToken } from '../domain/token-exchange/exchange-token';
import { authenticateRequestClient, type ClientAuth } from './client-auth';
import { cors } from './cors';
import { listParam, parseFormBody } from './parse-params';
import { checkTokenProof } from '../domain/dpop/check-token-proof';
import type { TokenDpop } from '../domain/dpop/token-dpop';

const GRANT_TYPES = [
  'authorization_code',
  'refresh_token',
  'client_credentials',
  DEVICE_CODE_GRANT_TYPE,
  TOKEN_EXCHANGE_GRANT_TYPE,
];

/**
 * POST /token (RFC 6749 §3.2): authorization_code, refresh_token, client_credentials and the device code
 * (RFC 8628 §3.4) and token exchange (RFC 8693 §2); the password grant is refused (RFC 9700 §2.4). Responses are no-store (§5.1); errors
 * follow §5.2.
 */
export function tokenRouter(ctx: AuthContext, clientAuth: ClientAuth, dpop: TokenDpop): Router {
  const router = express.Router();
  router.options('/token', cors);
  router.post('/token', cors, express.urlencoded({ extended: false, limit: '16kb' }), async (req, res) => {
    res.set('Cache-Control', 'no-store').set('Pragma', 'no-cache');
    const params = parseFormBody(req);
    const grantType = params.grant_type;
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required');
    if (!GRANT_TYPES.includes(grantType))
      throw new OAuthError('unsupported_grant_type', `grant_type ${grantType} is not supported`);
    const client = await authenticateRequestClient(clientAuth, req, params);
    const resource = listParam(req.body, 'resource');
    // RFC 9449 §8.2: with nonces on, every answer to a proof carries the current one.
    if (dpop.nonces && req.headers.dpop !== undefined) res.set('DPoP-Nonce', dpop.nonces.current());
    const binding = await checkTokenProof(ctx, dpop, req.headers.dpop, client);
    const body =
      grantType === 'authorization_code'
        ? await exchangeCode(ctx, client, params, binding)
        : grantType === 'refresh_token'
          ? await refreshTokens(ctx, client, params, binding)
          : grantType === DEVICE_CODE_GRANT_TYPE
            ? await exchangeDeviceCode(ctx, client, params, binding)
            : grantType === TOKEN_EXCHANGE_GRANT_TYPE
              ? await exchangeToken(
                  ctx,
                  client,
                  { ...params, targets: [...resource, ...listParam(req.body, 'audience')] },
                  binding,
                )
              : await clientCredentials(ctx, client, { scope: params.scope, resource }, binding);
    res.json(body);
  });
  return router;
}
