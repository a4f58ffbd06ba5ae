import type { Queryable } from './db';
import type { ClientLogosRepo, LogoMediaType } from '../domain/clients/client-logo';

/** client_logos (migration 0018), with a dynamically registered client's logo_uri from client_registrations. */
export function createClientLogosRepo(db: Queryable): ClientLogosRepo {
  return {
    async saveLogoUri(clientId, logoUri) {
      await db.query(
        `INSERT INTO client_logos (client_id, logo_uri) VALUES ($1, $2)
         ON CONFLICT (client_id) DO UPDATE SET logo_uri = EXCLUDED.logo_uri, updated_at = now()`,
        [clientId, logoUri],
      );
    },
    async saveUpload(clientId, logo) {
      await db.query(
        `INSERT INTO client_logos (client_id, image, media_type, image_hash) VALUES ($1, $2, $3, $4)
         ON CONFLICT (client_id) DO UPDATE SET image = EXCLUDED.image, media_type = EXCLUDED.media_type,
           image_hash = EXCLUDED.image_hash, updated_at = now()`,
        [clientId, logo.image, logo.mediaType, logo.imageHash],
      );
    },
    async deleteUpload(clientId) {
      const { rowCount } = await db.query(
        `UPDATE client_logos SET image = NULL, media_type = NULL, image_hash = NULL, updated_at = now()
          WHERE client_id = $1 AND image IS NOT NULL`,
        [clientId],
      );
      return (rowCount ?? 0) > 0;
    },
    async findSource(clientId) {
      const { rows } = await db.query<{
        image_hash: string | null;
        media_type: LogoMediaType | null;
        logo_uri: string | null;
      }>(
        `SELECT l.image_hash, l.media_type,
                COALESCE(l.logo_uri, r.extra_metadata ->> 'logo_uri') AS logo_uri
           FROM clients c
           LEFT JOIN client_logos l ON l.client_id = c.client_id
           LEFT JOIN client_registrations r ON r.client_id = c.client_id
          WHERE c.client_id = $1`,
        [clientId],
      );
      const row = rows[0];
      if (!row || (row.image_hash === null && row.logo_uri === null)) return undefined;
      return {
        ...(row.image_hash !== null && row.media_type !== null
          ? { upload: { imageHash: row.image_hash, mediaType: row.media_type } }
          : {}),
        ...(row.logo_uri !== null ? { logoUri: row.logo_uri } : {}),
      };
    },
    async findUpload(clientId, imageHash) {
      const { rows } = await db.query<{ image: Buffer; media_type: LogoMediaType; image_hash: string }>(
        `SELECT image, media_type, image_hash FROM client_logos
          WHERE client_id = $1 AND image_hash = $2 AND image IS NOT NULL`,
        [clientId, imageHash],
      );
      const row = rows[0];
      return row ? { image: row.image, mediaType: row.media_type, imageHash: row.image_hash } : undefined;
    },
  };
}
