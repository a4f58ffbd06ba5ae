import { passkeyMethod } from '../passkeys/passkey-authentication';
import {
  authenticationOf,
  meetsAcr,
  type Acr,
  type AuthenticationMethod,
} from '../sessions/authentication-methods';

/** What the second-factor page offers for one challenge. */
export interface SecondFactorChoices<P> {
  /** A TOTP code (or a recovery code) can answer. */
  code: boolean;
  /** The user's passkeys that can answer: the assertion's allowCredentials. */
  passkeys: P[];
  /**
   * The user has passkeys that would answer, but this issuer cannot check them (its host is an IP address,
   * which WebAuthn refuses as an RP ID): the page says so rather than leave the user at a dead end.
   */
  passkeysUnusable: boolean;
}

/**
 * The second factors that can finish a challenge: those the user has, this issuer can check, and that
 * reach the level a step-up asks for (authenticationOf is the one rule: after a password a TOTP code gives
 * `urn:acme:acr:mfa`, a device-bound passkey `phrh`, a synced one `phr`). Without a level any factor does.
 * A session that already has `otp` and wants `phr` is offered the passkey alone; one that wants `phrh`
 * only device-bound passkeys.
 */
export function secondFactorChoices<P extends { backupEligible: boolean }>(input: {
  amr: readonly AuthenticationMethod[];
  wantedAcr: Acr | null;
  totp: boolean;
  passkeys: readonly P[];
  passkeysUsable: boolean;
}): SecondFactorChoices<P> {
  const reaches = (method: AuthenticationMethod) =>
    input.wantedAcr === null || meetsAcr(authenticationOf([...input.amr, method]).acr, input.wantedAcr);
  const passkeys = input.passkeys.filter((passkey) => reaches(passkeyMethod(passkey)));
  return {
    code: input.totp && reaches('otp'),
    passkeys: input.passkeysUsable ? passkeys : [],
    passkeysUnusable: !input.passkeysUsable && passkeys.length > 0,
  };
}

/** Whether any choice can finish the challenge here. */
export function canAnswer(choices: SecondFactorChoices<unknown>): boolean {
  return choices.code || choices.passkeys.length > 0;
}
