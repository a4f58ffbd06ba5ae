import { consoleTable } from './console-table.view';
import { Router, type Request, type Response } from 'express';
import { isOAuthError } from '@acme/common';
import {
  createResourceServerAsAdmin,
  deleteResourceServer,
  rotateResourceServerSecret,
} from '../../domain/admin/resource-server-admin';
import type { ResourceServer } from '../../domain/clients/resource-server';
import { PageError } from '../page-error';
import { html } from '../views/html';
import { csrfField } from '../views/layout.view';
import { renderSecretOnce } from './console-clients.view';
import type { ConsoleContext } from './console-context';
import { consoleProblem } from './console-problem';
import { field, fieldWords, MAX_FORM_ITEMS } from './console-form';
import { actorOf, frameOf, type ConsoleHandlers } from './console-frame';
import { actionButton, renderConsole, type ConsoleFrame } from './console.view';

const MAX_LISTED = 500;

function renderResourceServers(
  frame: ConsoleFrame,
  list: ResourceServer[],
  typed: { id: string; audience: string; scopes: string },
): string {
  const { t } = frame.chrome.i18n;
  const rows = list.map(
    (rs) =>
      html`<tr>
        <td><code>${rs.id}</code></td>
        <td>${rs.audience}</td>
        <td>${rs.scopes.join(' ')}</td>
        <td class="console-row-actions">
          ${actionButton(
            frame.csrfToken,
            `/admin/console/resource-servers/${encodeURIComponent(rs.id)}/secret`,
            t('Rotate secret'),
            {
              secondary: true,
              ariaLabel: t('Rotate the secret of {id}', { id: rs.id }),
            },
          )}
          ${actionButton(
            frame.csrfToken,
            `/admin/console/resource-servers/${encodeURIComponent(rs.id)}/delete`,
            t('Delete'),
            {
              secondary: true,
              ariaLabel: t('Delete {id}', { id: rs.id }),
            },
          )}
        </td>
      </tr>`,
  );
  const content = html`${consoleTable({
      caption: t('Registered resource servers'),
      headers: [t('ID'), t('Audience'), t('Scopes'), t('Actions')],
      rows: rows,
      empty: t('No resource servers yet.'),
    })}
    <h2>${t('New resource server')}</h2>
    <form
      method="post"
      action="/admin/console/resource-servers"
      class="console-form"
      ${frame.error ? html`aria-describedby="form-error"` : ''}
    >
      ${csrfField(frame.csrfToken)}
      <div class="field">
        <label for="rs-id">${t('ID')}</label>
        <input id="rs-id" name="id" type="text" required value="${typed.id}" />
      </div>
      <div class="field">
        <label for="rs-audience">${t('Audience')}</label>
        <input id="rs-audience" name="audience" type="text" required value="${typed.audience}" />
      </div>
      <div class="field">
        <label for="rs-scopes">${t('Scopes')}</label>
        <input id="rs-scopes" name="scopes" type="text" value="${typed.scopes}" />
      </div>
      <div class="actions"><button type="submit">${t('Create resource server')}</button></div>
    </form>`;
  return renderConsole(frame, t('Resource servers'), content);
}

/** Ids are printable ASCII (ours are base64url); anything else is no id (and never reaches Postgres). */
const PRINTABLE_ID = /^[\x21-\x7e]{1,200}$/;

export function consoleResourceServersRoute(cc: ConsoleContext, { form, guard }: ConsoleHandlers): Router {
  const router = Router();
  const base = '/admin/console/resource-servers';
  const list = async () => (await cc.auth.repos.resourceServers.list()).slice(0, MAX_LISTED);
  const empty = { id: '', audience: '', scopes: '' };

  async function findId(id: string) {
    const rs = PRINTABLE_ID.test(id) ? await cc.auth.repos.resourceServers.findById(id) : undefined;
    if (!rs) throw new PageError(404, 'Not found', 'There is no such resource server.', 'not_found');
    return rs.id;
  }

  router.get(base, guard, async (req, res) => {
    res
      .type('html')
      .send(renderResourceServers(await frameOf(cc, req, res, 'resource-servers'), await list(), empty));
  });

  router.post(base, form, guard, async (req: Request, res: Response) => {
    const { t } = cc.page.chrome(req).i18n;
    const typed = {
      id: field(req, 'id') ?? '',
      audience: field(req, 'audience') ?? '',
      scopes: field(req, 'scopes') ?? '',
    };
    const again = async (error: string) =>
      res
        .status(400)
        .type('html')
        .send(
          renderResourceServers(
            await frameOf(cc, req, res, 'resource-servers', { error }),
            await list(),
            typed,
          ),
        );
    const scopes = fieldWords(req, 'scopes');
    if (scopes.length > MAX_FORM_ITEMS) return again(t('Too many values in one field (at most 50).'));
    try {
      const { resourceServer, secret } = await createResourceServerAsAdmin(cc.auth, await actorOf(cc, req), {
        id: typed.id,
        audience: typed.audience,
        scopes,
      });
      res
        .type('html')
        .send(
          renderSecretOnce(
            await frameOf(cc, req, res, 'resource-servers', { notice: t('Resource server created.') }),
            resourceServer.id,
            t('ID'),
            resourceServer.id,
            secret,
            base,
          ),
        );
    } catch (error) {
      if (isOAuthError(error) && error.status < 500)
        return again(t('The resource server was not saved: {detail}', { detail: consoleProblem(error, t) }));
      throw error;
    }
  });

  router.post(`${base}/:id/secret`, form, guard, async (req, res) => {
    const { t } = cc.page.chrome(req).i18n;
    const id = await findId(req.params.id as string);
    const { secret } = await rotateResourceServerSecret(cc.auth, await actorOf(cc, req), id);
    res.type('html').send(
      renderSecretOnce(
        await frameOf(cc, req, res, 'resource-servers', {
          notice: t('Secret rotated. The old secret no longer works.'),
        }),
        id,
        t('ID'),
        id,
        secret,
        base,
      ),
    );
  });

  router.post(`${base}/:id/delete`, form, guard, async (req, res) => {
    await deleteResourceServer(cc.auth, await actorOf(cc, req), await findId(req.params.id as string));
    res.redirect(303, `${base}?done=deleted`);
  });
  return router;
}
