import { createHmac } from 'node:crypto';
import type { PasskeyChallengesRepo, PasskeysRepo } from './passkey';
import type { RelyingParty } from './relying-party';

/** What the passkey ceremonies need: the two tables, the relying party, the time and the handle key. */
export interface PasskeyDeps {
  passkeys: PasskeysRepo;
  challenges: PasskeyChallengesRepo;
  rp: RelyingParty;
  clock: () => Date;
  /** Key of the user handles (HMAC of the user id). */
  userHandleKey: Buffer;
}

/** A user has at most this many passkeys: enough for every device, bounded for the page and the table. */
export const MAX_PASSKEYS_PER_USER = 10;
/** A challenge lives this long (WebAuthn L3 §15.1 recommends 5 to 10 minutes for a ceremony's timeout). */
export const CHALLENGE_TTL_SECONDS = 300;
/** Longest passkey name (characters) the account page accepts. */
export const MAX_PASSKEY_NAME_LENGTH = 64;

/**
 * The user handle (WebAuthn L3 §14.6.1): opaque, not the user id (the OIDC `sub`) nor a name, so an
 * authenticator's list of credentials tells no one who the user is here; stable per user so the
 * authenticator keeps one passkey per account.
 */
export function userHandleOf(key: Buffer, userId: string): Buffer {
  return createHmac('sha256', key).update(`passkey-user-handle:${userId}`).digest();
}
