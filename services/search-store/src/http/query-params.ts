import { EsError } from '@acme/common';

/** A flag parameter as Elasticsearch reads it: present with no value or `true` means true. */
export function isTruthyParam(value: unknown): boolean {
  return value === '' || value === 'true';
}

/** Parses a boolean parameter strictly, as Elasticsearch's `paramAsBoolean` does. */
export function parseBooleanParam(value: unknown, name: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (value === '' || value === 'true') return true;
  if (value === 'false') return false;
  throw new EsError(
    'illegal_argument_exception',
    `Failed to parse value [${String(value)}] as only [true] or [false] are allowed.`,
  );
}

export function stringParam(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[value.length - 1] as string;
  return undefined;
}

/** Parses an integer parameter (`if_seq_no`, `version`, …) the way Elasticsearch rejects bad ones. */
export function parseLongParam(value: unknown, name: string): number | undefined {
  const text = stringParam(value);
  if (text === undefined) return undefined;
  if (!/^-?\d+$/.test(text)) {
    throw new EsError(
      'illegal_argument_exception',
      `Failed to parse long parameter [${name}] with value [${text}]`,
    );
  }
  return Number(text);
}

/** `refresh` on writes: true/""/wait_for/false; anything else is rejected as Elasticsearch does. */
export type RefreshPolicy = 'true' | 'false' | 'wait_for';
export function parseRefreshParam(value: unknown): RefreshPolicy {
  const text = stringParam(value);
  if (text === undefined || text === 'false') return 'false';
  if (text === '' || text === 'true') return 'true';
  if (text === 'wait_for') return 'wait_for';
  throw new EsError('illegal_argument_exception', `Unknown value for refresh: [${text}].`);
}
