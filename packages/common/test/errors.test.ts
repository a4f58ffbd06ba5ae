import { ES_ERROR_STATUS, EsError, OAUTH_ERROR_STATUS, OAuthError, esErrorEnvelopeSchema } from '../src';

describe('OAuthError', () => {
  it('carries the status of its code and renders the RFC 6749 §5.2 envelope', () => {
    const error = new OAuthError('invalid_client', 'client authentication failed', {
      'WWW-Authenticate': 'Basic realm="auth-server"',
    });
    expect(error.status).toBe(401);
    expect(error.toBody()).toEqual({
      error: 'invalid_client',
      error_description: 'client authentication failed',
    });
    expect(error.headers['WWW-Authenticate']).toBe('Basic realm="auth-server"');
  });

  it('is immutable; with() returns a changed copy', () => {
    const base = new OAuthError('invalid_grant', 'code expired');
    const copy = base.with({ description: 'code reused' });
    expect(base.description).toBe('code expired');
    expect(copy.description).toBe('code reused');
    expect(Object.isFrozen(base)).toBe(true);
  });

  it('with({ status }) copies the error under the status an endpoint answers it with', () => {
    // access_denied is 403 at a protected endpoint, 400 as a token error response (RFC 8628 §3.5).
    const denied = new OAuthError('access_denied', 'the user denied the request');
    const atToken = denied.with({ status: 400 });
    expect([denied.status, atToken.status]).toEqual([403, 400]);
    expect(atToken.toBody()).toEqual(denied.toBody());
    expect(atToken.with({ description: 'again' }).status).toBe(400);
  });

  it('maps every code to a 4xx or 5xx status', () => {
    for (const status of Object.values(OAUTH_ERROR_STATUS)) expect(status).toBeGreaterThanOrEqual(400);
  });
});

describe('EsError', () => {
  it('renders index_not_found_exception exactly as Elasticsearch 8 does', () => {
    const error = new EsError('index_not_found_exception', 'no such index [missing]', {
      metadata: {
        'resource.type': 'index_or_alias',
        'resource.id': 'missing',
        index_uuid: '_na_',
        index: 'missing',
      },
    });
    const cause = {
      type: 'index_not_found_exception',
      reason: 'no such index [missing]',
      'resource.type': 'index_or_alias',
      'resource.id': 'missing',
      index_uuid: '_na_',
      index: 'missing',
    };
    expect(error.toBody()).toEqual({ error: { root_cause: [cause], ...cause }, status: 404 });
    expect(esErrorEnvelopeSchema.parse(error.toBody())).toBeTruthy();
  });

  it('puts caused_by on the error but keeps root_cause to the Elasticsearch exception', () => {
    const error = new EsError(
      'document_parsing_exception',
      '[1:8] failed to parse field [n] of type [byte]',
      {
        causedBy: { type: 'illegal_argument_exception', reason: 'Value [300] is out of range for a byte' },
      },
    );
    const body = error.toBody();
    expect(body.status).toBe(400);
    expect(body.error.caused_by).toEqual({
      type: 'illegal_argument_exception',
      reason: 'Value [300] is out of range for a byte',
    });
    expect(body.error.root_cause).toEqual([
      { type: 'document_parsing_exception', reason: '[1:8] failed to parse field [n] of type [byte]' },
    ]);
  });

  it('lets security_exception answer 403 while its table default is 401', () => {
    expect(ES_ERROR_STATUS.security_exception).toBe(401);
    expect(new EsError('security_exception', 'action is unauthorized', { status: 403 }).toBody().status).toBe(
      403,
    );
  });
});
