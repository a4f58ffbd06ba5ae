/**
 * The OAuth error envelope `{error, error_description}` (RFC 6749 §5.2, RFC 6750 §3.1, RFC 7009, OIDC Core §3.1.2.6)
 * plus the product spec's self-encoded-token codes (`expired`, `invalid`, `unauthorized`).
 * Every code has a status here; adding a code without one does not compile.
 */
export const OAUTH_ERROR_STATUS = {
  invalid_request: 400,
  // OIDC Core §3.1.2.6: a request_uri (RFC 9126's pushed request) that is unknown, expired or used.
  invalid_request_uri: 400,
  // RFC 9101 §6.3 / OIDC Core §6.4: a request object that fails its checks; a request_uri we do not fetch.
  invalid_request_object: 400,
  request_uri_not_supported: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  unsupported_token_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  access_denied: 403,
  // RFC 8628 §3.5: device authorization polling answers at the token endpoint (RFC 6749 §5.2: 400).
  authorization_pending: 400,
  slow_down: 400,
  expired_token: 400,
  login_required: 400,
  consent_required: 400,
  interaction_required: 400,
  // OpenID Connect Core Unmet Authentication Requirements 1.0: the requested acr cannot be met (auth-server MFA).
  unmet_authentication_requirements: 400,
  invalid_token: 401,
  // RFC 9449 §5 (token endpoint: 400) and §7.1 (a resource server answers 401, with({ status })).
  invalid_dpop_proof: 400,
  // RFC 9449 §8: the proof lacks the server's current nonce; the answer carries DPoP-Nonce.
  use_dpop_nonce: 400,
  insufficient_scope: 403,
  expired: 401,
  invalid: 401,
  unauthorized: 401,
  not_found: 404,
  conflict: 409,
  too_many_requests: 429,
  server_error: 500,
  temporarily_unavailable: 503,
} as const satisfies Record<string, number>;

export type OAuthErrorCode = keyof typeof OAUTH_ERROR_STATUS;

export interface OAuthErrorBody {
  error: OAuthErrorCode;
  error_description?: string;
}

/**
 * An immutable OAuth error value; add detail by copying (`with`). The status is the code's from the table
 * unless an endpoint's spec says otherwise: `access_denied` is 403 at a protected endpoint but 400 in a
 * token error response (RFC 6749 §5.2, RFC 8628 §3.5), so `with({ status })` copies it with another.
 */
export class OAuthError extends Error {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly code: OAuthErrorCode,
    readonly description?: string,
    headers: Record<string, string> = {},
    status: number = OAUTH_ERROR_STATUS[code],
  ) {
    super(description ? `${code}: ${description}` : code);
    this.name = 'OAuthError';
    this.status = status;
    this.headers = Object.freeze({ ...headers });
    Object.freeze(this);
  }

  with(change: { description?: string; headers?: Record<string, string>; status?: number }): OAuthError {
    return new OAuthError(
      this.code,
      change.description ?? this.description,
      { ...this.headers, ...(change.headers ?? {}) },
      change.status ?? this.status,
    );
  }

  toBody(): OAuthErrorBody {
    return this.description === undefined
      ? { error: this.code }
      : { error: this.code, error_description: this.description };
  }
}

export function isOAuthError(value: unknown): value is OAuthError {
  return value instanceof OAuthError;
}
