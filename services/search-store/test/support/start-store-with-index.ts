import { Client, type estypes } from 'es8';
import { uniqueId } from '@acme/testkit';
import { startSearchStore, type RunningSearchStore } from './start-search-store';

/** The index-create request but its name: settings, mappings, aliases. */
export type IndexBody = Omit<estypes.IndicesCreateRequest, 'index'>;

/** `<prefix>-<unique>`, lower-case letters and digits only, as Elasticsearch index names must be. */
export function uniqueIndexName(prefix: string, seed: string): string {
  return `${prefix}-${uniqueId(seed)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')}`;
}

export interface StoreWithIndex {
  store: RunningSearchStore;
  es: Client;
}

/**
 * search-store on port 0 with `index` created through the index API and `docs` ([_id, source]) written
 * through one bulk with refresh=true; a bulk item that fails fails the fixture.
 */
export async function startStoreWithIndex(
  index: string,
  body: IndexBody,
  docs: Array<[string, Record<string, unknown>]>,
): Promise<StoreWithIndex> {
  const store = await startSearchStore();
  const es = new Client({ node: store.url });
  await es.indices.create({ index, ...body });
  const bulk = await es.bulk({
    refresh: true,
    operations: docs.flatMap(([id, doc]) => [{ index: { _index: index, _id: id } }, doc]),
  });
  if (bulk.errors) throw new Error(`fixture bulk failed: ${JSON.stringify(bulk.items)}`);
  return { store, es };
}

export async function stopStoreWithIndex({ store, es }: StoreWithIndex): Promise<void> {
  await es.close();
  await store.stop();
}
