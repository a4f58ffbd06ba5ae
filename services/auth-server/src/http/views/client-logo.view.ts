import type { PageLogo } from '../../domain/clients/client-logo';
import { html, type SafeHtml } from './html';

/**
 * The client's logo on the sign-in and consent pages, its name as the alt text (WCAG 1.1.1: the image
 * says who asks). Fixed size in the stylesheet (`.client-logo`), so a large image cannot push the form away.
 */
export function renderClientLogo(logo: PageLogo | undefined, clientName: string | undefined): SafeHtml | '' {
  if (!logo || !clientName) return '';
  return html`<img class="client-logo" src="${logo.src}" alt="${clientName}" width="64" height="64" />`;
}
