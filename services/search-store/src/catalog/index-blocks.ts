import { EsError } from '@acme/common';

/**
 * Index blocks (ES "Index block settings", `IndexMetadata.APIBlock`): each `index.blocks.*` setting
 * adds a ClusterBlock that refuses the operations of some levels. Actions check one level each
 * (document writes WRITE, searches and gets READ, mapping/settings/alias changes METADATA_WRITE, their
 * reads METADATA_READ); a refusal is `cluster_block_exception` naming every blocked index
 * (`ClusterBlockException.buildMessageForIndexBlocks`).
 */
export type BlockLevel = 'read' | 'write' | 'metadata_read' | 'metadata_write';

interface IndexBlock {
  setting: string;
  status: 'FORBIDDEN' | 'TOO_MANY_REQUESTS';
  id: number;
  description: string;
  levels: readonly BlockLevel[];
  /** The block still lets the index be deleted (read_only_allow_delete). */
  allowReleaseResources: boolean;
}

/** Elasticsearch 8.17's blocks, in id order; the flood-stage reason links the 8.17 reference. */
const INDEX_BLOCKS: readonly IndexBlock[] = [
  {
    setting: 'index.blocks.read_only',
    status: 'FORBIDDEN',
    id: 5,
    description: 'index read-only (api)',
    levels: ['write', 'metadata_write'],
    allowReleaseResources: false,
  },
  {
    setting: 'index.blocks.read',
    status: 'FORBIDDEN',
    id: 7,
    description: 'index read (api)',
    levels: ['read'],
    allowReleaseResources: false,
  },
  {
    setting: 'index.blocks.write',
    status: 'FORBIDDEN',
    id: 8,
    description: 'index write (api)',
    levels: ['write'],
    allowReleaseResources: false,
  },
  {
    setting: 'index.blocks.metadata',
    status: 'FORBIDDEN',
    id: 9,
    description: 'index metadata (api)',
    levels: ['metadata_write', 'metadata_read'],
    allowReleaseResources: false,
  },
  {
    setting: 'index.blocks.read_only_allow_delete',
    status: 'TOO_MANY_REQUESTS',
    id: 12,
    description:
      'disk usage exceeded flood-stage watermark, index has read-only-allow-delete block; for more information, see https://www.elastic.co/guide/en/elasticsearch/reference/8.17/fix-watermark-errors.html',
    // WRITE only since 8.0 (elastic/elasticsearch#81781: metadata updates are allowed, to free disk).
    levels: ['write'],
    allowReleaseResources: true,
  },
];

export interface BlockableIndex {
  name: string;
  settings: Record<string, string>;
}

/** The blocks an index holds at `level`. */
function blocksOf(index: BlockableIndex, level: BlockLevel, releasing: boolean): IndexBlock[] {
  return INDEX_BLOCKS.filter(
    (block) =>
      index.settings[block.setting] === 'true' &&
      block.levels.includes(level) &&
      !(releasing && block.allowReleaseResources),
  );
}

/** The `cluster_block_exception` for the indices blocked at `level`, or undefined when none is. */
export function findIndexBlock(
  indices: readonly BlockableIndex[],
  level: BlockLevel,
  options: { releasingResources?: boolean } = {},
): EsError | undefined {
  const blocked = indices
    .map((index) => ({ index, blocks: blocksOf(index, level, options.releasingResources === true) }))
    .filter((entry) => entry.blocks.length > 0);
  if (blocked.length === 0) return undefined;
  const reason = blocked
    .map(
      ({ index, blocks }) =>
        `index [${index.name}] blocked by: [${blocks.map((b) => `${b.status}/${b.id}/${b.description}`).join(', ')}];`,
    )
    .join('');
  // ClusterBlockException#status: the highest non-retryable status; 429 only when every block is retryable.
  const all = blocked.flatMap((entry) => entry.blocks);
  const status = all.every((b) => b.status === 'TOO_MANY_REQUESTS') ? 429 : 403;
  return new EsError('cluster_block_exception', reason, { status });
}

export function checkIndexBlocks(
  indices: readonly BlockableIndex[],
  level: BlockLevel,
  options: { releasingResources?: boolean } = {},
): void {
  const error = findIndexBlock(indices, level, options);
  if (error) throw error;
}

/**
 * `TransportUpdateSettingsAction#checkBlock`: a request that only sets `index.blocks.metadata`, or that
 * touches `index.blocks.read_only` or `index.blocks.read_only_allow_delete`, passes the metadata
 * blocks, so a blocked index can be unblocked. (ES's operator precedence, kept as written.)
 */
export function isUnblockingSettingsRequest(changes: Record<string, unknown>): boolean {
  const keys = Object.keys(changes);
  return (
    (keys.length === 1 && keys[0] === 'index.blocks.metadata') ||
    keys.includes('index.blocks.read_only') ||
    keys.includes('index.blocks.read_only_allow_delete')
  );
}
