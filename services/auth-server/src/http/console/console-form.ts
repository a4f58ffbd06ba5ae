import type { Request } from 'express';

/** Most values one repeated field or textarea may carry: more is refused, not truncated. */
export const MAX_FORM_ITEMS = 50;

const body = (req: Request) => (req.body ?? {}) as Record<string, unknown>;

/** A single-valued field, trimmed; a repeated field is undefined. */
export function field(req: Request, name: string): string | undefined {
  const value = body(req)[name];
  return typeof value === 'string' ? value.trim() : undefined;
}

/** A field sent zero, one or many times (checkboxes). */
export function fieldList(req: Request, name: string): string[] {
  const value = body(req)[name];
  const list = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  return list.filter((v): v is string => typeof v === 'string').slice(0, MAX_FORM_ITEMS + 1);
}

/** One value per line (or separated by spaces): redirect URIs, scopes. Bounded in count. */
export function fieldWords(req: Request, name: string): string[] {
  return (field(req, name) ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, MAX_FORM_ITEMS + 1);
}

/** A lifetime in seconds: empty is `empty`; "none" is null; else a whole number, or NaN when malformed. */
export function fieldSeconds(
  req: Request,
  name: string,
  empty: number | null | undefined,
): number | null | undefined {
  const text = field(req, name) ?? '';
  if (text === '') return empty;
  if (text.toLowerCase() === 'none') return null;
  return /^\d{1,10}$/.test(text) ? Number(text) : Number.NaN;
}
