/**
 * Remembered consent covers a request when every requested scope was approved before by this user for
 * this client (OIDC Core §3.1.2.4: the AS may skip the consent page for an earlier, equal or wider grant).
 * `prompt=consent` bypasses this check in the route.
 */
export function isConsentRemembered(
  requested: readonly string[],
  remembered: readonly string[] | null,
): boolean {
  if (remembered === null) return false;
  const approved = new Set(remembered);
  return requested.every((scope) => approved.has(scope));
}
