import type { Pool } from 'pg';
import { lockIndices, saveSettings } from '../storage/indices.repo';
import { inTransaction } from '../storage/queryable';
import { checkIndexBlocks, isUnblockingSettingsRequest } from './index-blocks';
import { CLOSED_ALLOWED, loadCatalog, resolveIndexExpression } from './index-expression';
import { checkSettingsUpdate, flattenSettingsWithNulls } from './index-settings';

/** Defaults a setting returns to when it is reset with null. */
const SETTING_DEFAULTS = new Map([['index.number_of_replicas', '1']]);

/**
 * ES "Update index settings API": dynamic settings only, on every index the expression names (none is
 * a 404); keys without the `index.` prefix get it; null resets a setting to its default. Metadata
 * blocks refuse the change, except one that lifts a block.
 */
export async function updateIndexSettings(pool: Pool, expression: string, input: unknown): Promise<void> {
  const changes = normaliseKeys(flattenSettingsWithNulls(input));
  await inTransaction(pool, async (client) => {
    const catalog = await loadCatalog(client);
    const targets = resolveIndexExpression(catalog, expression, {
      ...CLOSED_ALLOWED,
      allowNoIndices: false,
    });
    const locked = await lockIndices(
      client,
      targets.map((t) => t.indexId),
    );
    if (!isUnblockingSettingsRequest(changes)) checkIndexBlocks(locked, 'metadata_write');
    for (const index of locked) {
      checkSettingsUpdate(index, changes);
      const settings = { ...index.settings };
      for (const [key, value] of Object.entries(changes)) {
        if (value === null) {
          const reset = SETTING_DEFAULTS.get(key);
          if (reset !== undefined) settings[key] = reset;
          else delete settings[key];
        } else settings[key] = value;
      }
      await saveSettings(client, index.indexId, settings, settings['index.blocks.write'] === 'true');
    }
  });
}

function normaliseKeys(flat: Record<string, string | null>): Record<string, string | null> {
  return Object.fromEntries(
    Object.entries(flat).map(([k, v]) => [k.startsWith('index.') ? k : `index.${k}`, v]),
  );
}
