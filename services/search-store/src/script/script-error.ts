import { EsError } from '@acme/common';

/** Where in the source an error points (UTF-16 offsets, as Painless reports them). */
export interface ScriptPosition {
  offset: number;
}

export type ScriptErrorKind = 'compile' | 'runtime';

/**
 * A script failure with its position. `causeType` is the Java exception Painless would have thrown
 * (illegal_argument_exception, null_pointer_exception, arithmetic_exception, class_cast_exception, …),
 * reported as `caused_by` of the `script_exception`.
 */
export class ScriptError extends Error {
  constructor(
    readonly kind: ScriptErrorKind,
    readonly causeType: string,
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = 'ScriptError';
  }

  /**
   * Elasticsearch's `script_exception` (PainlessScriptEngine.convertToScriptException): a snippet of
   * ±25 characters around the offset, a pointer line, and position {offset, start, end}.
   */
  toEsError(source: string): EsError {
    const offset = Math.max(0, Math.min(this.offset, source.length));
    const start = Math.max(0, offset - 25);
    const end = Math.min(source.length, offset + 25);
    const snippet = `${start > 0 ? '... ' : ''}${source.slice(start, end)}${end < source.length ? ' ...' : ''}`;
    const pointer = `${start > 0 ? '    ' : ''}${' '.repeat(offset - start)}^---- HERE`;
    return new EsError('script_exception', this.kind === 'compile' ? 'compile error' : 'runtime error', {
      metadata: {
        script_stack: [snippet, pointer],
        script: source,
        lang: 'painless',
        position: { offset, start, end },
      },
      causedBy: { type: this.causeType, reason: this.message },
    });
  }
}

export function isScriptError(value: unknown): value is ScriptError {
  return value instanceof ScriptError;
}
