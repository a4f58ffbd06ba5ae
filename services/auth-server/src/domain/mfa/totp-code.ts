import { authenticator } from 'otplib';

/** RFC 6238 §4: 30-second steps, 6 digits, HMAC-SHA-1 (what every authenticator app implements). */
export const TOTP_STEP_SECONDS = 30;
/** RFC 6238 §5.2: one step either side for clock drift and typing time; not more (each widens guessing). */
const WINDOW = 1;

/** A new shared secret: 160 bits (RFC 4226 §4 recommends 160), base32 as authenticator apps take it. */
export function generateTotpSecret(): string {
  return authenticator.generateSecret(20);
}

/** The otpauth:// URI the QR code carries (the Key Uri Format authenticator apps read). */
export function totpUri(issuer: string, account: string, secret: string): string {
  return authenticator.keyuri(account, issuer, secret);
}

/**
 * The time step a code is valid for at `now` (within the window), or null. The caller still has to accept
 * the step once (TotpRepo.acceptTimeStep): a code is never accepted twice (RFC 6238 §5.2).
 */
export function matchTotpStep(secret: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const epoch = now.getTime();
  const delta = authenticator.clone({ epoch, window: WINDOW }).checkDelta(code, secret);
  if (delta === null) return null;
  return Math.floor(epoch / 1000 / TOTP_STEP_SECONDS) + delta;
}
