import type { AuthContext } from '../auth-context';
import type { AuthenticatedUser } from '../authorize/authorization-flow';
import { formatUserCode, hashUserCode } from './user-code';

/** A pending device authorization as the user-code page shows it (RFC 8628 §3.3). */
export interface DeviceRequest {
  /** XXXX-XXXX, for the user to compare with the device (§5.4). */
  userCode: string;
  clientId: string;
  clientName: string;
  scopes: string[];
}

/**
 * The seam between the device grant and the page that puts a person in the middle of it (as
 * AuthorizationFlow is for /authorize). Codes come in normalized (user-code.ts); only a pending,
 * unexpired request can be found or decided.
 */
export interface DeviceFlow {
  find(userCode: string): Promise<DeviceRequest | undefined>;
  /** Records the user's approval as a grant; false when the request is no longer pending. */
  approve(userCode: string, user: AuthenticatedUser): Promise<boolean>;
  deny(userCode: string, user: AuthenticatedUser): Promise<boolean>;
}

export function createDeviceFlow(ctx: AuthContext): DeviceFlow {
  const keyOf = (userCode: string) => hashUserCode(ctx.hasher, userCode);
  return {
    async find(userCode) {
      const found = await ctx.repos.deviceAuthorizations.findPending(keyOf(userCode));
      return (
        found && {
          userCode: formatUserCode(userCode),
          clientId: found.clientId,
          clientName: found.clientName,
          scopes: found.scopes,
        }
      );
    },
    // The grant is made now, as /authorize makes it on approval: the account page lists the device at
    // once, and revoking it (there or by the admin API) before the device's next poll refuses the tokens.
    approve(userCode, user) {
      return ctx.transaction(async (repos) => {
        const pending = await repos.deviceAuthorizations.findPending(keyOf(userCode), { lock: true });
        if (!pending) return false;
        const grant = await repos.grants.save({
          clientId: pending.clientId,
          userId: user.userId,
          scopes: pending.scopes,
          resources: pending.resources,
          authTime: user.authTime,
          authentication: user.authentication ?? null,
        });
        await repos.deviceAuthorizations.approve(pending.userCodeHash, {
          userId: user.userId,
          grantId: grant.grantId,
          authTime: user.authTime,
        });
        return true;
      });
    },
    deny: (userCode, user) => ctx.repos.deviceAuthorizations.deny(keyOf(userCode), user.userId),
  };
}
