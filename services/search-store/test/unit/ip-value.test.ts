import {
  canonicalIp,
  formatIpKey,
  ipKey,
  ipTermRange,
  IpQueryValueError,
  stepIpKey,
} from '../../src/mapping/ip-value';

describe('ip values (ES InetAddresses.forString / toAddrString)', () => {
  it.each([
    ['192.168.0.1', '192.168.0.1'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    ['::1', '::1'],
    ['::', '::'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:0db8:0000:0000:0001:0000:0000:0001', '2001:db8::1:0:0:1'],
    ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
    ['1:0:2:3:4:5:6:7', '1:0:2:3:4:5:6:7'],
    ['::ffff:10.1.2.3', '10.1.2.3'],
    ['::FFFF:a01:203', '10.1.2.3'],
    ['::1.2.3.4', '::102:304'],
    ['fe80::1:2.3.4.5', 'fe80::1:203:405'],
  ])('reads %s and prints it as %s', (input, printed) => {
    expect(canonicalIp(input)).toBe(printed);
  });

  it.each([
    '',
    'foo',
    '1.2.3',
    '1.2.3.4.5',
    '256.0.0.1',
    '01.2.3.4',
    '1.2.3.-4',
    ':::1',
    '1::2::3',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    '12345::',
    ':1::',
    'g::1',
    '::1.2.3',
    '1.2.3.4::',
    'fe80::1%eth0',
    ' 1.2.3.4',
    `${'1:'.repeat(40)}1`,
  ])('refuses %j', (input) => {
    expect(ipKey(input)).toBeUndefined();
  });

  it('keys sort as the addresses do: IPv4 as IPv4-mapped IPv6', () => {
    const sorted = ['::1', '1.2.3.4', '10.0.0.1', '9.255.255.255', '2001:db8::', '::fffe:0:0'].sort((a, b) =>
      ipKey(a)! < ipKey(b)! ? -1 : 1,
    );
    expect(sorted).toEqual(['::1', '::fffe:0:0', '1.2.3.4', '9.255.255.255', '10.0.0.1', '2001:db8::']);
    expect(formatIpKey(ipKey('::ffff:1.2.3.4')!)).toBe('1.2.3.4');
  });

  it('turns a CIDR block into its first and last address', () => {
    const range = (cidr: string) => {
      const { lo, hi } = ipTermRange(cidr);
      return [formatIpKey(lo), formatIpKey(hi)];
    };
    expect(range('192.168.7.9/16')).toEqual(['192.168.0.0', '192.168.255.255']);
    expect(range('10.0.0.1/32')).toEqual(['10.0.0.1', '10.0.0.1']);
    expect(range('0.0.0.0/0')).toEqual(['0.0.0.0', '255.255.255.255']);
    expect(range('2001:db8::/32')).toEqual(['2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff']);
    expect(range('::/0')).toEqual(['::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff']);
  });

  it.each([
    [
      '1.2.3.4/33',
      'illegal_argument_exception',
      'Illegal prefix length [33] in [1.2.3.4/33]. Must be 0-32 for IPv4 ranges, 0-128 for IPv6 ranges',
    ],
    [
      '::/129',
      'illegal_argument_exception',
      'Illegal prefix length [129] in [::/129]. Must be 0-32 for IPv4 ranges, 0-128 for IPv6 ranges',
    ],
    ['1.2.3.4/x', 'number_format_exception', 'For input string: "x"'],
    ['1.2.3.4/8/8', 'illegal_argument_exception', 'Expected [ip/prefix] but was [1.2.3.4/8/8]'],
    ['foo/8', 'illegal_argument_exception', "'foo' is not an IP string literal."],
    [
      '::ffff:1.2.3.4/8',
      'illegal_argument_exception',
      'CIDR notation is not allowed with IPv6-mapped IPv4 address [::ffff:1.2.3.4 as it introduces ambiguity as to whether the prefix length should be interpreted as a v4 prefix length or a v6 prefix length',
    ],
  ])('refuses the block %s as ES does', (cidr, type, message) => {
    let caught: unknown;
    try {
      ipTermRange(cidr);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(IpQueryValueError);
    expect(caught).toMatchObject({ type, message });
  });

  it('steps to the neighbouring address and stops at the ends', () => {
    expect(formatIpKey(stepIpKey(ipKey('1.2.3.255')!, 1)!)).toBe('1.2.4.0');
    expect(formatIpKey(stepIpKey(ipKey('1.2.4.0')!, -1)!)).toBe('1.2.3.255');
    expect(stepIpKey(ipKey('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff')!, 1)).toBeUndefined();
    expect(stepIpKey(ipKey('::')!, -1)).toBeUndefined();
  });
});
