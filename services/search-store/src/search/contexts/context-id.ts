import { EsError } from '@acme/common';
import type { SearchContextKind } from '../../storage/search-contexts.repo';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PREFIX: Record<SearchContextKind, string> = { scroll: 'scroll:', pit: 'pit:' };

/** A context's wire id: base64 of `<kind>:<uuid>` (ES's ids are base64 too; clients treat them as opaque). */
export function encodeContextId(kind: SearchContextKind, id: string): string {
  return Buffer.from(`${PREFIX[kind]}${id}`).toString('base64');
}

/** The context uuid inside a wire id, or undefined when it is not one of ours of that kind. */
export function decodeContextId(kind: SearchContextKind, wire: string): string | undefined {
  if (wire.length > 100 || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(wire)) return undefined;
  const text = Buffer.from(wire, 'base64').toString('latin1');
  if (!text.startsWith(PREFIX[kind])) return undefined;
  const id = text.slice(PREFIX[kind].length);
  return UUID.test(id) ? id : undefined;
}

/** ES: an id that does not decode is a 400 ("Cannot parse scroll id"). */
export function parseScrollId(wire: string): string {
  const id = decodeContextId('scroll', wire);
  if (id === undefined) throw new EsError('illegal_argument_exception', 'Cannot parse scroll id');
  return id;
}

/** ES: a PIT id that does not decode is a 400 (SearchContextId#decode). */
export function parsePitId(wire: string): string {
  const id = decodeContextId('pit', wire);
  if (id === undefined) throw new EsError('illegal_argument_exception', `invalid id: [${wire}]`);
  return id;
}
