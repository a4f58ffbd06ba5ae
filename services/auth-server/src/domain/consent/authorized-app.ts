import type { AuthorizedAppStore } from './revoke-authorized-app';

export interface AuthorizedApp {
  clientId: string;
  clientName: string;
  /** Union of the scopes in the remembered consent and the active grants. */
  scopes: string[];
  /** The earliest consent or grant still in force. */
  authorizedAt: Date;
}

export interface AccountGrantsRepo extends AuthorizedAppStore {
  /** Apps the user authorized: a remembered consent or an unrevoked grant, one row per client. */
  listAuthorizedApps(userId: string): Promise<AuthorizedApp[]>;
}
