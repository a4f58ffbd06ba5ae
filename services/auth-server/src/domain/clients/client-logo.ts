import { createHash } from 'node:crypto';
import { OAuthError } from '@acme/common';

/** Uploaded logos are at most this large (the admin API refuses more; the table checks it too). */
export const MAX_LOGO_BYTES = 256 * 1024;

export type LogoMediaType = 'image/png' | 'image/jpeg' | 'image/webp';

/** An uploaded logo as stored: the bytes, their type (from the magic bytes) and the hash in its URL. */
export interface UploadedLogo {
  image: Buffer;
  mediaType: LogoMediaType;
  imageHash: string;
}

/** What the pages need to show a client's logo: the uploaded one's hash, else the registered logo_uri. */
export interface ClientLogoSource {
  upload?: { imageHash: string; mediaType: LogoMediaType };
  /** The admin API's logo_uri, else the dynamic registration's (client_registrations). */
  logoUri?: string;
}

/** The client_logos table (migration 0018; storage/client-logos.repo.ts). */
export interface ClientLogosRepo {
  /** Sets (or with null clears) the logo_uri given through the admin API. */
  saveLogoUri(clientId: string, logoUri: string | null): Promise<void>;
  saveUpload(clientId: string, logo: UploadedLogo): Promise<void>;
  /** Removes the uploaded image; false when there was none. */
  deleteUpload(clientId: string): Promise<boolean>;
  /** The sources for the pages, or undefined when the client has neither. */
  findSource(clientId: string): Promise<ClientLogoSource | undefined>;
  /** The uploaded image when `imageHash` is its current hash (an old URL is gone). */
  findUpload(clientId: string, imageHash: string): Promise<UploadedLogo | undefined>;
}

/**
 * The image type from the first bytes, never from the declared Content-Type: PNG (its 8-byte signature,
 * PNG §5.2), JPEG (SOI FF D8 then a marker FF), WebP (`RIFF` size `WEBP`, RFC 9649 §2). SVG is never
 * accepted: it is a document that can carry script and external references, not a picture.
 */
export function detectLogoType(bytes: Buffer): LogoMediaType | undefined {
  const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (bytes.length > PNG.length && bytes.subarray(0, PNG.length).equals(PNG)) return 'image/png';
  if (bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (
    bytes.length > 12 &&
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'image/webp';
  return undefined;
}

/** Checks an uploaded logo and names it by content (a changed image gets a new URL; caches never go stale). */
export function checkLogoUpload(bytes: Buffer): UploadedLogo {
  if (bytes.length === 0) throw new OAuthError('invalid_request', 'send the logo image as the request body');
  if (bytes.length > MAX_LOGO_BYTES)
    throw new OAuthError('invalid_request', 'the logo is larger than 256 kB', {}, 413);
  const mediaType = detectLogoType(bytes);
  if (!mediaType)
    throw new OAuthError(
      'invalid_request',
      'the logo must be a PNG, JPEG or WebP image (SVG is not accepted)',
      {},
      415,
    );
  return {
    image: bytes,
    mediaType,
    imageHash: createHash('sha256').update(bytes).digest('hex').slice(0, 32),
  };
}

/** An admin-API logo_uri: an absolute https URL (RFC 7591 §2 `logo_uri`), no credentials or fragment. */
export function checkLogoUri(value: unknown): string {
  if (typeof value !== 'string' || value.length > 2000 || !URL.canParse(value))
    throw new OAuthError('invalid_client_metadata', 'logo_uri must be an https URL');
  const url = new URL(value);
  if (url.protocol !== 'https:' || url.username || url.password || url.hash)
    throw new OAuthError(
      'invalid_client_metadata',
      'logo_uri must be an https URL without credentials or fragment',
    );
  return value;
}

/**
 * A logo_uri the operator gives through the admin API or the console (on create and on update): of
 * checkLogoUri's form, and from an origin in UI_LOGO_ORIGINS, since the pages show no other (pageLogoFor):
 * one they would never show is refused rather than stored and silently ignored. A dynamically registered
 * client's logo_uri is not refused (RFC 7591 §2 lets the server ignore it; RPs send one unasked).
 */
export function checkAdminLogoUri(value: unknown, allowedOrigins: readonly string[]): string {
  const logoUri = checkLogoUri(value);
  if (!allowedOrigins.includes(new URL(logoUri).origin))
    throw new OAuthError(
      'invalid_client_metadata',
      'logo_uri must be on an origin listed in UI_LOGO_ORIGINS (the pages show no other)',
    );
  return logoUri;
}

/** The path an uploaded logo is served at: same origin, its content hash in the URL (cached for a year). */
export function uploadedLogoPath(clientId: string, upload: { imageHash: string; mediaType: LogoMediaType }) {
  const extension = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' }[upload.mediaType];
  return `/client-logos/${encodeURIComponent(clientId)}/${upload.imageHash}.${extension}`;
}

/** What a page shows: the image's URL and, for a logo_uri, the origin the page's CSP must allow. */
export interface PageLogo {
  src: string;
  /** Set for a remote logo_uri: the one origin added to the page's img-src. */
  origin?: string;
}

/**
 * The logo a sign-in or consent page shows: an uploaded image wins; else a logo_uri whose origin the
 * operator allowed (UI_LOGO_ORIGINS), so a client cannot make our pages load from anywhere it likes (RFC
 * 9700 §4.2.4: no third-party resources unless the operator chose them); else none.
 */
export function pageLogoFor(
  clientId: string,
  source: ClientLogoSource | undefined,
  allowedOrigins: readonly string[],
): PageLogo | undefined {
  if (source?.upload) return { src: uploadedLogoPath(clientId, source.upload) };
  if (!source?.logoUri || !URL.canParse(source.logoUri)) return undefined;
  const url = new URL(source.logoUri);
  if (url.protocol !== 'https:' || !allowedOrigins.includes(url.origin)) return undefined;
  return { src: url.href, origin: url.origin };
}
