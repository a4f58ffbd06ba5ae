import { EsError } from '@acme/common';
import { compileRuntimeFields, type DocumentValues } from '../../src/script/runtime-fields';
import { formatFieldValues } from '../../src/script/runtime-fields';

const doc: DocumentValues = {
  docValues: (field) =>
    ({
      voltage: { type: 'double' as const, values: [4.0] },
      count: { type: 'long' as const, values: [3, 1] },
      name: { type: 'keyword' as const, values: ['Ada'] },
      at: { type: 'date' as const, values: [Date.UTC(2021, 4, 6, 7, 8, 9)] },
      empty: { type: 'long' as const, values: [] },
    })[field],
  source: { title: 'Hello World', nested: { n: 7 }, list: [3, 1, 2] },
};

function evaluate(mappings: Record<string, unknown>, field: string): unknown[] {
  return (
    compileRuntimeFields(mappings).get(field) as {
      evaluate: (d: DocumentValues, deadline: number) => unknown[];
    }
  ).evaluate(doc, Date.now() + 1000);
}

function esError(run: () => unknown): ReturnType<EsError['toBody']>['error'] {
  try {
    run();
  } catch (error) {
    if (error instanceof EsError) return error.toBody().error;
    throw error;
  }
  throw new Error('expected an EsError');
}

describe('runtime fields', () => {
  test.each<[string, Record<string, unknown>, unknown[]]>([
    // Elasticsearch runtime_fields/30_double.yml: voltage_percent = voltage / params.max
    [
      'a double from a doc value and params',
      { type: 'double', script: { source: "emit(doc['voltage'].value / params.max)", params: { max: 5.8 } } },
      [0.6896551724137931],
    ],
    [
      'a long emitted many times comes back sorted',
      { type: 'long', script: "for (def v : doc['count']) { emit(v * 10) }" },
      [10, 30],
    ],
    ['a long from integer division truncates', { type: 'long', script: "emit(doc['count'].value / 2)" }, [1]],
    [
      'a keyword built from strings',
      { type: 'keyword', script: "emit(doc['name'].value.toLowerCase() + '-' + doc['count'].size())" },
      ['ada-2'],
    ],
    ['a boolean from a comparison', { type: 'boolean', script: "emit(doc['voltage'].value > 3)" }, [true]],
    [
      'a date from a date doc value',
      { type: 'date', script: "emit(doc['at'].value.millis + 1000)" },
      [Date.UTC(2021, 4, 6, 7, 8, 10)],
    ],
    [
      'a keyword from params._source',
      { type: 'keyword', script: 'emit(params._source.title.substring(0, 5))' },
      ['Hello'],
    ],
    [
      'no values when the script emits nothing',
      { type: 'long', script: "if (doc['empty'].size() > 0) { emit(doc['empty'].value) }" },
      [],
    ],
    ['a field without a script reads _source', { type: 'long' }, []],
  ])('%s', (_name, mapping, expected) => {
    expect(evaluate({ f: mapping }, 'f')).toEqual(expected);
  });

  test('a field without a script reads its own _source path', () => {
    expect(evaluate({ list: { type: 'long' } }, 'list')).toEqual([1, 2, 3]);
    expect(evaluate({ 'nested.n': { type: 'double' } }, 'nested.n')).toEqual([7]);
  });

  test('a runtime field may read another runtime field', () => {
    expect(
      evaluate(
        {
          base: { type: 'long', script: "emit(doc['count'][0] + doc['count'][1])" },
          twice: { type: 'long', script: "emit(doc['base'].value * 2)" },
        },
        'twice',
      ),
    ).toEqual([8]);
  });

  test('emitting the wrong type is a script_exception', () => {
    expect(esError(() => evaluate({ f: { type: 'long', script: "emit('x')" } }, 'f'))).toMatchObject({
      type: 'script_exception',
      reason: 'runtime error',
      caused_by: { type: 'class_cast_exception', reason: 'Cannot cast from [java.lang.String] to [long].' },
    });
  });

  test('more than 100 values per document is refused with Elasticsearch message', () => {
    expect(
      esError(() =>
        evaluate({ f: { type: 'long', script: 'for (int i = 0; i < 200; i++) { emit(i) }' } }, 'f'),
      ),
    ).toMatchObject({
      type: 'script_exception',
      caused_by: {
        type: 'illegal_argument_exception',
        reason:
          'Runtime field [f] is emitting [101] values while the maximum number of values allowed is [100]',
      },
    });
  });

  test('a compile error is reported when runtime_mappings are parsed', () => {
    expect(esError(() => compileRuntimeFields({ f: { type: 'long', script: 'emit(' } }))).toMatchObject({
      type: 'script_exception',
      reason: 'compile error',
      script: 'emit(',
      lang: 'painless',
    });
  });

  test.each<[string, unknown, string]>([
    ['no type', { f: { script: 'emit(1)' } }, 'No type specified for field [f]'],
    [
      'an unknown type',
      { f: { type: 'object', script: 'emit(1)' } },
      'No handler for type [object] declared on runtime field [f]',
    ],
  ])('%s is a mapper_parsing_exception', (_name, mappings, reason) => {
    expect(esError(() => compileRuntimeFields(mappings))).toMatchObject({
      type: 'mapper_parsing_exception',
      reason,
    });
  });

  test('cyclic runtime fields fail instead of recursing', () => {
    const error = esError(() =>
      evaluate(
        {
          a: { type: 'long', script: "emit(doc['b'].value)" },
          b: { type: 'long', script: "emit(doc['a'].value)" },
        },
        'a',
      ),
    );
    expect(error.type).toBe('illegal_argument_exception');
    expect(error.reason).toContain('Cyclic dependency detected');
  });
});

test('date runtime values show as ISO strings in fields, others unchanged', async () => {
  expect(formatFieldValues('date', [Date.UTC(2020, 0, 1)])).toEqual(['2020-01-01T00:00:00.000Z']);
  expect(formatFieldValues('double', [0.5, 1])).toEqual([0.5, 1]);
});

test('deeply nested params are refused with a clean 400', () => {
  let params: unknown = 1;
  for (let i = 0; i < 200; i++) params = { p: params };
  expect(
    esError(() => compileRuntimeFields({ f: { type: 'long', script: { source: 'emit(1)', params } } })),
  ).toMatchObject({
    type: 'illegal_argument_exception',
    reason: '[params] of runtime field [f] are nested too deeply',
  });
});
