import { EsError, newDictionary } from '@acme/common';
import { unknownFieldError } from '../../http/unknown-field';
import type { IndexMapping } from '../../mapping/mapping-types';
import { parseMappingDefinition } from '../../mapping/parse-mapping';
import { parseAliasDefinitions, type AliasDefinition } from '../alias-definitions';
import { buildIndexSettings, flattenSettings } from '../index-settings';
import { dataStreamsUnsupported } from './template-errors';
import type { ComponentTemplate, IndexTemplate, TemplateContent } from './template-types';

/** Where a body path starts (`[line:col]` of ObjectParser errors); `undefined` when unknown. */
export type Locate = (path: (string | number)[]) => { line: number; col: number } | undefined;

const INDEX_TEMPLATE_FIELDS = [
  'index_patterns',
  'template',
  'composed_of',
  'priority',
  'version',
  '_meta',
  'allow_auto_create',
  'data_stream',
  'ignore_missing_component_templates',
  'deprecated',
];
const COMPONENT_TEMPLATE_FIELDS = ['template', 'version', '_meta', 'deprecated'];
const TEMPLATE_FIELDS = ['settings', 'mappings', 'aliases', 'lifecycle', 'data_stream_options'];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkFields(
  parser: string,
  body: Record<string, unknown>,
  declared: readonly string[],
  path: string[],
  locate: Locate,
): void {
  for (const key of Object.keys(body)) {
    if (!declared.includes(key)) throw unknownFieldError(parser, key, declared, locate([...path, key]));
  }
}

function parseError(parser: string, field: string, at: { line: number; col: number } | undefined): EsError {
  const where = at ?? { line: 1, col: 2 };
  return new EsError(
    'x_content_parse_exception',
    `[${where.line}:${where.col}] [${parser}] failed to parse field [${field}]`,
  );
}

function optionalLong(
  parser: string,
  body: Record<string, unknown>,
  field: string,
  locate: Locate,
): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw parseError(parser, field, locate([field]));
  return n;
}

function stringList(parser: string, body: Record<string, unknown>, field: string, locate: Locate): string[] {
  const value = body[field];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string') && value.length <= 1000) return value;
  throw parseError(parser, field, locate([field]));
}

/**
 * PUT /_index_template/{name}'s body (ES ComposableIndexTemplate's parser): unknown fields refused
 * with "did you mean", `index_patterns` required (a string or a list), `data_stream` refused.
 */
export function parseIndexTemplateBody(body: Record<string, unknown>, locate: Locate): IndexTemplate {
  checkFields('index_template', body, INDEX_TEMPLATE_FIELDS, [], locate);
  if (body.data_stream !== undefined && body.data_stream !== null)
    throw dataStreamsUnsupported('data_stream');
  const ignoreMissing = body.ignore_missing_component_templates;
  if (
    ignoreMissing !== undefined &&
    ignoreMissing !== null &&
    !(Array.isArray(ignoreMissing) && ignoreMissing.length === 0)
  ) {
    // Refused rather than stored and ignored: composed_of must name existing templates here.
    throw new EsError('illegal_argument_exception', '[ignore_missing_component_templates] is not supported');
  }
  if (body.index_patterns === undefined) {
    throw new EsError('illegal_argument_exception', 'Required [index_patterns]');
  }
  const template: IndexTemplate = {
    index_patterns: stringList('index_template', body, 'index_patterns', locate),
    composed_of:
      body.composed_of === undefined ? [] : stringList('index_template', body, 'composed_of', locate),
  };
  if (body.template !== undefined && body.template !== null) {
    template.template = parseTemplateContent(body.template, ['template'], locate);
  }
  const priority = optionalLong('index_template', body, 'priority', locate);
  if (priority !== undefined) {
    if (priority < 0) {
      throw new EsError(
        'action_request_validation_exception',
        'Validation Failed: 1: index template priority must be >= 0;',
      );
    }
    template.priority = priority;
  }
  const version = optionalLong('index_template', body, 'version', locate);
  if (version !== undefined) template.version = version;
  if (body._meta !== undefined && body._meta !== null) {
    if (!isObject(body._meta)) throw parseError('index_template', '_meta', locate(['_meta']));
    template._meta = body._meta;
  }
  if (body.allow_auto_create !== undefined && body.allow_auto_create !== null) {
    if (typeof body.allow_auto_create !== 'boolean') {
      throw parseError('index_template', 'allow_auto_create', locate(['allow_auto_create']));
    }
    template.allow_auto_create = body.allow_auto_create;
  }
  return template;
}

/** PUT /_component_template/{name}'s body (ES ComponentTemplate's parser): `template` required. */
export function parseComponentTemplateBody(body: Record<string, unknown>, locate: Locate): ComponentTemplate {
  checkFields('component_template', body, COMPONENT_TEMPLATE_FIELDS, [], locate);
  if (body.template === undefined || body.template === null) {
    throw new EsError('illegal_argument_exception', 'Required [template]');
  }
  const template: ComponentTemplate = { template: parseTemplateContent(body.template, ['template'], locate) };
  const version = optionalLong('component_template', body, 'version', locate);
  if (version !== undefined) template.version = version;
  if (body._meta !== undefined && body._meta !== null) {
    if (!isObject(body._meta)) throw parseError('component_template', '_meta', locate(['_meta']));
    template._meta = body._meta;
  }
  return template;
}

/**
 * A `template` object: settings flattened under `index.` (ES normalizePrefix), mappings without a
 * `_doc` wrapper, aliases with `routing` split into index and search routing (as ES stores them).
 * Settings and mappings are only read here; their checks run in `checkTemplateContent`.
 */
function parseTemplateContent(input: unknown, path: string[], locate: Locate): TemplateContent {
  if (!isObject(input)) throw parseError('template', path[path.length - 1] ?? 'template', locate(path));
  checkFields('template', input, TEMPLATE_FIELDS, path, locate);
  if (input.lifecycle !== undefined) throw dataStreamsUnsupported('lifecycle');
  if (input.data_stream_options !== undefined) throw dataStreamsUnsupported('data_stream_options');
  const content: TemplateContent = {};
  if (input.settings !== undefined && input.settings !== null) {
    if (!isObject(input.settings)) throw parseError('template', 'settings', locate([...path, 'settings']));
    content.settings = flattenSettings(input.settings);
  }
  if (input.mappings !== undefined && input.mappings !== null) {
    if (!isObject(input.mappings)) throw parseError('template', 'mappings', locate([...path, 'mappings']));
    const keys = Object.keys(input.mappings);
    const unwrapped = keys.length === 1 && keys[0] === '_doc' ? input.mappings._doc : input.mappings;
    content.mappings = unwrapped as IndexMapping;
  }
  if (input.aliases !== undefined && input.aliases !== null) {
    if (!isObject(input.aliases)) throw parseError('template', 'aliases', locate([...path, 'aliases']));
    content.aliases = normaliseAliases(parseAliasDefinitions(input.aliases));
  }
  return content;
}

function normaliseAliases(aliases: Record<string, AliasDefinition>): Record<string, AliasDefinition> {
  const out = newDictionary<AliasDefinition>();
  for (const [name, definition] of Object.entries(aliases)) {
    if (!isObject(definition)) {
      throw new EsError('illegal_argument_exception', `alias [${name}] must be an object`);
    }
    const { routing, ...rest } = definition;
    const alias: AliasDefinition = { ...rest };
    if (typeof routing === 'string') {
      alias.index_routing ??= routing;
      alias.search_routing ??= routing;
    }
    out[name] = alias;
  }
  return out;
}

/** The settings checks of index creation (`catalog/index-settings.ts`), on a template's settings. */
export function checkTemplateSettings(settings: Record<string, string>): void {
  buildIndexSettings('template', 'template', settings);
}

/** The template's mapping through the index mapping parser; returns the parsed mapping. */
export function checkTemplateMappings(mappings: IndexMapping): IndexMapping {
  return parseMappingDefinition(mappings);
}

/** ES MetadataIndexTemplateService#validate's name and pattern rules, as one list of problems. */
export function templateNameProblems(name: string, patterns: string[]): string[] {
  const problems: string[] = [];
  if (name.includes(' ')) problems.push('name must not contain a space');
  if (name.includes(',')) problems.push("name must not contain a ','");
  if (name.includes('#')) problems.push("name must not contain a '#'");
  if (name.includes('*')) problems.push("name must not contain a '*'");
  if (name.startsWith('_')) problems.push("name must not start with '_'");
  if (name.toLowerCase() !== name) problems.push('name must be lower cased');
  for (const pattern of patterns) {
    if (pattern.includes(' ')) problems.push(`index_patterns [${pattern}] must not contain a space`);
    if (pattern.includes(',')) problems.push(`index_pattern [${pattern}] must not contain a ','`);
    if (pattern.includes('#')) problems.push(`index_pattern [${pattern}] must not contain a '#'`);
    if (pattern.includes(':')) problems.push(`index_pattern [${pattern}] must not contain a ':'`);
    if (pattern.startsWith('_')) problems.push(`index_pattern [${pattern}] must not start with '_'`);
    if (/[\\/?"<>| ,]/.test(pattern)) {
      problems.push(
        `index_pattern [${pattern}] must not contain the following characters [\\, /, ?, ", <, >, |,  , ,]`,
      );
    }
  }
  return problems;
}
