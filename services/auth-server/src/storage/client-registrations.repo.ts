import type { Queryable } from './db';
import type { Client } from '../domain/clients/client';
import type { ClientRegistrationsRepo, ExtraClientMetadata } from '../domain/clients/client-registration';
import { createClientsRepo } from './clients.repo';

export function createClientRegistrationsRepo(db: Queryable): ClientRegistrationsRepo {
  return {
    async consumeInitialToken(tokenHash: Buffer): Promise<boolean> {
      // One statement: two registrations racing for the last use cannot both get it.
      const { rowCount } = await db.query(
        `UPDATE initial_access_tokens SET uses_remaining = uses_remaining - 1
         WHERE token_hash = $1 AND uses_remaining > 0 AND expires_at > now()`,
        [tokenHash],
      );
      return (rowCount ?? 0) > 0;
    },
    async initialTokenUsable(tokenHash: Buffer): Promise<boolean> {
      const { rowCount } = await db.query(
        `SELECT 1 FROM initial_access_tokens
         WHERE token_hash = $1 AND uses_remaining > 0 AND expires_at > now()`,
        [tokenHash],
      );
      return (rowCount ?? 0) > 0;
    },
    async deleteExpiredInitialTokens(before: Date): Promise<number> {
      const { rowCount } = await db.query('DELETE FROM initial_access_tokens WHERE expires_at < $1', [
        before,
      ]);
      return rowCount ?? 0;
    },
    async saveInitialToken(token): Promise<void> {
      await db.query(
        `INSERT INTO initial_access_tokens (id, token_hash, uses_remaining, expires_at) VALUES ($1,$2,$3,$4)`,
        [token.id, token.tokenHash, token.uses, token.expiresAt],
      );
    },
    async save(clientId: string, registrationTokenHash: Buffer, extra: ExtraClientMetadata): Promise<void> {
      await db.query(
        `INSERT INTO client_registrations (client_id, registration_token_hash, extra_metadata)
         VALUES ($1,$2,$3)
         ON CONFLICT (client_id) DO UPDATE SET registration_token_hash = $2, extra_metadata = $3,
           updated_at = now()`,
        [clientId, registrationTokenHash, JSON.stringify(extra)],
      );
    },
    async find(clientId: string) {
      const { rows } = await db.query(
        `SELECT r.registration_token_hash, r.extra_metadata FROM client_registrations r
         JOIN clients c USING (client_id) WHERE r.client_id = $1 AND c.disabled_at IS NULL`,
        [clientId],
      );
      if (!rows[0]) return undefined;
      return {
        registrationTokenHash: rows[0].registration_token_hash as Buffer,
        extra: rows[0].extra_metadata as ExtraClientMetadata,
      };
    },
    async replaceClient(client: Omit<Client, 'createdAt'>): Promise<Client> {
      await db.query(
        `UPDATE clients SET secret_hash = $2, name = $3, client_type = $4, application_type = $5,
           redirect_uris = $6, grant_types = $7, response_types = $8, scopes = $9,
           refresh_token_ttl_seconds = $10, post_logout_redirect_uris = $11, backchannel_logout_uri = $12,
           backchannel_logout_session_required = $13, require_pushed_authorization_requests = $14,
           dpop_bound_access_tokens = $15, token_endpoint_auth_method = $16, jwks = $17, jwks_uri = $18,
           secret_ciphertext = $19,
           updated_at = now()
         WHERE client_id = $1`,
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
          client.refreshTokenTtlSeconds,
          client.postLogoutRedirectUris,
          client.backchannelLogoutUri,
          client.backchannelLogoutSessionRequired,
          client.requirePushedAuthorizationRequests,
          client.dpopBoundAccessTokens,
          client.tokenEndpointAuthMethod,
          client.jwks === null ? null : JSON.stringify(client.jwks),
          client.jwksUri,
          client.secretCiphertext,
        ],
      );
      const updated = await createClientsRepo(db).findById(client.clientId);
      if (!updated) throw new Error(`client ${client.clientId} vanished during its update`);
      return updated;
    },
  };
}
