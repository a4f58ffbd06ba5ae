import { EsError } from '@acme/common';
import { AllocationBudget } from '../../src/script/allocation-budget';
import { compileScript } from '../../src/script/compile-script';
import { isScriptError, type ScriptError } from '../../src/script/script-error';
import type { ScriptLimits } from '../../src/script/script-limits';
import { createScriptRunner } from '../../src/script/script-runner';
import { fromJson, JsonTooLarge, toJson } from '../../src/script/script-values';

/** Runs `source` with a small allocation budget; returns the error, or undefined when it completes. */
function errorOf(source: string, limits: Partial<ScriptLimits>): ScriptError | undefined {
  try {
    compileScript(source, limits).run({ params: fromJson({ n: 64 }, { maxDepth: 8 }) });
    return undefined;
  } catch (error) {
    if (isScriptError(error)) return error;
    throw error;
  }
}

const BREAKER =
  /^\[script\] Data too large, data for \[script allocations\] would be \[\d+\/[\d.]+kb\], which is larger than the limit of \[65536\/64kb\]$/;

describe('the script allocation budget', () => {
  // Each script allocates well past 64 KiB in all, while every single value stays small.
  test.each([
    ['string concatenation', "String s = ''; for (int i = 0; i < 2000; i++) { s = s + 'x'; }"],
    ['String.concat', "String s = ''; for (int i = 0; i < 2000; i++) { s = s.concat('x'); }"],
    ['list growth', 'List l = []; for (int i = 0; i < 5000; i++) { l.add(i); }'],
    ['map growth', 'Map m = [:]; for (int i = 0; i < 5000; i++) { m.put(i, i); }'],
    ['map growth by member', "Map m = [:]; for (int i = 0; i < 5000; i++) { m['k' + i] = i; }"],
    [
      'addAll copies',
      'List a = [1, 2, 3, 4, 5, 6, 7, 8]; List l = []; for (int i = 0; i < 1000; i++) { l.addAll(a); }',
    ],
    ['list literals', 'for (int i = 0; i < 2000; i++) { List l = [1, 2, 3, 4]; }'],
    [
      'collection copies',
      'List a = []; for (int i = 0; i < 100; i++) { a.add(i); } for (int i = 0; i < 100; i++) { List b = new ArrayList(a); }',
    ],
    [
      'repeat through replace',
      "String s = 'ab'; for (int i = 0; i < 200; i++) { String t = 'xxxxxxxxxx'.replace('x', 'yyyyyyyyyy'); }",
    ],
    [
      'repeat through String.join',
      "List l = []; for (int i = 0; i < 100; i++) { l.add('abcdefghij'); } for (int i = 0; i < 100; i++) { String t = String.join(',', l); }",
    ],
    [
      'toString of a collection',
      'List l = []; for (int i = 0; i < 100; i++) { l.add(i); } for (int i = 0; i < 200; i++) { String t = l.toString(); }',
    ],
    [
      'for-each copies',
      'List l = []; for (int i = 0; i < 100; i++) { l.add(i); } for (int i = 0; i < 100; i++) { for (def x : l) {} }',
    ],
  ])('stops %s with a circuit_breaking_exception', (_name, source) => {
    expect(errorOf(source, {})).toBeUndefined(); // the default budget is far larger
    const error = errorOf(source, { maxAllocationBytes: 65_536 });
    expect(error?.kind).toBe('runtime');
    expect(error?.causeType).toBe('circuit_breaking_exception');
    expect(error?.message).toMatch(BREAKER);
  });

  test('the budget belongs to one run: a compiled script runs again with a fresh one', () => {
    const script = compileScript('List l = []; for (int i = 0; i < 3000; i++) { l.add(i); } l.size()', {
      maxAllocationBytes: 65_536,
    });
    expect(script.run({ params: new Map() })).toBe(3000n);
    expect(script.run({ params: new Map() })).toBe(3000n);
    const shared = new AllocationBudget(65_536);
    expect(script.run({ params: new Map() }, undefined, shared)).toBe(3000n);
    expect(() => script.run({ params: new Map() }, undefined, shared)).toThrow(/Data too large/);
  });

  test('points at the expression that went over', () => {
    const source = "List l = []; while (true) { l.add('x'); }";
    const error = errorOf(source, { maxAllocationBytes: 1_024 });
    expect(error?.offset).toBe(source.indexOf('.add') + 1);
  });

  test('printing a list of one long string many times stops at the string limit, before building it', () => {
    const source =
      "String s = 'x'; for (int i = 0; i < 16; i++) { s = s + s; } List l = []; for (int i = 0; i < 10000; i++) { l.add(s); } l.toString()";
    const started = Date.now();
    const error = errorOf(source, {});
    expect(error?.message).toBe('string length exceeds the limit of [1048576] characters');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  test('replace is checked before it builds its result', () => {
    const source =
      "String s = 'x'; for (int i = 0; i < 17; i++) { s = s + s; } String big = 'abcdefghij'.replace('', s)";
    // Ten characters with s between each: 10 + 9 × 131,072.
    expect(errorOf(source, {})?.message).toBe(
      `string length [${10 + 9 * 131_072}] exceeds the limit of [1048576] characters`,
    );
  });

  test('comparing two lists built by doubling ends at the step limit', () => {
    const source =
      'List a = [1]; List b = [1]; for (int i = 0; i < 40; i++) { a = [a, a]; b = [b, b]; } a == b';
    const started = Date.now();
    expect(errorOf(source, { maxSteps: 100_000 })?.message).toContain('The maximum number of statements');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(compileScript('List a = [1]; a = [a, a]; a == a').run({ params: new Map() })).toBe(true);
  });
});

describe('converting a script result to JSON', () => {
  test('counts the JSON bytes and stops past maxJsonBytes', () => {
    const value = fromJson({ a: 'é'.repeat(10), b: [1, true, null, 'x"y'] }, { maxDepth: 8 });
    const exact = Buffer.byteLength(JSON.stringify(toJson(value, { maxDepth: 8 })));
    expect(toJson(value, { maxDepth: 8, maxJsonBytes: exact })).toEqual({
      a: 'é'.repeat(10),
      b: [1, true, null, 'x"y'],
    });
    expect(() => toJson(value, { maxDepth: 8, maxJsonBytes: exact - 1 })).toThrow(JsonTooLarge);
  });

  test('a nested doubling (2^40 nodes) stops at the budget or the size, quickly', () => {
    const script = compileScript("List a = ['x']; for (int i = 0; i < 40; i++) { a = [a, a]; } a");
    const value = script.run({ params: new Map() });
    const started = Date.now();
    expect(() => toJson(value, { maxDepth: 256, budget: new AllocationBudget(1 << 20) })).toThrow(
      /Data too large/,
    );
    expect(() => toJson(value, { maxDepth: 256, maxJsonBytes: 1 << 20 })).toThrow(JsonTooLarge);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  test('an update script result past maxSourceBytes is an illegal_argument_exception', () => {
    const runner = createScriptRunner();
    const run = (maxSourceBytes: number) =>
      runner.runUpdateScript(
        "ctx._source.s = 'abcdef'",
        {},
        { _source: { n: 1 }, op: 'index' },
        { maxSourceBytes },
      );
    expect(run(22)._source).toEqual({ n: 1, s: 'abcdef' }); // {"n":1,"s":"abcdef"} is 20 bytes
    let error: unknown;
    try {
      run(19);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EsError);
    expect((error as EsError).toCause()).toEqual({
      type: 'illegal_argument_exception',
      reason: "the updated document's [_source] would be larger than the request size limit of [19] bytes",
    });
  });
});
