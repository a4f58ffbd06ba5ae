import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Router } from 'express';

/** src/http/assets from src/http (ts-jest) and from dist/http (the build): both are two levels down. */
const ASSETS_DIR = join(__dirname, '..', '..', 'src', 'http', 'assets');

/** An operator stylesheet is CSS, not a site: anything larger is a mistake (or an attack on memory). */
export const MAX_THEME_BYTES = 256 * 1024;

interface Stylesheet {
  href: string;
  css: Buffer;
}

function stylesheet(name: string, css: Buffer): Stylesheet {
  // The content hash in the name: cached for a year, and a new version is a new URL.
  const hash = createHash('sha256').update(css).digest('hex').slice(0, 12);
  return { href: `/assets/${name}.${hash}.css`, css };
}

/** The built-in design (assets/auth.css), read once. */
export const BUILT_IN_STYLESHEET = stylesheet('auth', readFileSync(join(ASSETS_DIR, 'auth.css')));

/** The passkey ceremonies' browser side (assets/passkeys.js), read once: the pages' only script. */
export const PASSKEYS_SCRIPT = ((js: Buffer) => {
  const hash = createHash('sha256').update(js).digest('hex').slice(0, 12);
  return { href: `/assets/passkeys.${hash}.js`, js };
})(readFileSync(join(ASSETS_DIR, 'passkeys.js')));

export interface PageAssets {
  /** The stylesheets every page links, in order: the built-in one, then the operator's. */
  stylesheets: string[];
  /** Serves them from the pages' own origin (CSP `default-src 'self'`: no third-party assets). */
  router: Router;
}

/**
 * The pages' stylesheets: the built-in design and, when UI_THEME_CSS_FILE names one, the operator's,
 * read once at start-up (so a theme is a deploy, like the rest of the configuration).
 */
export function loadPageAssets(themeFile?: string): PageAssets {
  const sheets = [BUILT_IN_STYLESHEET];
  if (themeFile) {
    const size = statSync(themeFile).size;
    if (size > MAX_THEME_BYTES) {
      throw new Error(`UI_THEME_CSS_FILE is ${size} bytes; at most ${MAX_THEME_BYTES}`);
    }
    sheets.push(stylesheet('theme', readFileSync(themeFile)));
  }
  const byHref = new Map(
    sheets.map((sheet) => [sheet.href, { body: sheet.css, type: 'text/css; charset=utf-8' }]),
  );
  byHref.set(PASSKEYS_SCRIPT.href, { body: PASSKEYS_SCRIPT.js, type: 'text/javascript; charset=utf-8' });
  const router = Router();
  router.get('/assets/:file', (req, res, next) => {
    const asset = byHref.get(`/assets/${req.params.file}`);
    if (!asset) return next();
    res
      .status(200)
      .set({
        'Content-Type': asset.type,
        'Cache-Control': 'public, max-age=31536000, immutable',
        'X-Content-Type-Options': 'nosniff',
        'Cross-Origin-Resource-Policy': 'same-origin',
      })
      .send(asset.body);
  });
  return { stylesheets: sheets.map((sheet) => sheet.href), router };
}
