import { EsError } from '@acme/common';
import type { Query } from '../query-ast';
import { locationOf } from './json-locations';
import type { Json } from './parse-term-level-params';

/**
 * ES TermsLookup's parser (a ConstructingObjectParser named `terms_lookup`): `index`, `id`, `path`
 * required, `routing` optional, each a string; another key is x_content_parse_exception "unknown
 * field". The values are fetched when the search runs (search/terms-lookup.ts).
 */
const KEYS = ['index', 'id', 'path', 'routing'] as const;

export function parseTermsLookup(spec: Json): Omit<Extract<Query, { kind: 'terms' }>, 'field' | 'boost'> {
  for (const key of Object.keys(spec)) {
    if (!(KEYS as readonly string[]).includes(key)) {
      const at = locationOf(spec, key);
      throw new EsError(
        'x_content_parse_exception',
        `[${at?.line ?? 1}:${at?.col ?? 1}] [terms_lookup] unknown field [${key}]`,
      );
    }
    const value = spec[key];
    if (typeof value !== 'string' && typeof value !== 'number') {
      const at = locationOf(spec, key);
      throw new EsError(
        'x_content_parse_exception',
        `[${at?.line ?? 1}:${at?.col ?? 1}] [terms_lookup] failed to parse field [${key}]`,
      );
    }
  }
  const missing = ['index', 'id', 'path'].filter((k) => spec[k] === undefined);
  if (missing.length > 0) throw new EsError('illegal_argument_exception', `Required [${missing.join(', ')}]`);
  const lookup = { index: String(spec.index), id: String(spec.id), path: String(spec.path) };
  return {
    kind: 'terms',
    values: [],
    lookup: spec.routing === undefined ? lookup : { ...lookup, routing: String(spec.routing) },
  };
}
