import { RawJson, stringifyWithRaw } from '../../src/http/raw-json';
import { applyFilterPath } from '../../src/http/filter-path';
import { locateJsonPath } from '../../src/http/locate-json-path';
import { parseJsonText } from '../../src/http/parse-json-text';
import { prettyJson } from '../../src/http/pretty-json';
import { formatBytes, bytesIn } from '../../src/api/cat/format-bytes';

describe('response formatting', () => {
  it('pretty-prints as Elasticsearch (Jackson) does', () => {
    expect(prettyJson({ a: 1, b: [1, { c: 'x' }], e: {}, f: [] })).toBe(
      '{\n  "a" : 1,\n  "b" : [\n    1,\n    {\n      "c" : "x"\n    }\n  ],\n  "e" : { },\n  "f" : [ ]\n}\n',
    );
  });

  it.each([
    ['took', { took: 1 }],
    ['hits.hits._id', { hits: { hits: [{ _id: '1' }, { _id: '2' }] } }],
    ['hits.*._id', { hits: { hits: [{ _id: '1' }, { _id: '2' }] } }],
    ['**._id', { hits: { hits: [{ _id: '1' }, { _id: '2' }] } }],
    ['-hits', { took: 1 }],
    ['nothing', {}],
  ])('filters with filter_path=%s', (filter, expected) => {
    const body = {
      took: 1,
      hits: {
        total: 2,
        hits: [
          { _id: '1', _score: 1 },
          { _id: '2', _score: 1 },
        ],
      },
    };
    expect(applyFilterPath(body, filter)).toEqual(expected);
  });
});

describe('JSON errors and locations', () => {
  it('reports a truncated body as x_content_e_o_f_exception', () => {
    expect(() => parseJsonText('{"query": {"match_all": {}')).toThrow(
      expect.objectContaining({ type: 'x_content_e_o_f_exception' }) as Error,
    );
  });

  it('refuses nesting past 1000 levels however the brackets are spread, and only then', () => {
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    expect(parseJsonText(nested(1000))).toBeDefined();
    expect(() => parseJsonText(nested(1001))).toThrow(
      expect.objectContaining({ reason: expect.stringContaining('Document nesting depth (1001)') }) as Error,
    );
    // Mixed brackets: 600 arrays in 401 objects is 1001 levels.
    const mixed = '{"a":'.repeat(401) + nested(600) + '}'.repeat(401);
    expect(() => parseJsonText(mixed)).toThrow(
      expect.objectContaining({ reason: expect.stringContaining('Document nesting depth (1001)') }) as Error,
    );
    // Many brackets, shallow: 3000 sibling arrays and objects, and brackets inside strings.
    expect(parseJsonText(`[${Array.from({ length: 1500 }, () => '[],{}').join(',')}]`)).toHaveLength(3000);
    expect(parseJsonText(JSON.stringify({ text: '{['.repeat(2000) }))).toEqual({ text: '{['.repeat(2000) });
  });

  it('reports other syntax errors as x_content_parse_exception with line and column', () => {
    try {
      parseJsonText('{\n  "a": 1,,\n}');
      throw new Error('expected an error');
    } catch (error) {
      expect(error).toMatchObject({ type: 'x_content_parse_exception' });
      expect((error as Error).message).toMatch(/^\[2:\d+\] /);
    }
  });

  it('finds where a value starts, 1-based', () => {
    expect(locateJsonPath('{"a":{"b":[1, 22]}}', ['a', 'b', 1])).toEqual({ line: 1, col: 15 });
    expect(locateJsonPath('{\n "x" : "y"\n}', ['x'])).toEqual({ line: 2, col: 8 });
  });
});

describe('cat byte sizes', () => {
  it.each([
    [0, '0b'],
    [225, '225b'],
    [1024, '1kb'],
    [5400, '5.2kb'],
    [3 * 1024 ** 3, '3gb'],
    [1.99 * 1024 ** 2, '1.9mb'],
  ])('formats %d bytes as %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
  it('prints whole numbers for bytes=kb', () => {
    expect(bytesIn(5400, 'kb')).toBe('5');
    expect(bytesIn(5400, 'b')).toBe('5400');
  });
});

describe('stringifyWithRaw', () => {
  it('splices raw JSON texts in unchanged, at any depth and at the top', () => {
    expect(
      stringifyWithRaw({ a: 1, _source: new RawJson('{ "2": 1, "b" : 2 }'), list: [new RawJson('[ 1 ]')] }),
    ).toBe('{"a":1,"_source":{ "2": 1, "b" : 2 },"list":[[ 1 ]]}');
    expect(stringifyWithRaw(new RawJson(' {"x":1} '))).toBe(' {"x":1} ');
    expect(JSON.stringify({ s: new RawJson('{"b":1,"a":2}') })).toBe('{"s":{"b":1,"a":2}}');
  });
});
