import { DEVICE_CODE_GRANT_TYPE } from '../device/device-authorization';
import { TOKEN_EXCHANGE_GRANT_TYPE } from '../token-exchange/token-exchange';

/**
 * Every grant type /token serves (RFC 6749 §4, RFC 8628, RFC 8693): what a client may register and what
 * discovery's `grant_types_supported` announces (RFC 8414 §2), from one list so the two cannot drift.
 */
export const SUPPORTED_GRANT_TYPES = [
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'implicit',
  DEVICE_CODE_GRANT_TYPE,
  TOKEN_EXCHANGE_GRANT_TYPE,
] as const;
