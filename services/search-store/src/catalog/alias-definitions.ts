import { EsError, newDictionary } from '@acme/common';
import { checkIndexName } from './check-index-name';

export interface AliasDefinition {
  is_write_index?: boolean;
  filter?: Record<string, unknown>;
  routing?: string;
  index_routing?: string;
  search_routing?: string;
  is_hidden?: boolean;
}

/** Parses a request's `aliases` object (`{"a1":{}, "a2":{"is_write_index":true}}`). */
export function parseAliasDefinitions(input: unknown): Record<string, AliasDefinition> {
  if (input === undefined) return {};
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new EsError('illegal_argument_exception', 'aliases must be an object');
  }
  const out = newDictionary<AliasDefinition>(); // alias names are the request's
  for (const [name, definition] of Object.entries(input as Record<string, unknown>)) {
    checkIndexName(name, 'alias');
    out[name] = (definition ?? {}) as AliasDefinition;
  }
  return out;
}
