import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { OAuthError } from '@acme/common';
import type { AuthContext } from '../domain/auth-context';
import { checkLogoUpload, MAX_LOGO_BYTES, uploadedLogoPath } from '../domain/clients/client-logo';

/**
 * PUT /admin/clients/:id/logo (the image as the raw body: PNG, JPEG or WebP by its magic bytes, at most
 * 256 kB; SVG refused) and DELETE /admin/clients/:id/logo. Mounted inside the admin router, behind its
 * Bearer check. An uploaded logo wins over the client's logo_uri on the pages.
 */
export function adminClientLogoRoute(ctx: AuthContext): Router {
  const router = express.Router();
  // Any declared type: the bytes decide. One byte over the limit is enough to refuse.
  const raw = express.raw({ type: () => true, limit: MAX_LOGO_BYTES + 1 });
  const body = (req: Request, res: Response, next: NextFunction) =>
    raw(req, res, (error?: unknown) => {
      if ((error as { type?: string } | undefined)?.type === 'entity.too.large')
        return next(new OAuthError('invalid_request', 'the logo is larger than 256 kB', {}, 413));
      next(error);
    });

  router.put('/admin/clients/:id/logo', body, async (req, res) => {
    const clientId = String(req.params.id);
    if (!(await ctx.repos.clients.findById(clientId))) throw new OAuthError('not_found', 'no such client');
    const logo = checkLogoUpload(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
    await ctx.repos.clientLogos.saveUpload(clientId, logo);
    ctx.audit('client_logo_uploaded', { clientId, bytes: logo.image.length, mediaType: logo.mediaType });
    res.status(200).json({ logo_url: uploadedLogoPath(clientId, logo), media_type: logo.mediaType });
  });

  router.delete('/admin/clients/:id/logo', async (req, res) => {
    const clientId = String(req.params.id);
    if (!(await ctx.repos.clientLogos.deleteUpload(clientId)))
      throw new OAuthError('not_found', 'no uploaded logo for this client');
    ctx.audit('client_logo_deleted', { clientId });
    res.status(204).end();
  });
  return router;
}
