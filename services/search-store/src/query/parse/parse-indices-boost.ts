import { EsError } from '@acme/common';
import { locationOf } from './json-locations';

/** One `indices_boost` entry: an index name, alias or wildcard and the boost of its documents. */
export interface IndexBoost {
  index: string;
  boost: number;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function tokenOf(value: unknown): string {
  if (isObject(value)) return 'START_OBJECT';
  if (Array.isArray(value)) return 'START_ARRAY';
  if (typeof value === 'string') return 'VALUE_STRING';
  if (typeof value === 'number') return 'VALUE_NUMBER';
  if (value === null) return 'VALUE_NULL';
  return 'VALUE_BOOLEAN';
}

function parsingError(reason: string, parent: object, key: string): EsError {
  const at = locationOf(parent, key);
  return new EsError('parsing_exception', reason, { metadata: { line: at?.line ?? 1, col: at?.col ?? 1 } });
}

/**
 * `indices_boost` as SearchSourceBuilder reads it: `[{"index": boost}, …]`, or the deprecated object
 * form `{"index": boost, …}`; boosts are floats; the order is kept (the first entry naming an index wins).
 */
export function parseIndicesBoost(body: Json): IndexBoost[] {
  const value = body.indices_boost;
  if (Array.isArray(value)) {
    return value.map((entry) => {
      if (!isObject(entry))
        throw parsingError(
          `Expected [START_OBJECT] in [indices_boost] but found [${tokenOf(entry)}]`,
          body,
          'indices_boost',
        );
      const keys = Object.keys(entry);
      if (keys.length === 0)
        throw parsingError(
          'Expected [FIELD_NAME] in [indices_boost] but found [END_OBJECT]',
          body,
          'indices_boost',
        );
      const boost = entry[keys[0]!];
      if (typeof boost !== 'number')
        throw parsingError(
          `Expected [VALUE_NUMBER] in [indices_boost] but found [${tokenOf(boost)}]`,
          entry,
          keys[0]!,
        );
      if (keys.length > 1)
        throw parsingError(
          'Expected [END_OBJECT] in [indices_boost] but found [FIELD_NAME]',
          entry,
          keys[1]!,
        );
      return { index: keys[0]!, boost: Math.fround(boost) };
    });
  }
  if (isObject(value)) {
    return Object.entries(value).map(([index, boost]) => {
      if (isObject(boost) || Array.isArray(boost))
        throw parsingError(`Unknown key for a ${tokenOf(boost)} in [${index}].`, value, index);
      const n = typeof boost === 'string' && boost.trim() !== '' ? Number(boost) : boost;
      if (typeof n !== 'number' || !Number.isFinite(n))
        throw parsingError(`[indices_boost] failed to parse field [${index}]`, value, index);
      return { index, boost: Math.fround(n) };
    });
  }
  throw parsingError(`Unknown key for a ${tokenOf(value)} in [indices_boost].`, body, 'indices_boost');
}
