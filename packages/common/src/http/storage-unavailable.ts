/**
 * Whether an error means the database cannot be reached right now (refused or dropped connection, server
 * shutting down or starting, connection slots full) rather than a bug: such requests get a 503 the client
 * may retry, not a 500. Codes: Node's socket errors, and Postgres SQLSTATE class 08 (connection exception),
 * 57P01–57P03 (admin/crash shutdown, cannot connect now), 53300 (too many connections).
 */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection terminated unexpectedly',
];

export function isStorageUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 3 || typeof error !== 'object' || error === null) return false;
  const { code, message, errors, cause } = error as {
    code?: unknown;
    message?: unknown;
    errors?: unknown;
    cause?: unknown;
  };
  if (
    typeof code === 'string' &&
    (SOCKET_CODES.has(code) || SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))
  )
    return true;
  if (typeof message === 'string' && MESSAGES.some((text) => message.startsWith(text))) return true;
  if (Array.isArray(errors) && errors.some((inner) => isStorageUnavailable(inner, depth + 1))) return true;
  return cause !== undefined && isStorageUnavailable(cause, depth + 1);
}

/**
 * Input Postgres cannot hold or evaluate (a NUL character in text: 22021/22P05; a value nested past its
 * stack: 54001): the request's fault, answered 400, never a 500.
 */
const INPUT_SQLSTATES = new Set(['22021', '22P05', '54001']);

export function isUnstorableInput(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && INPUT_SQLSTATES.has(code);
}
