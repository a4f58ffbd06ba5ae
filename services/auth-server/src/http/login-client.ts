import type { Response } from 'express';
import { AuthorizeError } from '../domain/authorize/authorization-flow';
import type { PageLogo } from '../domain/clients/client-logo';
import { fromQueryString, LOGIN_MARK_PARAM } from './authorize-params';
import type { PageContext } from './page-context';
import { pageLogo } from './page-logo';

/**
 * The application a login form continues to (its return_to is an /authorize continuation): its name and
 * logo, for the login page rendered again after an error, as the first render showed them. The request
 * is parsed afresh (nothing from the form is shown unchecked: an unknown client or a broken request shows
 * no application at all); anything else than an /authorize continuation names none.
 */
export async function loginClientOf(
  ctx: Pick<PageContext, 'flow' | 'clientLogo'>,
  res: Response,
  returnTo: string,
): Promise<{ clientName?: string; logo?: PageLogo }> {
  if (!returnTo.startsWith('/authorize?')) return {};
  const { [LOGIN_MARK_PARAM]: _mark, ...params } = fromQueryString(returnTo.slice('/authorize?'.length));
  try {
    const request = await ctx.flow.parse(params);
    return { clientName: request.clientName, ...(await pageLogo(ctx, res, request.clientId)) };
  } catch (error) {
    if (error instanceof AuthorizeError) return {};
    throw error;
  }
}
