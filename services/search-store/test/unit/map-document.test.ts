import { EsError } from '@acme/common';
import { locatorFor } from '../../src/http/locate-json-path';
import { mapDocument } from '../../src/mapping/map-document';
import type { IndexMapping } from '../../src/mapping/mapping-types';

function run(mapping: IndexMapping, text: string) {
  return mapDocument(mapping, JSON.parse(text) as Record<string, unknown>, '1', locatorFor(text));
}

function errorOf(mapping: IndexMapping, text: string): EsError {
  try {
    run(mapping, text);
  } catch (error) {
    if (error instanceof EsError) return error;
    throw error;
  }
  throw new Error('expected an error');
}

describe('mapDocument (dynamic mapping and validation)', () => {
  it('maps new values by the dynamic rules: text+keyword, date, long, float, boolean, object', () => {
    const { mapping, changed } = run({}, '{"s":"hi","d":"2024-01-01","n":3,"f":1.5,"b":true,"o":{"x":"y"}}');
    expect(changed).toBe(true);
    expect(mapping.properties).toEqual({
      s: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
      d: { type: 'date' },
      n: { type: 'long' },
      f: { type: 'float' },
      b: { type: 'boolean' },
      o: { properties: { x: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } } } },
    });
  });

  it('leaves the input mapping untouched and reports no change when nothing is new', () => {
    const input: IndexMapping = { properties: { n: { type: 'long' } } };
    const result = run(input, '{"n":1}');
    expect(result.changed).toBe(false);
    expect(result.mapping).toBe(input);
  });

  it('never changes the caller mapping, even when the document fails after adding fields', () => {
    const input: IndexMapping = { properties: { n: { type: 'byte' } } };
    const before = JSON.stringify(input);
    expect(() => run(input, '{"new":"x","n":999}')).toThrow('failed to parse field [n] of type [byte]');
    run({ dynamic: 'false' }, '{"x":1}');
    expect(JSON.stringify(input)).toBe(before);
  });

  it('treats dotted names as objects', () => {
    expect(run({}, '{"a.b":1}').mapping.properties).toEqual({ a: { properties: { b: { type: 'long' } } } });
  });

  it('maps strings as keyword runtime fields under dynamic runtime', () => {
    const { mapping } = run({ dynamic: 'runtime' }, '{"s":"x","n":1}');
    expect(mapping.runtime).toEqual({ s: { type: 'keyword' }, n: { type: 'long' } });
    expect(mapping.properties ?? {}).toEqual({});
  });

  it('ignores new fields under dynamic false', () => {
    expect(run({ dynamic: 'false' }, '{"s":"x"}').changed).toBe(false);
  });

  it('refuses a new field under strict with the location of its value', () => {
    const error = errorOf({ dynamic: 'strict', properties: { a: { type: 'long' } } }, '{"a":1,"b":2}');
    expect(error.type).toBe('strict_dynamic_mapping_exception');
    expect(error.reason).toBe(
      '[1:12] mapping set to strict, dynamic introduction of [b] within [_doc] is not allowed',
    );
  });

  it('inherits strict from an inner object and names the parent', () => {
    const error = errorOf({ properties: { o: { dynamic: 'strict', properties: {} } } }, '{"o":{"z":1}}');
    expect(error.reason).toBe(
      '[1:11] mapping set to strict, dynamic introduction of [z] within [o] is not allowed',
    );
  });

  it('reports an out-of-range value as document_parsing_exception caused by illegal_argument_exception', () => {
    const error = errorOf({ properties: { n: { type: 'byte' } } }, '{\n  "n": 300\n}');
    expect(error.toBody().error).toEqual({
      root_cause: [
        {
          type: 'document_parsing_exception',
          reason:
            "[2:8] failed to parse field [n] of type [byte] in document with id '1'. Preview of field's value: '300'",
        },
      ],
      type: 'document_parsing_exception',
      reason:
        "[2:8] failed to parse field [n] of type [byte] in document with id '1'. Preview of field's value: '300'",
      caused_by: { type: 'illegal_argument_exception', reason: 'Value [300] is out of range for a byte' },
    });
  });

  it('checks every element of an array', () => {
    const error = errorOf({ properties: { n: { type: 'integer' } } }, '{"n":[1,"x"]}');
    expect(error.reason).toContain('[1:9] failed to parse field [n] of type [integer]');
  });

  it('sets dense_vector dims from the first document and refuses another length', () => {
    const first = run({ properties: { v: { type: 'dense_vector' } } }, '{"v":[1,2,3]}');
    expect(first.mapping.properties?.v).toEqual({ type: 'dense_vector', dims: 3 });
    const error = errorOf(first.mapping, '{"v":[1,2]}');
    expect(error.causedBy?.reason).toBe(
      "The [dense_vector] field [v] in doc [document with id '1'] has a different number of dimensions [2] than defined in the mapping [3]",
    );
  });

  it('refuses a concrete value for an object field and metadata fields in the source', () => {
    expect(errorOf({ properties: { o: { properties: {} } } }, '{"o":1}').reason).toBe(
      '[1:6] object mapping for [o] tried to parse field [o] as object, but found a concrete value',
    );
    expect(errorOf({}, '{"_id":"x"}').reason).toContain('Field [_id] is a metadata field');
  });

  it('refuses a keyword term over 2600 bytes (what a btree entry holds) unless ignore_above skips it', () => {
    const long = 'x'.repeat(40000);
    const error = errorOf({ properties: { k: { type: 'keyword' } } }, JSON.stringify({ k: long }));
    expect(error.type).toBe('illegal_argument_exception');
    expect(error.reason).toContain(
      'Document contains at least one immense term in field="k" (whose UTF8 encoding is longer than the max length 2600)',
    );
    expect(error.causedBy).toEqual({
      type: 'max_bytes_length_exceeded_exception',
      reason: 'bytes can be at most 2600 in length; got 40000',
    });
    // Bytes, not characters: 1,300 two-byte characters are at the limit, one more is over it.
    expect(
      run({ properties: { k: { type: 'keyword' } } }, JSON.stringify({ k: 'é'.repeat(1300) })).changed,
    ).toBe(false);
    expect(
      errorOf({ properties: { k: { type: 'keyword' } } }, JSON.stringify({ k: `${'é'.repeat(1300)}a` }))
        .causedBy?.reason,
    ).toBe('bytes can be at most 2600 in length; got 2601');
    // A keyword multi-field of a text field is one term too.
    const sub = errorOf(
      { properties: { t: { type: 'text', fields: { raw: { type: 'keyword' } } } } },
      JSON.stringify({ t: long }),
    );
    expect(sub.reason).toContain('immense term in field="t.raw"');
    expect(
      run({ properties: { k: { type: 'keyword', ignore_above: 256 } } }, JSON.stringify({ k: long })).changed,
    ).toBe(false);
    expect(run({}, JSON.stringify({ s: long })).changed).toBe(true);
  });

  it('refuses sparse_vector weights that are not positive', () => {
    const error = errorOf({ properties: { s: { type: 'sparse_vector' } } }, '{"s":{"a":-1}}');
    expect(error.causedBy?.reason).toContain('[sparse_vector] field values must be positive floats');
  });
});

describe('mapDocument with field names that are Object.prototype members', () => {
  it('maps `__proto__`, `constructor`, `toString` and `prototype` as ordinary fields', () => {
    const text = '{"constructor":"x","toString":1,"__proto__":{"a":1},"prototype":{"valueOf":true}}';
    const { mapping } = run({}, text);
    const properties = mapping.properties ?? {};
    expect(Object.keys(properties)).toEqual(['constructor', 'toString', '__proto__', 'prototype']);
    expect(JSON.stringify(properties)).toBe(
      '{"constructor":{"type":"text","fields":{"keyword":{"type":"keyword","ignore_above":256}}},' +
        '"toString":{"type":"long"},"__proto__":{"properties":{"a":{"type":"long"}}},' +
        '"prototype":{"properties":{"valueOf":{"type":"boolean"}}}}',
    );
    expect(({} as Record<string, unknown>).properties).toBeUndefined();
    expect(({} as Record<string, unknown>).a).toBeUndefined();
  });

  it('validates values against an existing mapping of such a field', () => {
    const mapping = JSON.parse(
      '{"properties":{"__proto__":{"properties":{"n":{"type":"long"}}}}}',
    ) as IndexMapping;
    expect(run(mapping, '{"__proto__":{"n":2}}').changed).toBe(false);
    expect(errorOf(mapping, '{"__proto__":{"n":"two"}}').reason).toContain(
      'failed to parse field [__proto__.n] of type [long]',
    );
    const keyword = JSON.parse('{"properties":{"constructor":{"type":"keyword"}}}') as IndexMapping;
    expect(run(keyword, '{"constructor":"c"}').changed).toBe(false);
  });

  it('does not take an inherited member for a field or a runtime field', () => {
    const { mapping } = run({ dynamic: 'runtime' }, '{"hasOwnProperty":"x","__proto__":1}');
    expect(JSON.stringify(mapping.runtime)).toBe(
      '{"hasOwnProperty":{"type":"keyword"},"__proto__":{"type":"long"}}',
    );
  });
});
