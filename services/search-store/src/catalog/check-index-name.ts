import { EsError } from '@acme/common';

const INVALID_CHARS = ['\\', '/', '*', '?', '"', '<', '>', '|', ' ', ','];

/**
 * Index (and alias) name rules of ES MetadataCreateIndexService#validateIndexOrAliasName and
 * #validateIndexName: no `\ / * ? " < > | , #` or space, no `:`, not starting with `_`, `-` or `+`,
 * lowercase, not `.` or `..`, at most 255 bytes.
 */
export function checkIndexName(name: string, kind: 'index' | 'alias' = 'index'): void {
  const problem = findNameProblem(name, kind);
  if (problem === undefined) return;
  if (kind === 'alias') {
    throw new EsError('invalid_alias_name_exception', `Invalid alias name [${name}]: ${problem}`, {
      metadata: { index_uuid: '_na_', index: name },
    });
  }
  throw new EsError('invalid_index_name_exception', `Invalid index name [${name}], ${problem}`, {
    metadata: { index_uuid: '_na_', index: name },
  });
}

function findNameProblem(name: string, kind: 'index' | 'alias'): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (INVALID_CHARS.some((c) => name.includes(c))) {
    return `must not contain the following characters [' ','"','*',',','/','<','>','?','\\','|']`;
  }
  if (name.includes('#')) return "must not contain '#'";
  if (name.includes(':')) return "must not contain ':'";
  if (/^[_\-+]/.test(name)) return "must not start with '_', '-', or '+'";
  if (kind === 'index' && name.toLowerCase() !== name) return 'must be lowercase';
  if (name === '.' || name === '..') return "must not be '.' or '..'";
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes > 255) return `index name is too long, (${bytes} > 255)`;
  return undefined;
}
