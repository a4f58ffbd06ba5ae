import { EsError } from '@acme/common';

/** ES `InvalidIndexTemplateException`: 400 "index_template [name] invalid, cause [description]". */
export function invalidTemplate(name: string, description: string): EsError {
  return new EsError(
    'invalid_index_template_exception',
    `index_template [${name}] invalid, cause [${description}]`,
  );
}

/** ES `ValidationException#getMessage`: "Validation Failed: 1: a;2: b;". */
export function validationFailed(errors: string[]): string {
  return `Validation Failed: ${errors.map((error, i) => `${i + 1}: ${error};`).join('')}`;
}

/**
 * Data streams are not part of this store (DESIGN.md): a template that asks for one is refused
 * rather than stored and silently ignored.
 */
export function dataStreamsUnsupported(what: string): EsError {
  return new EsError(
    'illegal_argument_exception',
    `[${what}] is not supported: this server has no data streams, only indices`,
  );
}
