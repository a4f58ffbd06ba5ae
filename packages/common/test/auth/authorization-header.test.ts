import { formatClientBasic, formUrlEncode, parseAuthorization } from '../../src';

const basic = (raw: string) => `Basic ${Buffer.from(raw).toString('base64')}`;

describe('parseAuthorization', () => {
  it.each([
    ['Bearer abc.DEF-_~+/==', { scheme: 'bearer', token: 'abc.DEF-_~+/==' }],
    ['bearer abc', { scheme: 'bearer', token: 'abc' }],
    ['BEARER   abc', { scheme: 'bearer', token: 'abc' }],
    ['Bearer a b', { scheme: 'malformed', declared: 'bearer' }],
    ['Bearer', { scheme: 'malformed', declared: 'bearer' }],
    ['Bearer a=b', { scheme: 'malformed', declared: 'bearer' }],
    [basic('elastic:pa:ss word'), { scheme: 'basic', username: 'elastic', password: 'pa:ss word' }],
    [basic('user:'), { scheme: 'basic', username: 'user', password: '' }],
    [basic(':secret'), { scheme: 'malformed', declared: 'basic' }],
    [basic('no-colon'), { scheme: 'malformed', declared: 'basic' }],
    ['Basic !!!', { scheme: 'malformed', declared: 'basic' }],
    ['ApiKey abc', { scheme: 'malformed', declared: 'other' }],
  ])('parses %j', (header, expected) => {
    expect(parseAuthorization(header)).toEqual(expected);
  });

  it('answers undefined when no header or an empty one was sent', () => {
    expect(parseAuthorization(undefined)).toBeUndefined();
    expect(parseAuthorization('  ')).toBeUndefined();
  });
});

describe('formatClientBasic (RFC 6749 §2.3.1)', () => {
  it.each([
    ['plain', 'plain'],
    ['a b', 'a+b'],
    ['a:b', 'a%3Ab'],
    ['100%', '100%25'],
    ['x+y/z=', 'x%2By%2Fz%3D'],
    ['é', '%C3%A9'],
    ['*-._', '*-._'],
  ])('form-url-encodes %j as %j', (raw, encoded) => {
    expect(formUrlEncode(raw)).toBe(encoded);
  });

  it('joins the encoded id and secret with ":" before base64', () => {
    const header = formatClientBasic('my:client', 'se cret%');
    expect(Buffer.from(header.slice('Basic '.length), 'base64').toString()).toBe('my%3Aclient:se+cret%25');
  });
});
