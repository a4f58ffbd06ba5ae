import { join } from 'node:path';
import type { Page, ViewportSize } from 'playwright-core';
import { seriousAxeViolations } from './serious-axe-violations';

export interface WidthsCheck {
  /** Where the screenshots go (artifactsDir). */
  dir: string;
  widths: ViewportSize[];
  /**
   * What sideways scrolling is measured against: the window (`innerWidth`), or the root's client box
   * (`clientWidth`, the admin console's, whose tables scroll inside their own box).
   */
  against: 'window' | 'root';
}

/**
 * The page at each width: no horizontal scrolling, a full-page screenshot named `<name>-<width>.png`,
 * no serious or critical axe violation. The page's viewport is put back afterwards.
 */
export async function checkAtWidths(page: Page, name: string, { dir, widths, against }: WidthsCheck) {
  const before = page.viewportSize();
  for (const viewport of widths) {
    await page.setViewportSize(viewport);
    const { width } = viewport;
    const overflow = await page.evaluate(
      (box) =>
        document.documentElement.scrollWidth -
        (box === 'window' ? window.innerWidth : document.documentElement.clientWidth),
      against,
    );
    expect({ name, width, overflow }).toEqual({ name, width, overflow: 0 });
    await page.screenshot({ path: join(dir, `${name}-${width}.png`), fullPage: true });
    const serious = await seriousAxeViolations(page);
    expect({ name, width, serious }).toEqual({ name, width, serious: [] });
  }
  if (before) await page.setViewportSize(before);
}
