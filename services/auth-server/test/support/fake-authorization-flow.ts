import { OAuthError } from '@acme/common';
import {
  AuthorizeError,
  type AuthenticatedUser,
  type AuthorizationFlow,
  type AuthorizationRequest,
} from '../../src/domain/authorize/authorization-flow';

/**
 * TEST DOUBLE of the AuthorizationFlow seam, so the pages can be tested before (and independently of)
 * the real protocol implementation. It checks just enough (client, exact redirect_uri, response_type,
 * scopes, prompt) to drive every branch of the pages, and records approvals. Not product code.
 */
export interface FakeClient {
  clientId: string;
  name: string;
  redirectUris: string[];
  scopes: string[];
}

export interface FakeApproval {
  request: AuthorizationRequest;
  user: AuthenticatedUser;
  approvedScopes: string[];
  code: string;
}

export class FakeAuthorizationFlow implements AuthorizationFlow {
  readonly approvals: FakeApproval[] = [];
  /** When set, the next approve() throws it (as the real flow does when the client vanished). */
  failNextApprove: Error | undefined;

  constructor(
    private readonly issuer: string,
    private readonly clients: FakeClient[],
  ) {}

  async parse(params: Record<string, unknown>): Promise<AuthorizationRequest> {
    const one = (name: string): string | undefined => {
      const value = params[name];
      return typeof value === 'string' ? value : undefined;
    };
    const client = this.clients.find((c) => c.clientId === one('client_id'));
    if (!client) throw new AuthorizeError(new OAuthError('invalid_request', 'unknown client_id'), false);
    const redirectUri = one('redirect_uri');
    if (!redirectUri || !client.redirectUris.includes(redirectUri))
      throw new AuthorizeError(new OAuthError('invalid_request', 'redirect_uri is not registered'), false);
    const state = one('state');
    const back = { redirectUri, responseMode: 'query' as const, ...(state === undefined ? {} : { state }) };
    const duplicate = Object.entries(params).find(([, value]) => Array.isArray(value));
    if (duplicate)
      throw new AuthorizeError(new OAuthError('invalid_request', `duplicate ${duplicate[0]}`), true, back);
    if (one('response_type') !== 'code')
      throw new AuthorizeError(new OAuthError('unsupported_response_type'), true, back);
    const scopes = (one('scope') ?? '').split(' ').filter(Boolean);
    if (scopes.some((scope) => !client.scopes.includes(scope)))
      throw new AuthorizeError(new OAuthError('invalid_scope', 'scope not allowed'), true, back);
    const maxAge = one('max_age');
    const loginHint = one('login_hint');
    return {
      clientId: client.clientId,
      clientName: client.name,
      redirectUri,
      responseType: 'code',
      responseMode: 'query',
      scopes,
      ...(state === undefined ? {} : { state }),
      resources: [],
      prompt: (one('prompt') ?? '').split(' ').filter(Boolean),
      ...(maxAge === undefined ? {} : { maxAge: Number(maxAge) }),
      ...(loginHint === undefined ? {} : { loginHint }),
    };
  }

  async approve(
    request: AuthorizationRequest,
    user: AuthenticatedUser,
    approvedScopes: string[],
  ): Promise<string> {
    const failure = this.failNextApprove;
    this.failNextApprove = undefined;
    if (failure) throw failure;
    const code = `fake-code-${this.approvals.length + 1}`;
    this.approvals.push({ request, user, approvedScopes, code });
    const url = new URL(request.redirectUri);
    url.searchParams.set('code', code);
    if (request.state !== undefined) url.searchParams.set('state', request.state);
    url.searchParams.set('iss', this.issuer);
    return url.toString();
  }

  errorRedirect(
    request: Pick<AuthorizationRequest, 'redirectUri' | 'responseMode' | 'state'>,
    error: OAuthError,
  ): string {
    const url = new URL(request.redirectUri);
    url.searchParams.set('error', error.code);
    if (error.description) url.searchParams.set('error_description', error.description);
    if (request.state !== undefined) url.searchParams.set('state', request.state);
    url.searchParams.set('iss', this.issuer);
    return url.toString();
  }
}
