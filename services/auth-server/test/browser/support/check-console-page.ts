import type { Page } from 'playwright-core';
import { checkAtWidths } from './check-at-widths';
import { CONSOLE_WIDTHS } from './page-widths';

/**
 * An admin console page: nothing inline of ours (CSP 'self'; counted before the screenshot's caret
 * style and axe's script add to the DOM), then at 360 and 1280 px no sideways scrolling of the page
 * itself (tables scroll inside their own box), a screenshot in `dir`, no serious axe violation.
 */
export async function checkConsolePage(page: Page, name: string, dir: string): Promise<void> {
  const inline = await page.evaluate(() => document.querySelectorAll('[style], script, style').length);
  expect({ name, inline }).toEqual({ name, inline: 0 });
  await checkAtWidths(page, name, { dir, widths: CONSOLE_WIDTHS, against: 'root' });
}
