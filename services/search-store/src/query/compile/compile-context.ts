import type { Pool, PoolClient } from 'pg';
import type { IndexReader } from '../index-reader';
import type { SearchRuntimeFields } from './search-runtime-fields';
import type { SqlParams } from './sql-params';

/** What compiling a query needs: the connection (term lookups), the index, and the shared parameters. */
export interface CompileContext {
  db: Pool | PoolClient;
  reader: IndexReader;
  params: SqlParams;
  now: number;
  /** The request's runtime fields (runtime_mappings and the mapping's `runtime` section), if any. */
  runtime?: SearchRuntimeFields;
}

/** A plan matching nothing, with the `(doc_key, s)` shape every plan has. */
export const NOTHING = 'SELECT NULL::bigint AS doc_key, NULL::float4 AS s WHERE false';
