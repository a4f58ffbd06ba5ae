import { isIPv4, isIPv6 } from 'node:net';

/**
 * The throttling key of a client address. An IPv4-mapped IPv6 address is its IPv4 address; an IPv6
 * address counts by its /64, the smallest block a site is given (RFC 6177), so rotating addresses within
 * one's own /64 does not reset the counters.
 */
export function failureSource(address: string): string {
  const ip = address.replace(/%.*$/, ''); // a zone index (fe80::1%eth0) is not part of the address
  const mapped = /^::ffff:(.*)$/i.exec(ip)?.[1];
  if (mapped !== undefined && isIPv4(mapped)) return mapped;
  if (!isIPv6(ip)) return ip;
  const [head = '', tail] = ip.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  // An embedded IPv4 tail (::1.2.3.4) fills two groups; it lies in the low 64 bits either way.
  const rightGroups = right.reduce((n, group) => n + (group.includes('.') ? 2 : 1), 0);
  const zeros = tail === undefined ? 0 : 8 - left.length - rightGroups;
  const groups = [...left, ...Array<string>(zeros).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
