import { EsError } from '@acme/common';

/**
 * An update whose new `_source` is larger than a request may be (MAX_REQUEST_BYTES, our
 * http.max_content_length): refused as a bad request, the stored document left as it was. A client
 * could not have sent that document; a script or a merge must not be a way around the limit (issue 17:
 * a 200-byte script grew a document to 524 MB). `size` is absent when the check stopped counting early.
 */
export function sourceTooLarge(limit: number, size?: number): EsError {
  const would = size === undefined ? '' : `[${size}] bytes, `;
  return new EsError(
    'illegal_argument_exception',
    `the updated document's [_source] would be ${would}larger than the request size limit of [${limit}] bytes`,
  );
}
