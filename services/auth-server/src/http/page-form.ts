import type { Request } from 'express';

/** A single-valued form field; a repeated or missing field is undefined (never an array). */
export function formField(req: Request, name: string): string | undefined {
  const body = req.body as Record<string, unknown> | undefined;
  const value = body?.[name];
  return typeof value === 'string' ? value : undefined;
}
