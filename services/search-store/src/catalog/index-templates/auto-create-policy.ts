import type { EsError } from '@acme/common';
import { indexNotFound } from '../../es-errors';
import { findTemplates } from '../../storage/index-templates.repo';
import type { Queryable } from '../../storage/queryable';
import { findMatchingTemplate } from './resolve-index-template';
import type { IndexTemplate } from './template-types';

/**
 * What the index template matching `name` says about auto-creating it (ES AutoCreateIndex): `true`
 * or `false` from its `allow_auto_create` override `action.auto_create_index`; `undefined` leaves the
 * decision to the cluster setting. When forbidden, the error ES answers for the write.
 */
export async function templateAutoCreate(
  db: Queryable,
  name: string,
): Promise<{ allow: boolean | undefined; forbidden?: EsError }> {
  const match = findMatchingTemplate(await findTemplates<IndexTemplate>(db, 'index'), name);
  const allow = match?.body.allow_auto_create;
  if (allow !== false || !match) return { allow };
  // IndexNotFoundException(String) with the sentence as its "index": ES's odd but exact reason.
  const forbidden = indexNotFound(
    `composable template [${match.body.index_patterns.join(', ')}] forbids index auto creation`,
  );
  return { allow, forbidden };
}
