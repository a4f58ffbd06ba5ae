import type { OAuthError } from '@acme/common';
import type { Authentication } from '../sessions/authentication-methods';
import type { ClaimsRequest } from './claims-request';

/**
 * The seam between the protocol (parsing and completing an authorization request, RFC 6749 §4.1/§4.2,
 * OIDC Core §3) and the pages (login, consent) that put a person in the middle of it.
 */
export interface AuthorizationRequest {
  clientId: string;
  clientName: string;
  redirectUri: string;
  /** 'code', 'token' or 'id_token token' (implicit only for clients allowed it). */
  responseType: string;
  responseMode: 'query' | 'fragment';
  scopes: string[];
  state?: string;
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: 'S256';
  /** RFC 8707 resource indicators. */
  resources: string[];
  /** OIDC prompt values: none, login, consent, select_account. */
  prompt: string[];
  maxAge?: number;
  /** OIDC Core §3.1.2.1 acr_values, in order of preference (authentication-methods.ts reads them). */
  acrValues?: string[];
  loginHint?: string;
  /** OIDC Core §5.5 `claims`: individual claims for the ID token and UserInfo, an essential acr. */
  claims?: ClaimsRequest;
  /** OIDC Core §3.1.2.1 `ui_locales` as the request carried it (a pushed or signed one's too): the pages' language. */
  uiLocales?: string;
  /** RFC 9449 §10: the code is bound to this DPoP key (RFC 7638 thumbprint). */
  dpopJkt?: string;
  /** RFC 9126: the request came from POST /par; approving it uses it up. */
  pushedRequestHash?: Buffer;
  /** RFC 9101: the request object's `jti`; approving the request uses it up. */
  requestObjectJti?: RequestObjectJti;
}

/** A request object's `jti` as the used-jti store keys it, and how long it must be remembered. */
export interface RequestObjectJti {
  key: string;
  ttlSeconds: number;
}

/**
 * An error found while parsing. `redirectable` false means the client or redirect_uri could not be
 * trusted: render an error page, never redirect (RFC 6749 §4.1.2.1, RFC 9700 §4.11.2).
 */
export class AuthorizeError extends Error {
  constructor(
    readonly error: OAuthError,
    readonly redirectable: boolean,
    /** Present when redirectable: where and how to send the error. */
    readonly request?: Pick<AuthorizationRequest, 'redirectUri' | 'responseMode' | 'state'>,
  ) {
    super(error.message);
    this.name = 'AuthorizeError';
  }
}

export interface AuthenticatedUser {
  userId: string;
  authTime: Date;
  /** The browser session's OIDC `sid`: recorded on the grant, carried in its ID tokens. */
  sid?: string;
  /** How the user signed in (the session's amr/acr): recorded on the grant, carried in its ID tokens. */
  authentication?: Authentication;
}

export interface AuthorizationFlow {
  /** Validates the /authorize parameters; throws AuthorizeError. */
  parse(params: Record<string, unknown>): Promise<AuthorizationRequest>;
  /** The user approved these scopes: issue the code (or implicit tokens) and return the redirect URL
   *  carrying code/state/iss (RFC 9207) in the query or fragment. */
  approve(request: AuthorizationRequest, user: AuthenticatedUser, approvedScopes: string[]): Promise<string>;
  /** The redirect URL for an error (`access_denied` on deny, `login_required` for prompt=none, …). */
  errorRedirect(
    request: Pick<AuthorizationRequest, 'redirectUri' | 'responseMode' | 'state'>,
    error: OAuthError,
  ): string;
}
