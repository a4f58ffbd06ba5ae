import { verifyRegistrationResponse, type RegistrationResponseJSON } from '@simplewebauthn/server';
import { MAX_PASSKEYS_PER_USER, userHandleOf, type PasskeyDeps } from './passkey-deps';

export type PasskeyRegistrationResult =
  { ok: true; credentialId: Buffer } | { ok: false; reason: 'challenge' | 'invalid' | 'limit' | 'duplicate' };

/**
 * WebAuthn L3 §7.1 (registering a new credential), the checks the library does not own:
 * the challenge is this browser's and this user's, taken once (step 11 against a value kept server side);
 * type, challenge, origin, RP ID hash, UP and UV flags, the algorithm and the attestation statement by
 * @simplewebauthn/server (steps 7–24); the credential id at most 1023 bytes (step 25, and at least 16)
 * and not registered yet (step 26); the user's count bounded.
 */
export async function finishPasskeyRegistration(
  deps: PasskeyDeps,
  user: { userId: string },
  bindingHash: Buffer,
  response: RegistrationResponseJSON,
  name: string,
): Promise<PasskeyRegistrationResult> {
  const taken = await deps.challenges.take(bindingHash, 'registration', deps.clock());
  if (!taken || taken.userId !== user.userId) return { ok: false, reason: 'challenge' };
  const verified = await verifyRegistrationResponse({
    response,
    expectedChallenge: taken.challenge,
    expectedOrigin: deps.rp.origin,
    expectedRPID: deps.rp.id,
    requireUserVerification: true,
  }).catch(() => undefined);
  if (!verified?.verified) return { ok: false, reason: 'invalid' };
  const info = verified.registrationInfo;
  const credentialId = Buffer.from(info.credential.id, 'base64url');
  if (credentialId.length < 16 || credentialId.length > 1023) return { ok: false, reason: 'invalid' };
  const saved = await deps.passkeys.save(
    {
      credentialId,
      userId: user.userId,
      userHandle: userHandleOf(deps.userHandleKey, user.userId),
      publicKey: Buffer.from(info.credential.publicKey),
      signCount: info.credential.counter,
      transports: response.response.transports ?? [],
      name,
      aaguid: info.aaguid,
      backupEligible: info.credentialDeviceType === 'multiDevice',
      backedUp: info.credentialBackedUp,
    },
    MAX_PASSKEYS_PER_USER,
  );
  return saved === 'saved' ? { ok: true, credentialId } : { ok: false, reason: saved };
}
