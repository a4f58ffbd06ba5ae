import { compileScript } from '../../src/script/compile-script';
import { isScriptError, type ScriptError } from '../../src/script/script-error';
import type { ScriptLimits } from '../../src/script/script-limits';
import { DocMap, DocValues, fromJson, toJson, type Value } from '../../src/script/script-values';

const docs: Record<string, DocValues> = {
  price: new DocValues('price', 'double', [12.5]),
  qty: new DocValues('qty', 'long', [3n]),
  tags: new DocValues('tags', 'keyword', ['a', 'b']),
  none: new DocValues('none', 'long', []),
};

function run(
  source: string,
  params: Record<string, unknown> = {},
  limits: Partial<ScriptLimits> = {},
): unknown {
  const script = compileScript(source, limits);
  const emitted: Value[] = [];
  const result = script.run({
    params: fromJson(params, { maxDepth: 64 }),
    doc: new DocMap((f) => docs[f]),
    emit: (args) => emitted.push(args[0] ?? null),
  });
  return emitted.length > 0
    ? emitted.map((v) => toJson(v, { maxDepth: 64 }))
    : toJson(result, { maxDepth: 64 });
}

function failure(
  source: string,
  params: Record<string, unknown> = {},
  limits: Partial<ScriptLimits> = {},
): ScriptError {
  try {
    run(source, params, limits);
  } catch (error) {
    if (isScriptError(error)) return error;
    throw error;
  }
  throw new Error(`expected ${source} to fail`);
}

describe('script interpreter', () => {
  // A rest parameter: jest treats a callback with more parameters than the row has as a `done` test.
  test.each<[string, unknown, Record<string, unknown>?]>([
    ['1 + 2', 3],
    ['7 / 2', 3],
    ['-7 / 2', -3],
    ['7 % 3', 1],
    ['7.0 / 2', 3.5],
    ['7 / 2.0', 3.5],
    ['1 / 0.0', null],
    ['"a" + 1 + 2', 'a12'],
    ['1 + 2 + "a"', '3a'],
    ["'x' + 1.0", 'x1.0'],
    ["'x' + 0.1", 'x0.1'],
    ["'v' + null", 'vnull'],
    ['2 * 3 + 4 * 5', 26],
    ['(2 + 3) * 4', 20],
    ['10 - 2 - 3', 5],
    ['1 < 2 && 2 < 3', true],
    ['1 == 1.0', true],
    ["'a' == 'a'", true],
    ['true ? 1 : 2', 1],
    ['null ?: 5', 5],
    ['int x = 5; x += 2; return x;', 7],
    ['int x = 7; x /= 2; return x;', 3],
    ['double d = 1; return d / 2;', 0.5],
    ['long n = 0; for (int i = 0; i < 10; i++) { n += i; } return n;', 45],
    ['int i = 0; while (true) { i++; if (i > 4) break; } return i;', 5],
    ['int s = 0; for (def v : [1, 2, 3]) { if (v == 2) continue; s += v; } return s;', 4],
    ['def l = [1, 2]; l.add(3); return l.size();', 3],
    ['def l = new ArrayList(); l.add("x"); return l.contains("x");', true],
    ['def m = [:]; m.put("a", 1); m["b"] = 2; m.c = 3; return m.get("a") + m.b + m["c"];', 6],
    ['def m = ["k": 1]; return m.containsKey("k") && !m.containsKey("z");', true],
    ["'Hello'.length()", 5],
    ["'Hello'.substring(1, 3)", 'el'],
    ["'Hello'.toLowerCase() + 'x'.toUpperCase()", 'helloX'],
    ["'Hello'.contains('ell') && 'Hello'.startsWith('He')", true],
    ['Math.max(3, 9)', 9],
    ['Math.min(3, 1.5)', 1.5],
    ['Math.abs(-4)', 4],
    ['Math.pow(2, 10)', 1024],
    ['Math.sqrt(16)', 4],
    ['Math.floor(2.7) + Math.ceil(2.1)', 5],
    ['Math.round(2.5)', 3],
    ['Math.round(-2.5)', -2],
    ['(int) 3.9', 3],
    ['(long) -3.9', -3],
    ['(double) 3 / 2', 1.5],
    ['Integer.parseInt("42") + 1', 43],
    ['params.n * 2', 10, { n: 5 }],
    ["params['s'] + '!'", 'hi!', { s: 'hi' }],
    ['params.list[1]', 'b', { list: ['a', 'b'] }],
    ['params.missing == null', true],
    ["doc['price'].value * doc['qty'].value", 37.5],
    ["doc['qty'].value / 2", 1],
    ["doc['tags'].size()", 2],
    ["doc['tags'][1]", 'b'],
    ["doc['none'].empty", true],
    ["doc['none'].size() == 0 ? -1 : doc['none'].value", -1],
    ['String s = "a"; s += "b"; return s;', 'ab'],
    ['boolean b = false; return !b || 1/0 == 1;', true],
    ['false && 1/0 == 1', false],
    [
      'int a = 1; if (a > 2) { return "big"; } else if (a > 0) { return "small"; } else { return "neg"; }',
      'small',
    ],
    ['int c = 0; do { c++; } while (c < 3); return c;', 3],
    ['// comment\n/* block */ 1', 1],
    ['def x = 9223372036854775807L; return x + 1 < 0;', true],
    ['params.__proto__', null, { a: 1 }],
    ['params.constructor', null, {}],
    ['[1, [2, 3]].toString()', '[1, [2, 3]]'],
    ['def m = [:]; m.__proto__ = 1; return m.__proto__;', 1],
  ])('%s → %j', (...[source, expected, params]) => {
    expect(run(source, params)).toEqual(expected);
  });

  test('emit may be called many times and collects each value', () => {
    expect(run("for (def t : doc['tags']) { emit(t + '!'); }")).toEqual(['a!', 'b!']);
  });

  test('a map assignment to "__proto__" stays a plain key and pollutes nothing', () => {
    const result = run('def m = [:]; m["__proto__"] = ["polluted": true]; return m;') as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.hasOwn(result, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('script errors carry a type and position', () => {
  test.each<[string, string, string, number]>([
    ['1 +', 'compile', 'illegal_argument_exception', 3],
    ["'abc", 'compile', 'illegal_argument_exception', 0],
    ['int x = ;', 'compile', 'illegal_argument_exception', 8],
    ['1 # 2', 'compile', 'illegal_argument_exception', 2],
    ['foo(1)', 'runtime', 'illegal_argument_exception', 0],
    ['unknownVar + 1', 'runtime', 'illegal_argument_exception', 0],
    ['1 / 0', 'runtime', 'arithmetic_exception', 2],
    ['5 % 0', 'runtime', 'arithmetic_exception', 2],
    ["doc['nope'].value", 'runtime', 'illegal_argument_exception', 3],
    ["doc['none'].value", 'runtime', 'illegal_state_exception', 12],
    ['int x = 1.5;', 'runtime', 'class_cast_exception', 4],
    ['def x = null; x.foo()', 'runtime', 'null_pointer_exception', 16],
    ["'abc'.substring(5)", 'runtime', 'string_index_out_of_bounds_exception', 6],
    ["'abc'.getClass()", 'runtime', 'illegal_argument_exception', 6],
    ["'abc'.constructor", 'runtime', 'illegal_argument_exception', 6],
    ['[1].get(3)', 'runtime', 'index_out_of_bounds_exception', 4],
    ['if (1) { 2 }', 'runtime', 'class_cast_exception', 4],
    ['Integer.parseInt("x1")', 'runtime', 'number_format_exception', 8],
    ['params.a.b.c', 'runtime', 'null_pointer_exception', 9],
    ['"a" - 1', 'runtime', 'class_cast_exception', 4],
  ])('%s fails as %s %s at %d', (source, kind, causeType, offset) => {
    const error = failure(source);
    expect({ kind: error.kind, causeType: error.causeType, offset: error.offset }).toEqual({
      kind,
      causeType,
      offset,
    });
  });

  test('maps to an Elasticsearch script_exception with stack, script and position', () => {
    const source = "emit(doc['none'].value)";
    const script = compileScript(source);
    let caught: ScriptError | undefined;
    try {
      script.run({ params: new Map(), doc: new DocMap((f) => docs[f]), emit: () => undefined });
    } catch (error) {
      caught = error as ScriptError;
    }
    expect(caught && script.toEsError(caught).toBody()).toEqual({
      error: {
        root_cause: [
          {
            type: 'script_exception',
            reason: 'runtime error',
            script_stack: [source, '                 ^---- HERE'],
            script: source,
            lang: 'painless',
            position: { offset: 17, start: 0, end: 23 },
          },
        ],
        type: 'script_exception',
        reason: 'runtime error',
        script_stack: [source, '                 ^---- HERE'],
        script: source,
        lang: 'painless',
        position: { offset: 17, start: 0, end: 23 },
        caused_by: {
          type: 'illegal_state_exception',
          reason:
            "A document doesn't have a value for a field! Use doc[<field>].size()==0 to check if a document is missing a field!",
        },
      },
      status: 400,
    });
  });

  test('a compile error in a long script shows an elided snippet of ±25 characters', () => {
    const source = `${'x = 1; '.repeat(10)}return )`;
    const error = failure(source);
    const body = error.toEsError(source).toBody();
    expect(body.error).toMatchObject({
      reason: 'compile error',
      script_stack: [`... ${source.slice(52, 78)}`, `    ${' '.repeat(25)}^---- HERE`],
      position: { offset: 77, start: 52, end: 78 },
    });
  });
});

describe('hostile scripts end in a clean ScriptError within the limits', () => {
  const limits: Partial<ScriptLimits> = { maxSteps: 10_000, timeoutMs: 500 };

  test.each<[string, string]>([
    ['while (true) {}', 'The maximum number of statements'],
    ['for (;;) {}', 'The maximum number of statements'],
    ['int i = 0; while (i >= 0) { i++; }', 'The maximum number of statements'],
    ['do {} while (true)', 'The maximum number of statements'],
    ["def s = 'x'; while (true) { s = s + s; }", 'string length'],
    ['def l = [1]; while (true) { l.addAll(l); }', 'collection size'],
    ['def m = [:]; int i = 0; while (true) { m.put(i++, i); }', 'The maximum number of statements'],
  ])('%s', (source, message) => {
    const started = Date.now();
    const error = failure(source, {}, { ...limits, maxStringLength: 100_000, maxCollectionSize: 5_000 });
    expect(error.kind).toBe('runtime');
    expect(error.message).toContain(message);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  test.each<[string, string]>([
    ['deeply nested parentheses', `${'('.repeat(5_000)}1${')'.repeat(5_000)}`],
    ['deeply nested blocks', `${'{'.repeat(5_000)}${'}'.repeat(5_000)}`],
    ['deeply nested ifs', `${'if (true) '.repeat(5_000)}1`],
    ['deeply nested unary minus', `${'-'.repeat(10_000)}1`],
    ['deeply nested lists', `${'['.repeat(5_000)}${']'.repeat(5_000)}`],
    ['a huge token stream', '1+'.repeat(50_000) + '1'],
  ])('%s fails at compile time', (_name, source) => {
    const started = Date.now();
    let error: unknown;
    try {
      compileScript(source);
    } catch (e) {
      error = e;
    }
    expect(isScriptError(error) && error.kind).toBe('compile');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  test('the wall-clock deadline stops a script that stays within its step budget', () => {
    const script = compileScript('long n = 0; while (true) { n++; }', {
      maxSteps: Number.MAX_SAFE_INTEGER,
      timeoutMs: 50,
    });
    const started = Date.now();
    expect(() => script.run({ params: new Map() })).toThrow(/time limit of \[50ms\]/);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  test('a script cannot reach globals, prototypes or the process', () => {
    for (const source of [
      'process',
      'globalThis',
      'this',
      'require("fs")',
      'Function("x")',
      'params.__proto__.polluted = 1; return 1',
    ]) {
      const error = failure(source, {});
      expect(isScriptError(error)).toBe(true);
    }
  });

  test.each([
    'Math.toString(1)',
    'Math.valueOf(1)',
    'Math.constructor(1)',
    'Math.hasOwnProperty(1)',
    'Math.__proto__(1)',
    'Math.isPrototypeOf(1)',
  ])('%s finds no Math function: methods come from own tables only', (source) => {
    const error = failure(source);
    expect(error.causeType).toBe('illegal_argument_exception');
    expect(error.message).toMatch(/^Unknown call \[\w+\] with \[1\] arguments on type \[Math\]\.$/);
  });

  test.each(['Math.constructor', 'Math.prototype', 'Math.__proto__', "'s'.constructor", '[1].constructor'])(
    '%s is no field a script can read',
    (source) => {
      expect(isScriptError(failure(source))).toBe(true);
    },
  );
});
