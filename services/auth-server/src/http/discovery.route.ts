import express, { type Router } from 'express';
import { loadMessageCatalogue } from './i18n/message-catalogue';
import type { AuthContext } from '../domain/auth-context';
import { cors } from './cors';
import { ACR_VALUES } from '../domain/sessions/authentication-methods';
import { ACCESS_TOKEN_ALGS } from '../domain/tokens/jwt-codec';
import { SUPPORTED_GRANT_TYPES } from '../domain/clients/grant-types';
import { CLIENT_ASSERTION_ALGS } from '../domain/clients/client-jwks';
import { CLIENT_SECRET_JWT_ALGS } from '../domain/clients/verify-client-assertion';

// RFC 8414 §2: private_key_jwt and client_secret_jwt (RFC 7523) wherever a secret works; algorithms fixed.
const CLIENT_AUTH_METHODS = [
  'client_secret_basic',
  'client_secret_post',
  'client_secret_jwt',
  'private_key_jwt',
  'none',
];
const CLIENT_AUTH_SIGNING_ALGS = [...CLIENT_ASSERTION_ALGS, ...CLIENT_SECRET_JWT_ALGS];
import { END_SESSION_PATH } from './end-session.route';
import { DPOP_SIGNING_ALGS } from '@acme/common';
import { REQUEST_OBJECT_ALGS } from '../domain/authorize/resolve-request-object';
import { PAR_PATH } from './pushed-authorization-request.route';

/**
 * RFC 8414 and OIDC Discovery 1.0 metadata, and the JWKS (RFC 7517). CORS is allowed here (RFC 9700 §2.6:
 * metadata and JWKS MAY be CORS-enabled), never on /authorize.
 */
export function discoveryRouter(ctx: AuthContext): Router {
  const router = express.Router();
  const issuer = ctx.config.ISSUER;
  const metadata = {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    userinfo_endpoint: `${issuer}/userinfo`,
    jwks_uri: `${issuer}/jwks`,
    introspection_endpoint: `${issuer}/token_info`,
    revocation_endpoint: `${issuer}/revoke`,
    device_authorization_endpoint: `${issuer}/device_authorization`,
    end_session_endpoint: `${issuer}${END_SESSION_PATH}`,
    // RFC 9126 §5: PAR is required per client (its metadata), not server-wide.
    pushed_authorization_request_endpoint: `${issuer}${PAR_PATH}`,
    require_pushed_authorization_requests: false,
    scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
    response_types_supported: ['code', 'token', 'id_token token'],
    response_modes_supported: ['query', 'fragment'],
    grant_types_supported: [...SUPPORTED_GRANT_TYPES],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    token_endpoint_auth_signing_alg_values_supported: CLIENT_AUTH_SIGNING_ALGS,
    // Resource servers: Basic, or an assertion (RFC 7523) when registered with keys or for client_secret_jwt.
    introspection_endpoint_auth_methods_supported: [
      'client_secret_basic',
      'client_secret_jwt',
      'private_key_jwt',
    ],
    introspection_endpoint_auth_signing_alg_values_supported: CLIENT_AUTH_SIGNING_ALGS,
    // RFC 9701 §7: JWT introspection responses (Accept: application/token-introspection+jwt), RS256.
    introspection_signing_alg_values_supported: ['RS256'],
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_signing_alg_values_supported: CLIENT_AUTH_SIGNING_ALGS,
    code_challenge_methods_supported: ['S256'],
    // OIDC Discovery §3: the languages the pages speak, for ui_locales (http/i18n/messages/).
    ui_locales_supported: loadMessageCatalogue().languages,
    // RFC 9449 §5.1: proofs are taken at /token with these algorithms (asymmetric only).
    dpop_signing_alg_values_supported: [...DPOP_SIGNING_ALGS],
    // OIDC Discovery §3: the acr values /authorize's acr_values understands, weakest first
    // (domain/sessions/authentication-methods.ts).
    acr_values_supported: [...ACR_VALUES],
    claims_supported: [
      'sub',
      'iss',
      'aud',
      'exp',
      'iat',
      'auth_time',
      'nonce',
      'at_hash',
      'azp',
      'sid',
      'acr',
      'amr',
      'name',
      'given_name',
      'family_name',
      'preferred_username',
      'email',
      'email_verified',
    ],
    access_token_signing_alg_values_supported: ACCESS_TOKEN_ALGS,
    authorization_response_iss_parameter_supported: true,
    // RFC 9101 §10.1 / OIDC Discovery: signed request objects; request_uri only from POST /par.
    request_parameter_supported: true,
    request_object_signing_alg_values_supported: [...REQUEST_OBJECT_ALGS],
    request_uri_parameter_supported: false,
    // OIDC Core §5.5: individual claims for the ID token and UserInfo, essential acr (claims-request.ts).
    claims_parameter_supported: true,
    // OIDC Back-Channel Logout 1.0 §2.1 (sid in ID and logout tokens); no front-channel logout.
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    frontchannel_logout_supported: false,
    // RFC 8414 §2: listed only when dynamic registration (RFC 7591) is on.
    ...(ctx.config.DYNAMIC_REGISTRATION_ENABLED ? { registration_endpoint: `${issuer}/register` } : {}),
  };
  router.get('/.well-known/openid-configuration', cors, (_req, res) => void res.json(metadata));
  router.get('/.well-known/oauth-authorization-server', cors, (_req, res) => void res.json(metadata));
  router.get('/jwks', cors, async (_req, res) => {
    await ctx.keys.refreshIfStale();
    res.set('Cache-Control', 'public, max-age=300').type('application/jwk-set+json').json(ctx.keys.jwks());
  });
  return router;
}
