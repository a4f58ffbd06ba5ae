import { EsError } from '@acme/common';
import type { Query } from '../query-ast';
import { parseQuery } from './parse-query';

/** A field sort's `nested` option (ES NestedSortBuilder): the objects whose values sort a document. */
export interface NestedSort {
  path: string;
  filter?: Query;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `nested: {path, filter, max_children}`; a `nested` inside it (deeper levels) is not supported. */
export function parseNestedSort(value: unknown): NestedSort {
  if (!isObject(value))
    throw new EsError('parsing_exception', '[nested] failed to parse field [nested]', {
      metadata: { line: 1, col: 1 },
    });
  for (const key of Object.keys(value)) {
    if (key === 'nested')
      throw new EsError(
        'illegal_argument_exception',
        '[nested] sort inside a nested sort is not supported by search-store',
      );
    if (key !== 'path' && key !== 'filter' && key !== 'max_children')
      throw new EsError('parsing_exception', `[nested] unknown field [${key}]`, {
        metadata: { line: 1, col: 1 },
      });
  }
  if (typeof value.path !== 'string')
    throw new EsError('illegal_argument_exception', '[nested] requires [path] field');
  return {
    path: value.path,
    ...(value.filter === undefined ? {} : { filter: parseQuery(value.filter, value, 'filter') }),
  };
}
