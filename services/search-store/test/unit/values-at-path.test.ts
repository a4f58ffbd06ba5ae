import { valuesAtPath } from '../../src/index/indexed-fields';

describe('valuesAtPath', () => {
  it('reads a top-level scalar, and nothing for a missing, null or inherited key', () => {
    const source = JSON.parse('{"title":"Fox","n":0,"f":false,"none":null,"__proto__":"own"}') as object;
    expect(valuesAtPath(source, 'title')).toEqual(['Fox']);
    expect(valuesAtPath(source, 'n')).toEqual([0]);
    expect(valuesAtPath(source, 'f')).toEqual([false]);
    expect(valuesAtPath(source, 'none')).toEqual([]);
    expect(valuesAtPath(source, 'missing')).toEqual([]);
    // Only own keys: what JSON.parse made a key is read, what a prototype holds is not.
    expect(valuesAtPath(source, '__proto__')).toEqual(['own']);
    expect(valuesAtPath(source, 'constructor')).toEqual([]);
    expect(valuesAtPath(source, 'toString')).toEqual([]);
  });

  it('flattens arrays and objects in arrays, skipping nulls', () => {
    const source = {
      tags: ['a', null, ['b', 'c']],
      users: [{ name: 'x' }, { name: ['y', 'z'] }, { other: 1 }],
    };
    expect(valuesAtPath(source, 'tags')).toEqual(['a', 'b', 'c']);
    expect(valuesAtPath(source, 'users.name')).toEqual(['x', 'y', 'z']);
    expect(valuesAtPath(source, 'users')).toEqual([{ name: 'x' }, { name: ['y', 'z'] }, { other: 1 }]);
  });

  it('reads object paths and dotted keys alike', () => {
    expect(valuesAtPath({ a: { b: 1 } }, 'a.b')).toEqual([1]);
    expect(valuesAtPath({ 'a.b': 2 }, 'a.b')).toEqual([2]);
    expect(valuesAtPath({ a: { b: 1 }, 'a.b': 2 }, 'a.b')).toEqual([1, 2]);
    expect(valuesAtPath({ a: { 'b.c': 3 } }, 'a.b.c')).toEqual([3]);
    expect(valuesAtPath({ a: 1 }, 'a.b')).toEqual([]);
  });

  it('reads nothing from a source that is not an object', () => {
    expect(valuesAtPath(null, 'a')).toEqual([]);
    expect(valuesAtPath('text', 'a')).toEqual([]);
    expect(valuesAtPath([{ a: 1 }, { a: 2 }], 'a')).toEqual([1, 2]);
  });
});
