import { EsError } from '@acme/common';

export type BodyKind = 'json' | 'ndjson';

/**
 * Which body a Content-Type announces. Elasticsearch accepts `application/json`, `application/x-ndjson`
 * and the vendor types the official clients send (`application/vnd.elasticsearch+json;
 * compatible-with=8`, `…+x-ndjson`); compatible-with must be 7, 8 or 9 (the REST compatibility window).
 * Any other type is refused with 406 as Elasticsearch does.
 */
export function parseMediaType(header: string | undefined): BodyKind | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const [essence = '', ...params] = header.split(';').map((part) => part.trim().toLowerCase());
  const kind = kindOf(essence);
  if (!kind) {
    throw new EsError('media_type_header_exception', `Content-Type header [${header}] is not supported`, {
      status: 406,
    });
  }
  if (essence.startsWith('application/vnd.elasticsearch+')) {
    const version = params.find((p) => p.startsWith('compatible-with='))?.slice('compatible-with='.length);
    if (version === undefined || !['7', '8', '9'].includes(version)) {
      throw new EsError('media_type_header_exception', 'Invalid media-type value on headers [Content-Type]', {
        causedBy: {
          type: 'status_exception',
          reason: `A compatible version is required on both Content-Type and Accept headers if either one has requested a compatible version. Accept=null, Content-Type=${header}`,
        },
      });
    }
  }
  return kind;
}

function kindOf(essence: string): BodyKind | undefined {
  switch (essence) {
    case 'application/json':
    case 'application/vnd.elasticsearch+json':
      return 'json';
    case 'application/x-ndjson':
    case 'application/vnd.elasticsearch+x-ndjson':
      return 'ndjson';
    default:
      return undefined;
  }
}
