import type { Queryable } from '../storage/queryable';
import { findInstanceUuid } from '../storage/search-instance.repo';

/** The version we report: an 8.x release, so clients that check `version.number` ≥ 7.14 accept us. */
export const ES_VERSION = {
  number: '8.17.0',
  build_flavor: 'default',
  build_type: 'docker',
  build_hash: '2b6a7fed44faa321997703718f07ee0420804b41',
  build_date: '2024-12-11T12:08:05.663969764Z',
  build_snapshot: false,
  lucene_version: '9.12.0',
  minimum_wire_compatibility_version: '7.17.0',
  minimum_index_compatibility_version: '7.0.0',
};

/** The cluster uuid of search_instance shown as Elasticsearch shows uuids: 22 base64url characters. */
export async function findClusterUuid(db: Queryable): Promise<string> {
  const hex = (await findInstanceUuid(db)).replace(/-/g, '');
  return Buffer.from(hex, 'hex').toString('base64url');
}
