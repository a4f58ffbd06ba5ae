import { parseForm } from '../../src/http/introspection-fast-path';

// What body-parser's urlencoded({ extended: false }) (qs, depth 0) makes of the same bodies.
describe('parseForm', () => {
  it.each([
    ['token=abc&token_type_hint=access_token', { token: 'abc', token_type_hint: 'access_token' }],
    ['', {}],
    ['&&token=a&', { token: 'a' }],
    ['token&x=1', { token: '', x: '1' }],
    ['=x&token=1', { token: '1' }],
    ['a=1&a=2', { a: ['1', '2'] }],
    ['a[]=1', { 'a[]': '1' }],
    ['a[]=1&a[]=2', { 'a[]': ['1', '2'] }],
    ['token[x]=1&token=abc', { 'token[x]': '1', token: 'abc' }],
    ['a=b]=c', { 'a=b]': 'c' }],
    ['__proto__=1&token=2', { token: '2' }],
    ['token=a+b%2Bc%20d', { token: 'a b+c d' }],
    ['token=%E0%A4&x=%ZZ+1', { token: '%E0%A4', x: '%ZZ 1' }],
  ])('reads %j', (body, expected) => {
    expect({ ...parseForm(body) }).toEqual(expected);
  });

  it('refuses more than 1000 parameters with a 413', () => {
    expect(() => parseForm('a=1&'.repeat(1000) + 'b=2')).toThrow(
      expect.objectContaining({ status: 413 }) as Error,
    );
    expect(Object.keys(parseForm('a=1&'.repeat(999) + 'b=2'))).toEqual(['a', 'b']);
  });
});
