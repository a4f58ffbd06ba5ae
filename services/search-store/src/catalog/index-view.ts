import { newDictionary } from '@acme/common';
import { serializeMapping } from '../mapping/serialize-mapping';
import type { IndexRecord } from '../storage/indices.repo';
import type { Catalog } from './index-expression';
import { nestSettings } from './index-settings';

/** An alias as GET /_alias and GET /<index> show it: only the properties that are set. */
export function aliasView(catalog: Catalog, index: IndexRecord): Record<string, Record<string, unknown>> {
  const out = newDictionary<Record<string, unknown>>(); // keyed by alias name
  for (const link of catalog.aliases.filter((a) => a.indexId === index.indexId)) {
    const view = newDictionary<unknown>();
    if (link.filter) view.filter = link.filter;
    if (link.indexRouting) view.index_routing = link.indexRouting;
    if (link.searchRouting) view.search_routing = link.searchRouting;
    if (link.isWriteIndex !== null) view.is_write_index = link.isWriteIndex;
    if (link.isHidden !== null) view.is_hidden = link.isHidden;
    out[link.alias] = view;
  }
  return out;
}

export function settingsView(index: IndexRecord, flat: boolean): Record<string, unknown> {
  return flat ? Object.fromEntries(Object.entries(index.settings).sort()) : nestSettings(index.settings);
}

/** GET /<index>: `{aliases, mappings, settings}` per index. */
export function indexView(catalog: Catalog, index: IndexRecord, flat: boolean): Record<string, unknown> {
  return {
    aliases: aliasView(catalog, index),
    mappings: serializeMapping(index.mappings),
    settings: settingsView(index, flat),
  };
}
