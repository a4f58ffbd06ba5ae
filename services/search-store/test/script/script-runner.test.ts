import { EsError } from '@acme/common';
import { createScriptRunner } from '../../src/script/script-runner';

const runner = createScriptRunner();

describe('update scripts', () => {
  test.each<
    [string, string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>, string]
  >([
    [
      'adds a param to a counter',
      'ctx._source.count += params.n',
      { n: 4 },
      { count: 1 },
      { count: 5 },
      'index',
    ],
    ['keeps doubles as doubles', 'ctx._source.price *= 1.5', {}, { price: 3 }, { price: 4.5 }, 'index'],
    [
      'appends to a list',
      'ctx._source.tags.add(params.tag)',
      { tag: 'b' },
      { tags: ['a'] },
      { tags: ['a', 'b'] },
      'index',
    ],
    ['creates a field', "ctx._source.status = 'done'", {}, { a: 1 }, { a: 1, status: 'done' }, 'index'],
    ['removes a field', "ctx._source.remove('a')", {}, { a: 1, b: 2 }, { b: 2 }, 'index'],
    [
      'writes nested objects',
      "ctx._source.meta = ['by': params.user, 'n': 1]",
      { user: 'u' },
      {},
      { meta: { by: 'u', n: 1 } },
      'index',
    ],
    [
      'turns into a noop',
      "if (ctx._source.count > 10) { ctx._source.count++ } else { ctx.op = 'noop' }",
      {},
      { count: 1 },
      { count: 1 },
      'noop',
    ],
    [
      'turns into a delete',
      "if (ctx._source.count == 0) { ctx.op = 'delete' }",
      {},
      { count: 0 },
      { count: 0 },
      'delete',
    ],
  ])('%s', (_name, source, params, before, after, op) => {
    expect(runner.runUpdateScript(source, params, { _source: before, op: 'index' })).toEqual({
      _source: after,
      op,
    });
  });

  test('a "__proto__" key written by a script stays an own property and pollutes nothing', () => {
    const result = runner.runUpdateScript(
      "ctx._source['__proto__'] = ['polluted': true]",
      {},
      { _source: {}, op: 'index' },
    );
    expect(Object.hasOwn(result._source, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(result._source)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('an unknown op is refused', () => {
    expect(() => runner.runUpdateScript("ctx.op = 'explode'", {}, { _source: {}, op: 'index' })).toThrow(
      'op must be one of [delete, index, noop, none], not [explode]',
    );
  });

  test('a runaway update script fails as Elasticsearch wraps script errors in updates', () => {
    const source = 'while (true) { ctx._source.n++ }';
    let caught: unknown;
    try {
      createScriptRunner({ maxSteps: 1000 }).runUpdateScript(source, {}, { _source: { n: 0 }, op: 'index' });
    } catch (error) {
      caught = error;
    }
    const scriptException = {
      type: 'script_exception',
      reason: 'runtime error',
      // The step that ran out is the statement inside the loop.
      script_stack: [source, `${' '.repeat(15)}^---- HERE`],
      script: source,
      lang: 'painless',
      position: { offset: 15, start: 0, end: 32 },
    };
    expect(caught instanceof EsError && caught.toBody()).toEqual({
      error: {
        root_cause: [scriptException],
        type: 'illegal_argument_exception',
        reason: 'failed to execute script',
        caused_by: {
          ...scriptException,
          caused_by: {
            type: 'painless_error',
            reason: 'The maximum number of statements that can be executed in a loop has been reached.',
          },
        },
      },
      status: 400,
    });
  });

  test('a compile error in an update script is a 400 too', () => {
    expect(() => runner.runUpdateScript('ctx._source.n +', {}, { _source: {}, op: 'index' })).toThrow(
      'failed to execute script',
    );
  });
});
