/** The parts of an authorization request the browser tests vary. */
export interface CodeFlowRequest {
  clientId: string;
  redirectUri: string;
  scope: string;
  state: string;
  /** The PKCE S256 challenge (RFC 7636 §4.2). */
  challenge: string;
  nonce?: string;
  extra?: Record<string, string>;
}

/** `<issuer>/authorize?…` for an authorization code request with PKCE S256 (RFC 6749 §4.1.1, RFC 7636). */
export function codeFlowUrl(issuer: string, request: CodeFlowRequest): string {
  return `${issuer}/authorize?${new URLSearchParams({
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    response_type: 'code',
    scope: request.scope,
    state: request.state,
    ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
    code_challenge: request.challenge,
    code_challenge_method: 'S256',
    ...request.extra,
  })}`;
}
