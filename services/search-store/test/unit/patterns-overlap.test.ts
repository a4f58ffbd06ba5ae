import { patternsOverlap } from '../../src/catalog/index-templates/patterns-overlap';
import { composeMappings } from '../../src/catalog/index-templates/compose-mappings';

describe('patternsOverlap (two index patterns some name matches both)', () => {
  it.each([
    ['logs-*', 'logs-a*', true],
    ['logs-*', '*-prod', true],
    ['a*b', 'ab', true],
    ['a*b', 'a*c', false],
    ['foo', 'foo', true],
    ['foo', 'bar', false],
    ['*', 'anything', true],
    ['x*y*z', '*q*', true],
    ['abc*', '*abd', true],
    ['abc', '*abd', false],
    ['ov-*', 'ow-*', false],
  ])('%s and %s → %s', (a, b, expected) => {
    expect(patternsOverlap(a, b)).toBe(expected);
    expect(patternsOverlap(b, a)).toBe(expected);
  });

  it('answers long star-heavy patterns without blowing up', () => {
    const a = `${'a*'.repeat(120)}b`;
    const b = `${'*a'.repeat(120)}c`;
    const started = Date.now();
    expect(patternsOverlap(a, b)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('composeMappings (ES MergeReason.INDEX_TEMPLATE)', () => {
  it('replaces a leaf whole, merges objects, expands dotted names, keeps __proto__ a field', () => {
    const merged = composeMappings([
      { properties: { 'o.a': { type: 'keyword' }, leaf: { type: 'long' } }, dynamic: 'strict' },
      {
        properties: {
          o: { properties: { b: { type: 'text' } } },
          leaf: { type: 'keyword', ignore_above: 3 },
        },
      },
      { properties: JSON.parse('{"__proto__": {"type": "keyword"}}') as Record<string, { type: 'keyword' }> },
    ]);
    expect(merged.dynamic).toBe('strict');
    expect(Object.keys(merged.properties ?? {}).sort()).toEqual(['__proto__', 'leaf', 'o']);
    expect(merged.properties?.leaf).toEqual({ type: 'keyword', ignore_above: 3 });
    expect(merged.properties?.o?.properties).toEqual({ a: { type: 'keyword' }, b: { type: 'text' } });
    expect(Object.getPrototypeOf({})).toEqual(Object.prototype);
  });
});
