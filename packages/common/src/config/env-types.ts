import { z } from 'zod';

/** Reusable env-variable parsers: env values are strings, so numbers and booleans are coerced here. */
export const envPort = z.coerce.number().int().min(0).max(65535);
export const envInt = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
export const envBool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');
export const envUrl = z.string().url();
export const envLogLevel = z
  .enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'])
  .default('info');
/** A secret: required, no default, at least 32 characters so it carries real entropy. */
export const envSecret = z.string().min(32);
export const envList = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean),
);
