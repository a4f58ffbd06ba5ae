/** The console's home; the JSON admin API has no GET /admin, so the two never meet. */
export const CONSOLE_HOME = '/admin';
/** Every other console page lives under here; the JSON API has no /admin/console/… path either. */
export const CONSOLE_PREFIX = '/admin/console';
/** The console's sign-in; its second step and passkey sign-in are below it. */
export const CONSOLE_LOGIN = `${CONSOLE_PREFIX}/login`;
/** The console's own second-factor step (never /login/second-factor: console-second-factor.route.ts). */
export const CONSOLE_SECOND_FACTOR = `${CONSOLE_LOGIN}/second-factor`;

/**
 * True for the console's own paths: exactly /admin (with or without a trailing slash or a query), or
 * /admin/console and below. Everything else under /admin is the JSON admin API (Bearer ADMIN_TOKEN).
 */
export function isConsolePath(url: string): boolean {
  const path = url.split('?', 1)[0] ?? '';
  return (
    path === CONSOLE_HOME ||
    path === `${CONSOLE_HOME}/` ||
    path === CONSOLE_PREFIX ||
    path.startsWith(`${CONSOLE_PREFIX}/`)
  );
}
