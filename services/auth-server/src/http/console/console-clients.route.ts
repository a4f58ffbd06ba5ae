import { Router, type Request, type Response } from 'express';
import { isOAuthError } from '@acme/common';
import {
  createClientAsAdmin,
  deleteClient,
  rotateClientSecret,
  updateClient,
} from '../../domain/admin/client-admin';
import { PageError } from '../page-error';
import type { ConsoleContext } from './console-context';
import { consoleProblem } from './console-problem';
import { field, fieldList, fieldSeconds, fieldWords, MAX_FORM_ITEMS } from './console-form';
import { actorOf, frameOf, type ConsoleHandlers } from './console-frame';
import {
  clientFormValues,
  EMPTY_CLIENT_FORM,
  renderClientForm,
  renderClientList,
  renderSecretOnce,
  type ClientFormValues,
} from './console-clients.view';

/** Most clients one list shows (the JSON API lists all; a console page stays a page). */
const MAX_CLIENTS_LISTED = 500;

/** The form's values as typed, for showing them again with the error. */
function typedValues(req: Request): ClientFormValues {
  return {
    name: field(req, 'name') ?? '',
    clientType: field(req, 'client_type') ?? 'confidential',
    applicationType: field(req, 'application_type') ?? 'web',
    redirectUris: field(req, 'redirect_uris') ?? '',
    grantTypes: fieldList(req, 'grant_types'),
    scopes: field(req, 'scopes') ?? '',
    tokenFormat: field(req, 'token_format') ?? 'opaque',
    jwtAlg: field(req, 'jwt_alg') ?? 'HS256',
    accessTtl: field(req, 'access_token_ttl_seconds') ?? '',
    refreshTtl: field(req, 'refresh_token_ttl_seconds') ?? '',
    refreshIdleTtl: field(req, 'refresh_idle_ttl_seconds') ?? '',
    logoUri: field(req, 'logo_uri') ?? '',
  };
}

/**
 * The form as admin API metadata (registerClient validates it). Returns an error message in the page's
 * language for what the form itself can tell (counts, numbers); undefined lifetimes take the defaults.
 */
function metadataOf(req: Request, t: (m: string) => string, creating: boolean) {
  const redirectUris = fieldWords(req, 'redirect_uris');
  const scopes = fieldWords(req, 'scopes');
  const grantTypes = fieldList(req, 'grant_types');
  if (
    redirectUris.length > MAX_FORM_ITEMS ||
    scopes.length > MAX_FORM_ITEMS ||
    grantTypes.length > MAX_FORM_ITEMS
  )
    return { error: t('Too many values in one field (at most 50).') };
  const lifetimes = {
    access_token_ttl_seconds: fieldSeconds(req, 'access_token_ttl_seconds', undefined),
    refresh_token_ttl_seconds: fieldSeconds(req, 'refresh_token_ttl_seconds', undefined),
    refresh_idle_ttl_seconds: fieldSeconds(req, 'refresh_idle_ttl_seconds', null),
  };
  if (Object.values(lifetimes).some((v) => typeof v === 'number' && Number.isNaN(v)))
    return { error: t('Lifetimes are whole numbers of seconds, or "none".') };
  const metadata: Record<string, unknown> = {
    name: field(req, 'name') ?? '',
    redirect_uris: redirectUris,
    grant_types: grantTypes,
    scopes,
    token_format: field(req, 'token_format'),
    jwt_alg: field(req, 'jwt_alg'),
    ...Object.fromEntries(Object.entries(lifetimes).filter(([, v]) => v !== undefined)),
  };
  if (creating) {
    metadata.client_type = field(req, 'client_type');
    metadata.application_type = field(req, 'application_type');
  }
  // The edit form's logo URL (checked as the admin API checks it); emptied, it clears the logo.
  const logoUri = field(req, 'logo_uri');
  if (!creating && logoUri !== undefined) metadata.logo_uri = logoUri === '' ? null : logoUri;
  return { metadata };
}

/** Ids are printable ASCII (ours are base64url); anything else is no id (and never reaches Postgres). */
const PRINTABLE_ID = /^[\x21-\x7e]{1,200}$/;

export function consoleClientsRoute(cc: ConsoleContext, { form, guard }: ConsoleHandlers): Router {
  const router = Router();
  const base = '/admin/console/clients';

  async function findClient(id: string) {
    const client = PRINTABLE_ID.test(id) ? await cc.auth.repos.clients.findById(id) : undefined;
    if (!client) throw new PageError(404, 'Not found', 'There is no such client.', 'not_found');
    return client;
  }

  router.get(base, guard, async (req, res) => {
    const clients = (await cc.auth.repos.clients.list()).slice(0, MAX_CLIENTS_LISTED);
    res.type('html').send(renderClientList(await frameOf(cc, req, res, 'clients'), clients));
  });

  router.get(`${base}/new`, guard, async (req, res) => {
    res.type('html').send(renderClientForm(await frameOf(cc, req, res, 'clients'), EMPTY_CLIENT_FORM));
  });

  router.post(base, form, guard, async (req: Request, res: Response) => {
    const { t } = cc.page.chrome(req).i18n;
    const again = async (error: string) =>
      res
        .status(400)
        .type('html')
        .send(renderClientForm(await frameOf(cc, req, res, 'clients', { error }), typedValues(req)));
    const parsed = metadataOf(req, t, true);
    if (!parsed.metadata) return again(parsed.error);
    try {
      const { client, clientSecret } = await createClientAsAdmin(
        cc.auth,
        await actorOf(cc, req),
        parsed.metadata,
      );
      // 200, not a redirect: the secret is in this answer only (no-store), never in a URL or a later page.
      res
        .type('html')
        .send(
          renderSecretOnce(
            await frameOf(cc, req, res, 'clients', { notice: t('Client created.') }),
            client.name,
            t('Client ID'),
            client.clientId,
            clientSecret,
            `${base}/${encodeURIComponent(client.clientId)}`,
          ),
        );
    } catch (error) {
      if (isOAuthError(error) && error.status < 500)
        return again(t('The client was not saved: {detail}', { detail: consoleProblem(error, t) }));
      throw error;
    }
  });

  router.get(`${base}/:id`, guard, async (req, res) => {
    const client = await findClient(req.params.id as string);
    const logoUri = (await cc.auth.repos.clientLogos.findSource(client.clientId))?.logoUri;
    res
      .type('html')
      .send(
        renderClientForm(await frameOf(cc, req, res, 'clients'), clientFormValues(client, logoUri), client),
      );
  });

  router.post(`${base}/:id`, form, guard, async (req, res) => {
    const { t } = cc.page.chrome(req).i18n;
    const client = await findClient(req.params.id as string);
    const again = async (error: string) =>
      res
        .status(400)
        .type('html')
        .send(renderClientForm(await frameOf(cc, req, res, 'clients', { error }), typedValues(req), client));
    const parsed = metadataOf(req, t, false);
    if (!parsed.metadata) return again(parsed.error);
    try {
      await updateClient(cc.auth, await actorOf(cc, req), client.clientId, parsed.metadata);
    } catch (error) {
      if (isOAuthError(error) && error.status < 500)
        return again(t('The client was not saved: {detail}', { detail: consoleProblem(error, t) }));
      throw error;
    }
    res.redirect(303, `${base}/${encodeURIComponent(client.clientId)}?done=saved`);
  });

  router.post(`${base}/:id/secret`, form, guard, async (req, res) => {
    const { t } = cc.page.chrome(req).i18n;
    const { client, clientSecret } = await rotateClientSecret(
      cc.auth,
      await actorOf(cc, req),
      (await findClient(req.params.id as string)).clientId,
    );
    res.type('html').send(
      renderSecretOnce(
        await frameOf(cc, req, res, 'clients', {
          notice: t('Secret rotated. The old secret no longer works.'),
        }),
        client.name,
        t('Client ID'),
        client.clientId,
        clientSecret,
        `${base}/${encodeURIComponent(client.clientId)}`,
      ),
    );
  });

  router.post(`${base}/:id/delete`, form, guard, async (req, res) => {
    const client = await findClient(req.params.id as string);
    await deleteClient(cc.auth, await actorOf(cc, req), client.clientId);
    res.redirect(303, `${base}?done=deleted`);
  });
  return router;
}
