import { timingSafeEqual } from 'node:crypto';
import { verifyAuthenticationResponse, type AuthenticationResponseJSON } from '@simplewebauthn/server';
import { isSignCountValid } from './check-sign-count';
import type { PasskeyDeps } from './passkey-deps';

export type PasskeyAssertionResult =
  | {
      ok: true;
      user: { userId: string; username: string };
      credentialId: string;
      userVerified: boolean;
      /** BE flag: a synced passkey (software-held key) rather than one bound to a device. */
      backupEligible: boolean;
    }
  | {
      ok: false;
      reason: 'challenge' | 'unknown_credential' | 'invalid' | 'cloned';
      credentialId: string;
      userId?: string;
    };

/**
 * WebAuthn L3 §7.2 (verifying an authentication assertion). Ours: the challenge is this browser's,
 * taken once before anything else (so a replayed assertion finds none, step 12 against a value kept
 * server side); the credential is registered, its owner enabled and, for a second factor, the user
 * signing in (steps 5–6); the userHandle equals the handle we gave (step 6, discoverable credentials);
 * the signature counter grows (step 22, check-sign-count.ts), checked only after the signature verifies so
 * an unsigned answer cannot raise a clone alarm, and recorded by compare-and-set so two assertions with
 * one counter cannot both pass. The library's: type, challenge, origin (exactly the issuer's), RP ID hash,
 * UP and UV flags, signature (steps 7–21).
 */
export async function finishPasskeyAssertion(
  deps: PasskeyDeps,
  bindingHash: Buffer,
  response: AuthenticationResponseJSON,
  options: { userId?: string; requireUserVerification: boolean },
): Promise<PasskeyAssertionResult> {
  const credentialId = response.id;
  const taken = await deps.challenges.take(bindingHash, 'authentication', deps.clock());
  if (!taken || taken.userId !== (options.userId ?? null)) {
    return { ok: false, reason: 'challenge', credentialId };
  }
  const passkey = await deps.passkeys.findForSignIn(Buffer.from(credentialId, 'base64url'));
  if (!passkey || (options.userId && passkey.userId !== options.userId)) {
    return { ok: false, reason: 'unknown_credential', credentialId };
  }
  const refused = { ok: false as const, credentialId, userId: passkey.userId };
  const handle = response.response.userHandle
    ? Buffer.from(response.response.userHandle, 'base64url')
    : undefined;
  // Usernameless, the authenticator names the account and must name the passkey's; with allowCredentials
  // (a second factor) it may leave the handle out, but one it gives must match too.
  const sameHandle =
    handle !== undefined &&
    handle.length === passkey.userHandle.length &&
    timingSafeEqual(handle, passkey.userHandle);
  if ((handle !== undefined || !options.userId) && !sameHandle) return { ...refused, reason: 'invalid' };
  const verified = await verifyAuthenticationResponse({
    response,
    expectedChallenge: taken.challenge,
    expectedOrigin: deps.rp.origin,
    expectedRPID: deps.rp.id,
    // Counter 0 here: the library compares counters before the signature; we compare after (above).
    credential: { id: credentialId, publicKey: new Uint8Array(passkey.publicKey), counter: 0 },
    requireUserVerification: options.requireUserVerification,
  }).catch(() => undefined);
  if (!verified?.verified) return { ...refused, reason: 'invalid' };
  const info = verified.authenticationInfo;
  if (!isSignCountValid(passkey.signCount, info.newCounter)) return { ...refused, reason: 'cloned' };
  const recorded = await deps.passkeys.recordUse(
    passkey.credentialId,
    passkey.signCount,
    info.newCounter,
    info.credentialBackedUp,
    deps.clock(),
  );
  if (!recorded) return { ...refused, reason: 'cloned' };
  return {
    ok: true,
    user: { userId: passkey.userId, username: passkey.username },
    credentialId,
    userVerified: info.userVerified,
    backupEligible: passkey.backupEligible,
  };
}
