/**
 * WebAuthn L3 §7.2 step 22 (and §6.1.1): when either the stored or the presented signature counter is
 * non-zero, the presented one must be greater; anything else signals that the credential's private key
 * may exist on two authenticators (a clone). Authenticators that keep no counter send 0 every time and
 * pass. The relying party decides what to do with a signal: we refuse the assertion (and audit it).
 */
export function isSignCountValid(stored: number, presented: number): boolean {
  if (stored === 0 && presented === 0) return true;
  return presented > stored;
}
