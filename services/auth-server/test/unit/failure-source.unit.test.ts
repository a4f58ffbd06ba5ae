import { formatForwardedFor, parseForwardedFor } from '@acme/common';
import { failureSource } from '../../src/http/failure-source';

describe('failureSource', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::ffff', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
    ['unknown', 'unknown'],
  ])('%s counts as %s', (address, source) => {
    expect(failureSource(address)).toBe(source);
  });
});

describe('Forwarded: for= (RFC 7239)', () => {
  it.each([
    ['203.0.113.7', 'for=203.0.113.7'],
    ['::ffff:203.0.113.7', 'for=203.0.113.7'],
    ['2001:db8::7', 'for="[2001:db8::7]"'],
  ])('formats %s as %s and reads it back', (address, header) => {
    expect(formatForwardedFor(address)).toBe(header);
    expect(parseForwardedFor(header)).toBe(address.replace('::ffff:', ''));
  });
  it.each([
    'for=unknown',
    'for=203.0.113.7, for=198.51.100.1',
    'for=203.0.113.7;proto=https',
    'for="_hidden"',
    'for=[2001:db8::7]',
    'for=999.1.1.1',
    `for=${'1'.repeat(200)}`,
  ])('ignores %s', (header) => {
    expect(parseForwardedFor(header)).toBeUndefined();
  });
});
