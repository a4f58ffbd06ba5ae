import { checkIndexName } from '../../src/catalog/check-index-name';
import { mergeMappings } from '../../src/mapping/merge-mappings';
import { parseMappingDefinition } from '../../src/mapping/parse-mapping';
import { serializeMapping } from '../../src/mapping/serialize-mapping';

describe('mapping definitions, merges and output', () => {
  it('adds fields and never removes existing ones', () => {
    const merged = mergeMappings(
      { properties: { a: { type: 'long' } } },
      { properties: { b: { type: 'keyword' } } },
    );
    expect(merged.properties).toEqual({ a: { type: 'long' }, b: { type: 'keyword' } });
  });

  it('refuses a type change with Elasticsearch reason', () => {
    expect(() =>
      mergeMappings({ properties: { f: { type: 'long' } } }, { properties: { f: { type: 'keyword' } } }),
    ).toThrow('mapper [f] cannot be changed from type [long] to [keyword]');
  });

  it('refuses a non-updatable parameter change and allows new multi-fields', () => {
    expect(() =>
      mergeMappings(
        { properties: { t: { type: 'text' } } },
        { properties: { t: { type: 'text', analyzer: 'english' } } },
      ),
    ).toThrow(
      'Mapper for [t] conflicts with existing mapper:\n\tCannot update parameter [analyzer] from [null] to [english]',
    );
    const merged = mergeMappings(
      { properties: { t: { type: 'text' } } },
      { properties: { t: { type: 'text', fields: { raw: { type: 'keyword' } } } } },
    );
    expect(merged.properties?.t?.fields).toEqual({ raw: { type: 'keyword' } });
  });

  it.each([
    [{ properties: { bar: { type: 'foo' } } }, 'No handler for type [foo] declared on field [bar]'],
    [
      { properties: { k: { type: 'keyword', foo: 1 } } },
      'unknown parameter [foo] on mapper [k] of type [keyword]',
    ],
    [{ dynamic: 'sometimes' }, 'Unable to parse [dynamic] with value [sometimes]'],
    [{ foo: 'bar' }, 'Root mapping definition has unsupported parameters:  [foo : bar]'],
    [
      { properties: { v: { type: 'dense_vector', dims: 0 } } },
      'The number of dimensions should be in the range [1, 4096] but was [0]',
    ],
  ])('refuses the definition %j: %s', (definition, reason) => {
    expect(() => parseMappingDefinition(definition)).toThrow(reason);
  });

  it('prints dynamic as a string, properties sorted, objects without type unless empty', () => {
    const mapping = parseMappingDefinition({
      dynamic: false,
      properties: {
        z: { type: 'keyword' },
        a: { type: 'object', properties: { x: { type: 'long' } } },
        e: { type: 'object' },
      },
    });
    const printed = serializeMapping(mapping);
    expect(JSON.stringify(printed)).toBe(
      '{"dynamic":"false","properties":{"a":{"properties":{"x":{"type":"long"}}},"e":{"type":"object"},"z":{"type":"keyword"}}}',
    );
  });
});

describe('checkIndexName', () => {
  it.each([
    ['.', "Invalid index name [.], must not be '.' or '..'"],
    ['..', "Invalid index name [..], must not be '.' or '..'"],
    ['a:b', "Invalid index name [a:b], must not contain ':'"],
    ['', 'Invalid index name [], must not be empty'],
  ])('refuses %j', (name, reason) => {
    expect(() => checkIndexName(name)).toThrow(reason);
  });
  it('accepts a hidden-style name and refuses an uppercase alias only for indices', () => {
    expect(() => checkIndexName('.hidden-ok')).not.toThrow();
    expect(() => checkIndexName('MixedAlias', 'alias')).not.toThrow();
  });
});
