import { EsError } from '@acme/common';
import { locationOf } from './json-locations';
import { parseCompletionSuggester, type CompletionSuggester } from './parse-completion-suggester';
import { parsePhraseSuggester, type PhraseSuggester } from './parse-phrase-suggester';
import { parseTermSuggester, type TermSuggester } from './parse-term-suggester';
import { suggestParsingError } from './suggest-parsing-error';

/**
 * The `suggest` section of a search (ES SuggestBuilder.fromXContent): an optional global `text`, then
 * one object per named suggestion holding `text`/`prefix`/`regex` and exactly one suggester object.
 * Option checks that ES makes while parsing answer 400 here; those it makes on the shard (an
 * unmapped field, a missing text) are the runner's (search/suggest/run-suggest.ts).
 */
export interface Suggestion {
  name: string;
  /** The suggestion's own `text`, else the global one; undefined when neither was given. */
  text?: string;
  prefix?: string;
  regex?: string;
  suggester: Suggester;
}

export type Suggester = TermSuggester | PhraseSuggester | CompletionSuggester;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isValue(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

export function parseSuggest(value: unknown): Suggestion[] {
  if (!isObject(value))
    throw new EsError('parsing_exception', '[suggest] must be an object', { metadata: { line: 1, col: 1 } });
  let globalText: string | undefined;
  const suggestions: Suggestion[] = [];
  for (const [name, spec] of Object.entries(value)) {
    if (name === 'text' && isValue(spec)) {
      globalText = String(spec);
      continue;
    }
    if (!isObject(spec)) throw suggestParsingError(value, name, `suggestion does not support [${name}]`);
    suggestions.push(parseSuggestion(name, spec));
  }
  for (const suggestion of suggestions)
    suggestion.text ??= suggestion.prefix ?? suggestion.regex ?? globalText;
  return suggestions;
}

function parseSuggestion(name: string, spec: Json): Suggestion {
  const out: Partial<Suggestion> & { name: string } = { name };
  for (const [key, option] of Object.entries(spec)) {
    if (isValue(option)) {
      if (key === 'text') out.text = String(option);
      else if (key === 'prefix') out.prefix = String(option);
      else if (key === 'regex') out.regex = String(option);
      else throw suggestParsingError(spec, key, `suggestion does not support [${key}]`);
    } else if (isObject(option)) {
      if (key === 'term') out.suggester = parseTermSuggester(option);
      else if (key === 'phrase') out.suggester = parsePhraseSuggester(option);
      else if (key === 'completion') out.suggester = parseCompletionSuggester(option);
      else {
        // NamedXContentRegistry: an unregistered suggester name is an XContentParseException.
        const at = locationOf(spec, key);
        throw new EsError(
          'x_content_parse_exception',
          `[${at?.line ?? 1}:${at?.col ?? 1}] unknown field [${key}]`,
        );
      }
    }
  }
  if (!out.suggester) throw new EsError('parse_exception', 'missing suggestion object');
  return out as Suggestion;
}
