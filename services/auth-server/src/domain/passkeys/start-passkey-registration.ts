import {
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
} from '@simplewebauthn/server';
import { CHALLENGE_TTL_SECONDS, MAX_PASSKEYS_PER_USER, userHandleOf, type PasskeyDeps } from './passkey-deps';

/**
 * Creation options for a new passkey of the signed-in user (WebAuthn L3 §5.4): a discoverable credential
 * (residentKey required, so it can sign in without a username), user verification required (the passkey
 * alone replaces the password, so it must be two factors itself: the device and its PIN or biometric), no
 * attestation (we trust no list of authenticator models), the user's passkeys excluded (§5.4 step
 * excludeCredentials: one passkey per authenticator). The challenge is kept server side, bound to the
 * browser and the user, for CHALLENGE_TTL_SECONDS. undefined: the user has MAX_PASSKEYS_PER_USER already.
 */
export async function startPasskeyRegistration(
  deps: PasskeyDeps,
  user: { userId: string; username: string },
  bindingHash: Buffer,
): Promise<PublicKeyCredentialCreationOptionsJSON | undefined> {
  const existing = await deps.passkeys.listByUser(user.userId);
  if (existing.length >= MAX_PASSKEYS_PER_USER) return undefined;
  const options = await generateRegistrationOptions({
    rpName: deps.rp.name,
    rpID: deps.rp.id,
    userName: user.username,
    userDisplayName: user.username,
    userID: new Uint8Array(userHandleOf(deps.userHandleKey, user.userId)),
    attestationType: 'none',
    timeout: CHALLENGE_TTL_SECONDS * 1000,
    excludeCredentials: existing.map((passkey) => ({
      id: passkey.credentialId.toString('base64url'),
      transports: passkey.transports as never,
    })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  const now = deps.clock();
  await deps.challenges.put({
    bindingHash,
    purpose: 'registration',
    challenge: options.challenge,
    userId: user.userId,
    expiresAt: new Date(now.getTime() + CHALLENGE_TTL_SECONDS * 1000),
    now,
  });
  return options;
}
