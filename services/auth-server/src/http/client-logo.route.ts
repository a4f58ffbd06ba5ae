import { Router } from 'express';
import type { ClientLogosRepo } from '../domain/clients/client-logo';

const FILE = /^([0-9a-f]{32})\.(png|jpg|webp)$/;

/**
 * GET /client-logos/:clientId/:hash.:ext: an uploaded client logo from our own origin (so the pages' CSP
 * stays img-src 'self'). The content hash is in the URL, so it is cached for a year and a new upload
 * gets a new URL; an old or unknown hash is a 404. The stored media type (from the magic bytes) is sent
 * with nosniff, and a CSP that runs nothing should the image be opened as a document.
 */
export function clientLogoRoute(logos: ClientLogosRepo): Router {
  const router = Router();
  router.get('/client-logos/:clientId/:file', async (req, res, next) => {
    const match = FILE.exec(req.params.file);
    const logo = match ? await logos.findUpload(req.params.clientId, match[1]!) : undefined;
    if (!logo || uploadedExtension(logo.mediaType) !== match?.[2]) return next();
    res
      .status(200)
      .set({
        'Content-Type': logo.mediaType,
        'Cache-Control': 'public, max-age=31536000, immutable',
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "default-src 'none'; sandbox",
        'Cross-Origin-Resource-Policy': 'same-origin',
      })
      .send(logo.image);
  });
  return router;
}

function uploadedExtension(mediaType: string): string {
  return mediaType === 'image/png' ? 'png' : mediaType === 'image/jpeg' ? 'jpg' : 'webp';
}
