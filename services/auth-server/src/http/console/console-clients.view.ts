import { consoleTable } from './console-table.view';
import type { Client } from '../../domain/clients/client';
import { SUPPORTED_GRANT_TYPES } from '../../domain/clients/grant-types';
import { html, type SafeHtml } from '../views/html';
import { csrfField } from '../views/layout.view';
import { actionButton, renderConsole, when, type ConsoleFrame } from './console.view';

export function renderClientList(frame: ConsoleFrame, clients: Client[]): string {
  const { t } = frame.chrome.i18n;
  const rows = clients.map(
    (c) =>
      html`<tr>
        <td><a href="/admin/console/clients/${encodeURIComponent(c.clientId)}">${c.name}</a></td>
        <td><code>${c.clientId}</code></td>
        <td>${c.clientType === 'public' ? t('Public') : t('Confidential')}</td>
        <td>${c.grantTypes.join(', ')}</td>
        <td>${when(c.createdAt)}</td>
      </tr>`,
  );
  const content = html`<p><a class="button" href="/admin/console/clients/new">${t('New client')}</a></p>
    ${consoleTable({
      caption: t('Registered clients'),
      headers: [t('Name'), t('Client ID'), t('Type'), t('Grant types'), t('Created')],
      rows: rows,
      empty: t('No clients yet.'),
    })}`;
  return renderConsole(frame, t('Clients'), content);
}

/** What the client form shows: the stored client, or what the admin typed when it was refused. */
export interface ClientFormValues {
  name: string;
  clientType: string;
  applicationType: string;
  redirectUris: string;
  grantTypes: string[];
  scopes: string;
  tokenFormat: string;
  jwtAlg: string;
  accessTtl: string;
  refreshTtl: string;
  refreshIdleTtl: string;
  /** The edit form's logo URL (client_logos' logo_uri); empty for none. */
  logoUri: string;
}

const seconds = (value: number | null) => (value === null ? '' : String(value));

export function clientFormValues(client: Client, logoUri?: string): ClientFormValues {
  return {
    name: client.name,
    clientType: client.clientType,
    applicationType: client.applicationType,
    redirectUris: client.redirectUris.join('\n'),
    grantTypes: client.grantTypes,
    scopes: client.scopes.join(' '),
    tokenFormat: client.tokenFormat,
    jwtAlg: client.jwtAlg,
    accessTtl: client.accessTokenTtlSeconds === null ? 'none' : String(client.accessTokenTtlSeconds),
    refreshTtl: seconds(client.refreshTokenTtlSeconds),
    refreshIdleTtl: seconds(client.refreshIdleTtlSeconds),
    logoUri: logoUri ?? '',
  };
}

export const EMPTY_CLIENT_FORM: ClientFormValues = {
  name: '',
  clientType: 'confidential',
  applicationType: 'web',
  redirectUris: '',
  grantTypes: ['authorization_code', 'refresh_token'],
  scopes: 'openid profile email',
  tokenFormat: 'opaque',
  jwtAlg: 'HS256',
  accessTtl: '',
  refreshTtl: '',
  refreshIdleTtl: '',
  logoUri: '',
};

function select(id: string, label: string, value: string, options: [string, string][]): SafeHtml {
  return html`<div class="field">
    <label for="${id}">${label}</label>
    <select id="${id}" name="${id}">
      ${options.map(
        ([v, text]) => html`<option value="${v}" ${v === value ? html`selected` : ''}>${text}</option>`,
      )}
    </select>
  </div>`;
}

function textField(id: string, label: string, value: string, hint?: string, required = false): SafeHtml {
  return html`<div class="field">
    <label for="${id}">${label}</label>
    ${hint ? html`<p class="hint muted" id="${id}-hint">${hint}</p>` : ''}
    <input
      id="${id}"
      name="${id}"
      type="text"
      value="${value}"
      ${hint ? html`aria-describedby="${id}-hint"` : ''}
      ${required ? html`required` : ''}
    />
  </div>`;
}

/** The create form (no client yet) or the edit form of `client`. */
export function renderClientForm(frame: ConsoleFrame, values: ClientFormValues, client?: Client): string {
  const { t } = frame.chrome.i18n;
  const action = client
    ? `/admin/console/clients/${encodeURIComponent(client.clientId)}`
    : '/admin/console/clients';
  const lifetimeHint = t('Seconds. Empty: the default; "none": never expires.');
  const form = html`<form
    method="post"
    action="${action}"
    class="console-form"
    ${frame.error ? html`aria-describedby="form-error"` : ''}
  >
    ${csrfField(frame.csrfToken)} ${textField('name', t('Name'), values.name, undefined, true)}
    ${
      client
        ? html`<p>
            ${t('Client ID')}: <code>${client.clientId}</code> ·
            ${client.clientType === 'public' ? t('Public') : t('Confidential')} · ${client.applicationType}
          </p>`
        : html`${select('client_type', t('Client type'), values.clientType, [
            ['confidential', t('Confidential (has a secret)')],
            ['public', t('Public (no secret, PKCE)')],
          ])}
          ${select('application_type', t('Application type'), values.applicationType, [
            ['web', t('Web application')],
            ['native', t('Native application')],
          ])}`
    }
    <div class="field">
      <label for="redirect_uris">${t('Redirect URIs')}</label>
      <p class="hint muted" id="redirect_uris-hint">
        ${t('One per line; https, or loopback http for native apps.')}
      </p>
      <textarea id="redirect_uris" name="redirect_uris" rows="3" aria-describedby="redirect_uris-hint">
${values.redirectUris}</textarea>
    </div>
    <fieldset class="field">
      <legend>${t('Grant types')}</legend>
      ${SUPPORTED_GRANT_TYPES.map(
        (grant) =>
          html`<div class="check">
            <input
              type="checkbox"
              id="grant-${grant}"
              name="grant_types"
              value="${grant}"
              ${values.grantTypes.includes(grant) ? html`checked` : ''}
            />
            <label for="grant-${grant}">${grant}</label>
          </div>`,
      )}
    </fieldset>
    ${textField('scopes', t('Scopes'), values.scopes, t('Separated by spaces.'))}
    ${select('token_format', t('Access token format'), values.tokenFormat, [
      ['opaque', t('Opaque')],
      ['jwt', 'JWT'],
    ])}
    ${select('jwt_alg', t('JWT signing algorithm'), values.jwtAlg, [
      ['HS256', 'HS256'],
      ['RS256', 'RS256'],
      ['ES256', 'ES256'],
    ])}
    ${textField('access_token_ttl_seconds', t('Access token lifetime'), values.accessTtl, lifetimeHint)}
    ${textField('refresh_token_ttl_seconds', t('Refresh token lifetime'), values.refreshTtl, lifetimeHint)}
    ${textField('refresh_idle_ttl_seconds', t('Refresh token idle lifetime'), values.refreshIdleTtl, lifetimeHint)}
    ${
      client
        ? textField(
            'logo_uri',
            t('Logo URL'),
            values.logoUri,
            t('An https URL on an origin the operator allows (UI_LOGO_ORIGINS). Empty: no logo.'),
          )
        : ''
    }
    <div class="actions"><button type="submit">${client ? t('Save') : t('Create client')}</button></div>
  </form>`;
  const manage = client
    ? html`<h2>${t('Manage')}</h2>
        <div class="actions console-actions">
          ${
            client.secretHash
              ? actionButton(
                  frame.csrfToken,
                  `/admin/console/clients/${encodeURIComponent(client.clientId)}/secret`,
                  t('Rotate secret'),
                  { secondary: true },
                )
              : ''
          }
          <a
            class="button secondary-link"
            href="/admin/console/grants?client_id=${encodeURIComponent(client.clientId)}"
            >${t('Grants')}</a
          >
          ${actionButton(
            frame.csrfToken,
            `/admin/console/clients/${encodeURIComponent(client.clientId)}/delete`,
            t('Delete client'),
            { secondary: true },
          )}
        </div>`
    : '';
  return renderConsole(
    frame,
    client ? t('Edit {name}', { name: client.name }) : t('New client'),
    html`${form}${manage}`,
  );
}

/** A secret shown once: after creation or rotation. Nothing stores it but the admin's copy. */
export function renderSecretOnce(
  frame: ConsoleFrame,
  title: string,
  idLabel: string,
  id: string,
  secret: string | undefined,
  back: string,
): string {
  const { t } = frame.chrome.i18n;
  const content = html`<dl class="console-facts">
      <dt>${idLabel}</dt>
      <dd><code id="created-id">${id}</code></dd>
      ${
        secret
          ? html`<dt>${t('Secret')}</dt>
              <dd><code id="created-secret" class="secret">${secret}</code></dd>`
          : ''
      }
    </dl>
    ${
      secret
        ? html`<p class="alert">
            ${t('Copy the secret now: it is shown only this once and cannot be shown again.')}
          </p>`
        : ''
    }
    <p><a href="${back}">${t('Continue')}</a></p>`;
  return renderConsole(frame, title, content);
}
