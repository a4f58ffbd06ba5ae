/**
 * Why introspection could not give an answer. The caller must fail closed on it (search-store answers 503):
 * without an answer from the authorization server no token is trusted.
 */
export type IntrospectionFailure =
  | 'unreachable'
  | 'timeout'
  | 'server_error'
  | 'credentials_rejected'
  | 'unexpected_status'
  | 'malformed_response';

export class IntrospectionError extends Error {
  constructor(
    readonly failure: IntrospectionFailure,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'IntrospectionError';
  }
}

export function isIntrospectionError(value: unknown): value is IntrospectionError {
  return value instanceof IntrospectionError;
}
