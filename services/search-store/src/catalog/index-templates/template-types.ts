import type { IndexMapping } from '../../mapping/mapping-types';
import type { AliasDefinition } from '../alias-definitions';

/** The `template` of an index or component template (ES `Template`): what it gives a new index. */
export interface TemplateContent {
  /** Flat, `index.`-prefixed, values as strings (as ES normalises them at PUT). */
  settings?: Record<string, string>;
  /** Parsed and checked at PUT (`mapping/parse-mapping.ts`), without the `_doc` wrapper. */
  mappings?: IndexMapping;
  aliases?: Record<string, AliasDefinition>;
}

/** A composable index template (ES `ComposableIndexTemplate`) as stored. */
export interface IndexTemplate {
  index_patterns: string[];
  template?: TemplateContent;
  composed_of: string[];
  priority?: number;
  version?: number;
  _meta?: Record<string, unknown>;
  allow_auto_create?: boolean;
}

/** A component template (ES `ComponentTemplate`) as stored. */
export interface ComponentTemplate {
  template: TemplateContent;
  version?: number;
  _meta?: Record<string, unknown>;
}
