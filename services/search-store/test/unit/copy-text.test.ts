import { copyText } from '../../src/storage/copy-lines';

describe('copyText', () => {
  it.each([
    ['plain', 'plain'],
    ['a\\b', 'a\\\\b'],
    ['tab\tnew\nline\rcr', 'tab\\tnew\\nline\\rcr'],
    ['\\N', '\\\\N'],
    ['{"a":"\\"q\\""}', '{"a":"\\\\"q\\\\""}'],
  ])('escapes %j for COPY text format', (value, expected) => {
    expect(copyText(value)).toBe(expected);
  });
});
