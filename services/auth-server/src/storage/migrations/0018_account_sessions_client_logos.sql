-- Up Migration
-- The account page's sessions list: when each session was last used (touched at most every few minutes,
-- not on every request) and a coarse description of its browser ("Firefox on Linux"), worked out from the
-- User-Agent at sign-in. Only the description is kept, never the raw header (data minimisation).
ALTER TABLE sessions
  ADD COLUMN last_seen_at timestamptz,
  ADD COLUMN device text CHECK (char_length(device) <= 64);

-- A client's logo on the sign-in and consent pages: a `logo_uri` given through the admin API (shown only
-- from an origin in UI_LOGO_ORIGINS) and/or an image uploaded through the admin API, which wins. Uploads
-- are PNG, JPEG or WebP (checked by their magic bytes, never SVG), at most 256 kB, served from our origin
-- under their content hash. A dynamically registered client's logo_uri stays in client_registrations.
CREATE TABLE client_logos (
  client_id text PRIMARY KEY REFERENCES clients (client_id) ON DELETE CASCADE,
  logo_uri text CHECK (char_length(logo_uri) <= 2000),
  image bytea CHECK (octet_length(image) <= 262144),
  media_type text CHECK (media_type IN ('image/png', 'image/jpeg', 'image/webp')),
  image_hash text,                                -- hex SHA-256 prefix of image: its URL changes with it
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((image IS NULL) = (media_type IS NULL) AND (image IS NULL) = (image_hash IS NULL))
);

-- Down Migration
DROP TABLE client_logos;
ALTER TABLE sessions DROP COLUMN device, DROP COLUMN last_seen_at;
