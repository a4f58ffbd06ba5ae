// One transaction helper for both services lives in @acme/common; repos import it from here.
export { inRetriedTransaction, inTransaction, type Queryable } from '@acme/common';
