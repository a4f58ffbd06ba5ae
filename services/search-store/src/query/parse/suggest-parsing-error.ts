import { EsError } from '@acme/common';
import { locationOf } from './json-locations';

/** ES ParsingException inside `suggest`: 400 `parsing_exception` with the key's line and column. */
export function suggestParsingError(object: Record<string, unknown>, key: string, reason: string): EsError {
  const at = locationOf(object, key);
  return new EsError('parsing_exception', reason, {
    metadata: { line: at?.line ?? 1, col: at?.col ?? 1 },
  });
}
