import { EsError } from '@acme/common';
import { locatorFor, rawNumberFor } from '../../src/http/locate-json-path';
import { mapDocument } from '../../src/mapping/map-document';
import {
  checkMappingLimits,
  checkMappingLimitSetting,
  countTotalFields,
  DEFAULT_MAPPING_LIMITS,
  mappingLimitsOf,
  type MappingLimits,
} from '../../src/mapping/mapping-limits';
import type { IndexMapping } from '../../src/mapping/mapping-types';

const limits = (change: Partial<MappingLimits>): MappingLimits => ({ ...DEFAULT_MAPPING_LIMITS, ...change });

function run(mapping: IndexMapping, text: string, given: MappingLimits = DEFAULT_MAPPING_LIMITS) {
  return mapDocument(mapping, JSON.parse(text) as Record<string, unknown>, '1', locatorFor(text), {
    limits: given,
    rawNumber: rawNumberFor(text),
  });
}

function errorOf(fn: () => unknown): EsError {
  try {
    fn();
  } catch (error) {
    if (error instanceof EsError) return error;
    throw error;
  }
  throw new Error('expected an error');
}

/** `{"a1":{"a2":…{"aN":1}}}` */
function nested(levels: number): string {
  let text = '1';
  for (let i = levels; i >= 1; i -= 1) text = `{"a${i}":${text}}`;
  return text;
}

describe('mapping limits (ES "Mapping limit settings", MappingLookup.checkLimits)', () => {
  it('counts objects, leaves, multi-fields and runtime fields as ES counts mappers', () => {
    const mapping: IndexMapping = {
      properties: {
        title: { type: 'text', fields: { keyword: { type: 'keyword' }, raw: { type: 'keyword' } } },
        user: {
          properties: { name: { type: 'keyword' }, address: { properties: { city: { type: 'keyword' } } } },
        },
      },
      runtime: { day: { type: 'keyword' } },
    };
    expect(countTotalFields(mapping)).toBe(3 + 4 + 1);
  });

  it('refuses a dynamic field past the total limit as a document_parsing_exception naming the new fields', () => {
    const error = errorOf(() => run({}, '{"a":1,"b":"x","c":true}', limits({ totalFields: 2 })));
    expect(error.toBody()).toEqual({
      error: {
        root_cause: [
          {
            type: 'document_parsing_exception',
            reason:
              '[1:12] failed to parse: Limit of total fields [2] has been exceeded while adding new fields [3]',
          },
        ],
        type: 'document_parsing_exception',
        reason:
          '[1:12] failed to parse: Limit of total fields [2] has been exceeded while adding new fields [3]',
        caused_by: {
          type: 'illegal_argument_exception',
          reason: 'Limit of total fields [2] has been exceeded while adding new fields [3]',
        },
      },
      status: 400,
    });
  });

  it('counts the fields already mapped, and accepts a document that adds nothing new at the limit', () => {
    const mapping: IndexMapping = { properties: { a: { type: 'long' }, b: { type: 'long' } } };
    expect(run(mapping, '{"a":1,"b":2}', limits({ totalFields: 2 })).changed).toBe(false);
    const error = errorOf(() => run(mapping, '{"a":1,"c":2}', limits({ totalFields: 2 })));
    expect(error.reason).toBe(
      '[1:12] failed to parse: Limit of total fields [2] has been exceeded while adding new fields [1]',
    );
  });

  it('leaves fields past the limit unmapped with ignore_dynamic_beyond_limit', () => {
    const result = run(
      {},
      '{"a":1,"b":{"c":2},"d":3}',
      limits({ totalFields: 2, ignoreDynamicBeyondLimit: true }),
    );
    expect(result.mapping.properties).toEqual({ a: { type: 'long' }, b: { properties: {} } });
  });

  it('refuses an object nested deeper than the depth limit while parsing, naming its path', () => {
    expect(run({}, nested(20)).changed).toBe(true); // objects a1…a19: the leaf a20 is at depth 20
    const text = nested(21);
    const error = errorOf(() => run({}, text));
    const path = Array.from({ length: 20 }, (_, i) => `a${i + 1}`).join('.');
    const col = text.indexOf('"a20":') + '"a20":'.length + 1;
    expect(error.type).toBe('document_parsing_exception');
    expect(error.reason).toBe(
      `[1:${col}] failed to parse: Limit of mapping depth [20] has been exceeded due to object field [${path}]`,
    );
    expect(error.causedBy).toEqual({
      type: 'illegal_argument_exception',
      reason: `Limit of mapping depth [20] has been exceeded due to object field [${path}]`,
    });
    const dotted = errorOf(() => run({}, '{"x.y.z":1}', limits({ depth: 2 })));
    expect(dotted.reason).toBe(
      '[1:10] failed to parse: Limit of mapping depth [2] has been exceeded due to object field [x.y]',
    );
  });

  it('does not map objects under dynamic false, so they never count against the limits', () => {
    const result = run({ dynamic: false }, `{"deep":${nested(30)},"a.b.c":1}`);
    expect(result.changed).toBe(false);
  });

  it('refuses a dynamic field name over field_name_length as illegal_argument_exception', () => {
    const error = errorOf(() => run({}, '{"short":1,"muchtoolong":2}', limits({ fieldNameLength: 5 })));
    expect(error.type).toBe('illegal_argument_exception');
    expect(error.reason).toBe('Field name [muchtoolong] is longer than the limit of [5] characters');
    expect(
      run(
        { properties: { muchtoolong: { type: 'long' } } },
        '{"muchtoolong":2}',
        limits({ fieldNameLength: 5 }),
      ).changed,
    ).toBe(false);
  });

  it('checks a whole mapping in ES order: total fields, depth, then name length (multi-fields by leaf name)', () => {
    const mapping: IndexMapping = {
      properties: {
        a: {
          properties: {
            b: { properties: { c: { type: 'keyword', fields: { toolongname: { type: 'keyword' } } } } },
          },
        },
      },
    };
    expect(errorOf(() => checkMappingLimits(mapping, limits({ totalFields: 3 }))).reason).toBe(
      'Limit of total fields [3] has been exceeded',
    );
    expect(errorOf(() => checkMappingLimits(mapping, limits({ depth: 2, fieldNameLength: 3 }))).reason).toBe(
      'Limit of mapping depth [2] has been exceeded due to object field [a.b]',
    );
    expect(errorOf(() => checkMappingLimits(mapping, limits({ fieldNameLength: 3 }))).reason).toBe(
      'Field name [toolongname] is longer than the limit of [3] characters',
    );
    expect(() =>
      checkMappingLimits(mapping, limits({ totalFields: 5, depth: 4, fieldNameLength: 11 })),
    ).not.toThrow();
  });

  it('reads the limits from index settings and validates their values as ES long settings', () => {
    expect(
      mappingLimitsOf({
        'index.mapping.total_fields.limit': '7',
        'index.mapping.depth.limit': '3',
        'index.mapping.field_name_length.limit': '9',
        'index.mapping.total_fields.ignore_dynamic_beyond_limit': 'true',
        'index.mapping.nested_fields.limit': '2',
        'index.mapping.nested_objects.limit': '5',
      }),
    ).toEqual({
      totalFields: 7,
      depth: 3,
      fieldNameLength: 9,
      ignoreDynamicBeyondLimit: true,
      nestedFields: 2,
      nestedObjects: 5,
    });
    expect(mappingLimitsOf({})).toEqual(DEFAULT_MAPPING_LIMITS);
    expect(errorOf(() => checkMappingLimitSetting('index.mapping.depth.limit', '0')).reason).toBe(
      'Failed to parse value [0] for setting [index.mapping.depth.limit] must be >= 1',
    );
    expect(errorOf(() => checkMappingLimitSetting('index.mapping.total_fields.limit', 'ten')).reason).toBe(
      'Failed to parse value [ten] for setting [index.mapping.total_fields.limit]',
    );
    expect(() => checkMappingLimitSetting('index.mapping.total_fields.limit', '0')).not.toThrow();
  });
});
