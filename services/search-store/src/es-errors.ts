import { EsError } from '@acme/common';

/** Elasticsearch's errors with their exact reasons and extras (API-NOTES §A1.2 catalogue). */
export function indexNotFound(name: string): EsError {
  return new EsError('index_not_found_exception', `no such index [${name}]`, {
    metadata: { 'resource.type': 'index_or_alias', 'resource.id': name, index_uuid: '_na_', index: name },
  });
}

/** ES IndexClosedException: a read or write on a closed index (400, reason "closed"). */
export function indexClosed(index: { name: string; uuid: string }): EsError {
  return new EsError('index_closed_exception', 'closed', {
    metadata: { index_uuid: index.uuid, index: index.name },
  });
}

export function indexAlreadyExists(name: string, uuid: string): EsError {
  return new EsError('resource_already_exists_exception', `index [${name}/${uuid}] already exists`, {
    metadata: { index_uuid: uuid, index: name },
  });
}

export function writeBlocked(name: string): EsError {
  return new EsError(
    'cluster_block_exception',
    `index [${name}] blocked by: [FORBIDDEN/8/index write (api)];`,
  );
}

export function readOnlyBlocked(name: string): EsError {
  return new EsError(
    'cluster_block_exception',
    `index [${name}] blocked by: [FORBIDDEN/5/index read-only (api)];`,
  );
}

export function readBlocked(name: string): EsError {
  return new EsError(
    'cluster_block_exception',
    `index [${name}] blocked by: [FORBIDDEN/7/index read (api)];`,
  );
}

interface DocumentErrorTarget {
  index: string;
  uuid: string;
}

export function documentExists(target: DocumentErrorTarget, id: string, version: number): EsError {
  return new EsError(
    'version_conflict_engine_exception',
    `[${id}]: version conflict, document already exists (current version [${version}])`,
    { metadata: { index_uuid: target.uuid, shard: '0', index: target.index } },
  );
}

export function versionConflict(target: DocumentErrorTarget, id: string, detail: string): EsError {
  return new EsError('version_conflict_engine_exception', `[${id}]: version conflict, ${detail}`, {
    metadata: { index_uuid: target.uuid, shard: '0', index: target.index },
  });
}

export function documentMissing(target: DocumentErrorTarget, id: string): EsError {
  return new EsError('document_missing_exception', `[${id}]: document missing`, {
    metadata: { index_uuid: target.uuid, shard: '0', index: target.index },
  });
}

export function illegalArgument(reason: string): EsError {
  return new EsError('illegal_argument_exception', reason);
}

export function aliasesMissing(aliases: string[]): EsError {
  const list = aliases.join(',');
  return new EsError('aliases_not_found_exception', `aliases [${list}] missing`, {
    metadata: { 'resource.type': 'aliases', 'resource.id': list },
  });
}

/** What Elasticsearch's cancelled task reports (TaskCancelledException, 400); no client reads it. */
export function taskCancelled(): EsError {
  return new EsError('task_cancelled_exception', 'task cancelled [http channel closed]');
}
