import type { Response } from 'express';
import type { PageLogo } from '../domain/clients/client-logo';
import type { PageContext } from './page-context';
import { allowImageOrigin } from './page-headers';

/**
 * The logo of a page that names a client (sign-in, consent, device consent and its result, sign-out),
 * spread into the view: uploaded, else an allowed logo_uri, whose one origin the page's CSP img-src then
 * allows (page-headers.ts). Looked up only when such a page is rendered.
 */
export async function pageLogo(
  ctx: Pick<PageContext, 'clientLogo'>,
  res: Response,
  clientId: string,
): Promise<{ logo?: PageLogo }> {
  const logo = await ctx.clientLogo(clientId);
  if (logo?.origin) allowImageOrigin(res, logo.origin);
  return logo ? { logo } : {};
}
