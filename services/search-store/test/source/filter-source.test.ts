import { filterSource } from '../../src/source/filter-source';

describe('_source filtering (GET, update and search share it)', () => {
  const source = { title: 't', user: { name: 'n', age: 3 }, tags: ['a'], items: [{ id: 1, x: 2 }] };

  it.each<[string, string[], string[], unknown]>([
    ['nothing asked: the same object back', [], [], source],
    ['a field list', ['title', 'tags'], [], { title: 't', tags: ['a'] }],
    ['a wildcard below an object', ['user.*'], [], { user: { name: 'n', age: 3 } }],
    ['a wildcard across dots', ['*e'], [], { title: 't', user: { name: 'n', age: 3 } }],
    ['an object with an exclude inside it', ['user'], ['user.age'], { user: { name: 'n' } }],
    ['excludes only', [], ['user', 'items.x'], { title: 't', tags: ['a'], items: [{ id: 1 }] }],
    ['an include into objects inside an array', ['items.id'], [], { items: [{ id: 1 }] }],
    ['an exclude that wins over its include', ['title'], ['title'], {}],
    ['a missing field', ['nope'], [], {}],
  ])('filters with %s', (_, includes, excludes, expected) => {
    expect(filterSource(source, includes, excludes)).toEqual(expected);
  });

  it('keeps an included empty object and drops objects an include list leaves empty', () => {
    expect(filterSource({ a: {}, b: { c: 1 } }, ['a', 'b.d'], [])).toEqual({ a: {} });
  });
});
