import type { ReaderField } from '../index-reader';
import { ShardQueryError } from '../shard-query-error';
import type { CompileContext } from './compile-context';

/**
 * The geo_point field a geo query targets, or undefined when the query matches nothing here: an
 * unmapped field with `ignore_unmapped` (ES: MatchNoDocsQuery); else ES's QueryShardException.
 */
export function geoQueryField(
  ctx: CompileContext,
  query: { kind: string; field: string; ignoreUnmapped: boolean },
): (ReaderField & { fieldId: number }) | undefined {
  const field = ctx.reader.fields.get(query.field);
  if (!field) {
    if (query.ignoreUnmapped) return undefined;
    throw new ShardQueryError({
      type: 'query_shard_exception',
      reason: `failed to find geo field [${query.field}]`,
    });
  }
  if (field.type !== 'geo_point') {
    throw new ShardQueryError({
      type: 'query_shard_exception',
      reason: `Field [${query.field}] is of unsupported type [${field.type}] for [${query.kind}] query`,
    });
  }
  return field.fieldId === undefined ? undefined : (field as ReaderField & { fieldId: number });
}

/**
 * term/terms/match and range on a geo_point field: ES's AbstractGeometryFieldType and
 * MappedFieldType refuse them, wrapped as QueryShardException "failed to create query: …".
 */
export function geoPointQueryRefused(field: string, kind: 'term' | 'range'): ShardQueryError {
  const reason =
    kind === 'term'
      ? `Geometry fields do not support exact searching, use dedicated geometry queries instead: [${field}]`
      : `Field [${field}] of type [geo_point] does not support range queries`;
  return new ShardQueryError({
    type: 'query_shard_exception',
    reason: `failed to create query: ${reason}`,
    caused_by: { type: 'illegal_argument_exception', reason },
  });
}
