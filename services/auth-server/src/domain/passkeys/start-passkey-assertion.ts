import {
  generateAuthenticationOptions,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import type { Passkey } from './passkey';
import { CHALLENGE_TTL_SECONDS, type PasskeyDeps } from './passkey-deps';

/**
 * Request options for navigator.credentials.get (WebAuthn L3 §5.5). Without a user (sign-in instead of the
 * password) allowCredentials is empty: the authenticator offers its discoverable credentials for our RP
 * ID and the user picks one (usernameless). With a user (a second factor after the password) it lists
 * that user's passkeys, or those of them given in `credentials`. The challenge is kept server side, bound
 * to the browser, for CHALLENGE_TTL_SECONDS, and never past `notAfter` (the step it belongs to).
 */
export async function startPasskeyAssertion(
  deps: PasskeyDeps,
  bindingHash: Buffer,
  options: {
    userId?: string;
    userVerification: 'required' | 'preferred';
    credentials?: readonly Passkey[];
    notAfter?: Date;
  },
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const allow = options.userId
    ? (options.credentials ?? (await deps.passkeys.listByUser(options.userId)))
    : [];
  const request = await generateAuthenticationOptions({
    rpID: deps.rp.id,
    userVerification: options.userVerification,
    timeout: CHALLENGE_TTL_SECONDS * 1000,
    allowCredentials: allow.map((passkey) => ({
      id: passkey.credentialId.toString('base64url'),
      transports: passkey.transports as never,
    })),
  });
  const now = deps.clock();
  const expiresAt = now.getTime() + CHALLENGE_TTL_SECONDS * 1000;
  await deps.challenges.put({
    bindingHash,
    purpose: 'authentication',
    challenge: request.challenge,
    userId: options.userId ?? null,
    expiresAt: new Date(Math.min(expiresAt, options.notAfter?.getTime() ?? expiresAt)),
    now,
  });
  return request;
}
