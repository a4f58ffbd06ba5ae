import type { Queryable } from './db';
import type { Client, ClientsRepo } from '../domain/clients/client';

const COLUMNS = `client_id, require_pushed_authorization_requests, require_signed_request_object, dpop_bound_access_tokens, secret_hash, secret_ciphertext, name, client_type, application_type, redirect_uris, grant_types,
  response_types, scopes, token_format, jwt_alg, access_token_ttl_seconds, refresh_token_ttl_seconds,
  refresh_idle_ttl_seconds, post_logout_redirect_uris, backchannel_logout_uri,
  backchannel_logout_session_required, token_endpoint_auth_method, jwks, jwks_uri, created_at`;

function toClient(row: Record<string, unknown>): Client {
  return {
    clientId: row.client_id as string,
    secretHash: row.secret_hash as Buffer | null,
    secretCiphertext: row.secret_ciphertext as string | null,
    name: row.name as string,
    clientType: row.client_type as Client['clientType'],
    applicationType: row.application_type as Client['applicationType'],
    redirectUris: row.redirect_uris as string[],
    grantTypes: row.grant_types as string[],
    responseTypes: row.response_types as string[],
    scopes: row.scopes as string[],
    tokenFormat: row.token_format as Client['tokenFormat'],
    jwtAlg: row.jwt_alg as Client['jwtAlg'],
    accessTokenTtlSeconds: row.access_token_ttl_seconds as number | null,
    refreshTokenTtlSeconds: row.refresh_token_ttl_seconds as number | null,
    refreshIdleTtlSeconds: row.refresh_idle_ttl_seconds as number | null,
    postLogoutRedirectUris: row.post_logout_redirect_uris as string[],
    backchannelLogoutUri: row.backchannel_logout_uri as string | null,
    backchannelLogoutSessionRequired: row.backchannel_logout_session_required as boolean,
    requirePushedAuthorizationRequests: row.require_pushed_authorization_requests as boolean,
    requireSignedRequestObject: row.require_signed_request_object as boolean,
    dpopBoundAccessTokens: row.dpop_bound_access_tokens as boolean,
    tokenEndpointAuthMethod: row.token_endpoint_auth_method as Client['tokenEndpointAuthMethod'],
    jwks: row.jwks as Client['jwks'],
    jwksUri: row.jwks_uri as string | null,
    createdAt: row.created_at as Date,
  };
}

export function createClientsRepo(db: Queryable): ClientsRepo {
  return {
    async save(client: Omit<Client, 'createdAt'>): Promise<Client> {
      const { rows } = await db.query(
        `INSERT INTO clients (client_id, require_pushed_authorization_requests, secret_hash, name, client_type, application_type, redirect_uris,
           grant_types, response_types, scopes, token_format, jwt_alg, access_token_ttl_seconds,
           refresh_token_ttl_seconds, refresh_idle_ttl_seconds, post_logout_redirect_uris,
           backchannel_logout_uri, backchannel_logout_session_required, token_endpoint_auth_method, jwks, jwks_uri,
           dpop_bound_access_tokens, require_signed_request_object, secret_ciphertext)
         VALUES ($1,$18,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$19,$20,$21,$22,$23,$24) RETURNING ${COLUMNS}`,
        [
          client.clientId,
          client.secretHash,
          client.name,
          client.clientType,
          client.applicationType,
          client.redirectUris,
          client.grantTypes,
          client.responseTypes,
          client.scopes,
          client.tokenFormat,
          client.jwtAlg,
          client.accessTokenTtlSeconds,
          client.refreshTokenTtlSeconds,
          client.refreshIdleTtlSeconds,
          client.postLogoutRedirectUris,
          client.backchannelLogoutUri,
          client.backchannelLogoutSessionRequired,
          client.requirePushedAuthorizationRequests,
          client.tokenEndpointAuthMethod,
          client.jwks === null ? null : JSON.stringify(client.jwks),
          client.jwksUri,
          client.dpopBoundAccessTokens,
          client.requireSignedRequestObject,
          client.secretCiphertext,
        ],
      );
      return toClient(rows[0]);
    },
    async findById(clientId: string): Promise<Client | undefined> {
      const { rows } = await db.query(
        `SELECT ${COLUMNS} FROM clients WHERE client_id = $1 AND disabled_at IS NULL`,
        [clientId],
      );
      return rows[0] ? toClient(rows[0]) : undefined;
    },
    async list(): Promise<Client[]> {
      const { rows } = await db.query(
        `SELECT ${COLUMNS} FROM clients WHERE disabled_at IS NULL ORDER BY created_at`,
      );
      return rows.map(toClient);
    },
    /** The longest JWT access-token lifetime: how long a retired signing key must stay published. */
    async maxJwtAccessTtl(): Promise<number> {
      const { rows } = await db.query(
        `SELECT coalesce(max(access_token_ttl_seconds), 0) AS ttl FROM clients WHERE token_format = 'jwt'`,
      );
      return Number(rows[0].ttl);
    },
    async updateSecretHash(clientId: string, secretHash: Buffer, secretCiphertext = null): Promise<void> {
      await db.query(
        'UPDATE clients SET secret_hash = $2, secret_ciphertext = $3, updated_at = now() WHERE client_id = $1',
        [clientId, secretHash, secretCiphertext],
      );
    },
    async delete(clientId: string): Promise<boolean> {
      const { rowCount } = await db.query('DELETE FROM clients WHERE client_id = $1', [clientId]);
      return (rowCount ?? 0) > 0;
    },
  };
}
