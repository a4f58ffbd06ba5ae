import type { Principal } from '@acme/common';

/**
 * Who a scroll or PIT context belongs to: ES binds a context to the user that opened it, and answers
 * another user's use as search_context_missing_exception (SecuritySearchOperationListener), so an id
 * that leaks reads nothing for someone else. Undefined without a principal (no authentication).
 */
export function contextUserOf(principal: Principal | undefined): string | undefined {
  if (!principal) return undefined;
  return JSON.stringify([
    principal.source,
    principal.subject ?? null,
    principal.clientId ?? null,
    principal.username ?? null,
  ]);
}
