import type { SearchConfig } from '../config';
import type { WriteDeps } from '../write/execute-writes';

/** What the document-store routes need: the pool, the IndexWriter and ScriptRunner seams, config. */
export interface StoreDeps extends WriteDeps {
  config: SearchConfig;
}
