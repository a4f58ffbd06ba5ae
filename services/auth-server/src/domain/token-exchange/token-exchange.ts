/** RFC 8693 §2.1: the grant_type of a token exchange at /token. */
export const TOKEN_EXCHANGE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** RFC 8693 §3: the one token type this server exchanges and issues. */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** RFC 8693 §2.1: the parameters of a token exchange request, as sent. */
export interface TokenExchangeRequest {
  subject_token?: string;
  subject_token_type?: string;
  actor_token?: string;
  actor_token_type?: string;
  requested_token_type?: string;
  scope?: string;
  /** Every `resource` (RFC 8707) and `audience` value (RFC 8693 §2.1), in request order. */
  targets: string[];
}
