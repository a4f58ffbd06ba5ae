/**
 * `ip` field values (ES "IP field type"): IPv4 and IPv6 addresses parsed as Elasticsearch's
 * `InetAddresses.forString` does, kept as the 16 bytes Lucene's `InetAddressPoint` indexes (IPv4 as
 * the IPv4-mapped `::ffff:a.b.c.d`), and printed as `InetAddresses.toAddrString` prints them (dotted
 * IPv4, RFC 5952 IPv6). Doc values hold the 16 bytes as 32 lower-case hex digits in the `kw` column:
 * under `COLLATE "C"` their order is the byte order ES sorts and ranges IPs by.
 */

const IPV4_MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/** ES's message for a string that is not an address (InetAddresses.formatIllegalArgumentException). */
export function notAnIp(text: string): string {
  return `'${text}' is not an IP string literal.`;
}

/** The 16 bytes of an IPv4 or IPv6 literal, or undefined when it is not one (no host names, no scope ids). */
export function parseIpBytes(text: string): Uint8Array | undefined {
  // A literal is at most 45 characters (a full IPv6 with an embedded IPv4); longer input is refused unread.
  if (text.length === 0 || text.length > 45) return undefined;
  if (text.includes(':')) return parseIpv6(text);
  const v4 = parseIpv4(text);
  if (!v4) return undefined;
  return Uint8Array.from([...IPV4_MAPPED_PREFIX, ...v4]);
}

/** Four decimal octets, no leading zeros (Guava's rule, which ES keeps: `010.0.0.1` is refused). */
function parseIpv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || (part.length > 1 && part.startsWith('0'))) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    out.push(octet);
  }
  return out;
}

function parseIpv6(text: string): Uint8Array | undefined {
  let body = text;
  // An embedded dotted quad (`::ffff:1.2.3.4`, `::1.2.3.4`) stands for the last two groups.
  const lastColon = body.lastIndexOf(':');
  const tail = body.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIpv4(tail);
    if (!v4) return undefined;
    const high = ((v4[0]! << 8) | v4[1]!).toString(16);
    const low = ((v4[2]! << 8) | v4[3]!).toString(16);
    body = `${body.slice(0, lastColon + 1)}${high}:${low}`;
  }
  if (!/^[0-9A-Fa-f:]*$/.test(body)) return undefined;
  const halves = body.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string): number[] | undefined => {
    if (part === '') return [];
    const groups = part.split(':');
    if (groups.some((g) => g.length === 0 || g.length > 4)) return undefined;
    return groups.map((g) => parseInt(g, 16));
  };
  const head = groupsOf(halves[0]!);
  const rest = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (!head || !rest) return undefined;
  const explicit = head.length + rest.length;
  let groups: number[];
  if (halves.length === 2) {
    // `::` stands for at least one zero group (RFC 4291 §2.2).
    if (explicit > 7) return undefined;
    groups = [...head, ...new Array<number>(8 - explicit).fill(0), ...rest];
  } else {
    if (explicit !== 8) return undefined;
    groups = head;
  }
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 0xff;
  });
  return bytes;
}

function isIpv4Mapped(bytes: Uint8Array): boolean {
  return IPV4_MAPPED_PREFIX.every((b, i) => bytes[i] === b);
}

/** ES `InetAddresses.toAddrString`: IPv4-mapped addresses print as IPv4 (Java's Inet4Address). */
export function formatIpBytes(bytes: Uint8Array): string {
  if (isIpv4Mapped(bytes)) return [...bytes.subarray(12)].join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((bytes[i]! << 8) | bytes[i + 1]!);
  // RFC 5952 §4.2: the first longest run of two or more zero groups becomes `::`.
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

export function ipBytesToKey(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

/** A doc value (32 hex digits) back to the address as ES prints it. */
export function formatIpKey(key: string): string {
  return formatIpBytes(Uint8Array.from(Buffer.from(key, 'hex')));
}

/** The doc-value key of an address, undefined when the text is not one. */
export function ipKey(text: string): string | undefined {
  const bytes = parseIpBytes(text);
  return bytes ? ipBytesToKey(bytes) : undefined;
}

/** The address as `fields` prints it (ES re-parses `_source` and prints it canonically). */
export function canonicalIp(text: string): string | undefined {
  const bytes = parseIpBytes(text);
  return bytes ? formatIpBytes(bytes) : undefined;
}

/** An ip query value that is wrong, with ES's exception type and message. */
export class IpQueryValueError extends Error {
  constructor(
    readonly type: 'illegal_argument_exception' | 'number_format_exception',
    message: string,
  ) {
    super(message);
    this.name = 'IpQueryValueError';
  }
}

/**
 * The keys a term on an ip field matches, inclusive (`IpFieldType.termQuery`): one address, or with a
 * `/` a CIDR block (`InetAddresses.parseCidr`, `InetAddressPoint.newPrefixQuery`). An IPv4 prefix
 * counts over the IPv4 bits of the mapped address, as Java parses `1.2.0.0` to four bytes.
 */
export function ipTermRange(text: string): { lo: string; hi: string } {
  if (!text.includes('/')) {
    const key = ipKey(text);
    if (key === undefined) throw new IpQueryValueError('illegal_argument_exception', notAnIp(text));
    return { lo: key, hi: key };
  }
  const fields = text.split('/');
  if (fields.length !== 2) {
    throw new IpQueryValueError('illegal_argument_exception', `Expected [ip/prefix] but was [${text}]`);
  }
  const [addressText, prefixText] = fields as [string, string];
  const bytes = parseIpBytes(addressText);
  if (!bytes) throw new IpQueryValueError('illegal_argument_exception', notAnIp(addressText));
  const isV4 = isIpv4Mapped(bytes);
  if (addressText.includes(':') && isV4) {
    throw new IpQueryValueError(
      'illegal_argument_exception',
      `CIDR notation is not allowed with IPv6-mapped IPv4 address [${addressText} as it introduces ambiguity as to whether the prefix length should be interpreted as a v4 prefix length or a v6 prefix length`,
    );
  }
  // Java's Integer.parseInt: an optional sign and decimal digits.
  if (!/^[+-]?\d{1,10}$/.test(prefixText) || !Number.isSafeInteger(Number(prefixText))) {
    throw new IpQueryValueError('number_format_exception', `For input string: "${prefixText}"`);
  }
  const prefix = Number(prefixText);
  const width = isV4 ? 32 : 128;
  if (prefix < 0 || prefix > width) {
    throw new IpQueryValueError(
      'illegal_argument_exception',
      `Illegal prefix length [${prefix}] in [${text}]. Must be 0-32 for IPv4 ranges, 0-128 for IPv6 ranges`,
    );
  }
  const keep = prefix + (isV4 ? 96 : 0);
  const lo = Uint8Array.from(bytes);
  const hi = Uint8Array.from(bytes);
  for (let bit = keep; bit < 128; bit++) {
    const mask = 0x80 >> (bit % 8);
    lo[bit >> 3]! &= ~mask;
    hi[bit >> 3]! |= mask;
  }
  return { lo: ipBytesToKey(lo), hi: ipBytesToKey(hi) };
}

/** The key one step above or below (`InetAddressPoint.nextUp/nextDown`), undefined past the ends. */
export function stepIpKey(key: string, direction: 1 | -1): string | undefined {
  const bytes = Uint8Array.from(Buffer.from(key, 'hex'));
  for (let i = 15; i >= 0; i--) {
    const next = bytes[i]! + direction;
    if (next >= 0 && next <= 255) {
      bytes[i] = next;
      return ipBytesToKey(bytes);
    }
    bytes[i] = direction === 1 ? 0 : 255;
  }
  return undefined;
}
