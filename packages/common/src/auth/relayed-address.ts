import { isIP } from 'node:net';

/**
 * A resource server that relays an end user's client credentials to auth-server's /token (search-store's
 * `Authorization: Basic` service accounts) authenticates itself in this header, with the same
 * form-encoded Basic credentials it introspects with, and names the end user's address in
 * `Forwarded: for=` (RFC 7239 §5.2). auth-server believes the address only from an authenticated resource
 * server, and then counts a failure against that address instead of the relay's own.
 */
export const RELAY_AUTHORIZATION_HEADER = 'resource-server-authorization';

/** RFC 7239 §6: an IPv6 address is bracketed and so must be quoted. */
export function formatForwardedFor(address: string): string {
  const ip = address.replace(/^::ffff:(?=\d+\.)/i, '');
  return isIP(ip) === 6 ? `for="[${ip}]"` : `for=${ip}`;
}

/** The address of a single-element `Forwarded: for=` header, or undefined for anything else. */
export function parseForwardedFor(header: string | undefined): string | undefined {
  if (header === undefined || header.length > 100) return undefined;
  const match = /^\s*for=(?:"\[([0-9A-Fa-f:.]+)\]"|"([0-9.]+)"|([0-9.]+))\s*$/i.exec(header);
  const ip = match?.[1] ?? match?.[2] ?? match?.[3];
  return ip !== undefined && isIP(ip) !== 0 ? ip : undefined;
}
