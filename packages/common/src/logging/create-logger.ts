import winston from 'winston';
import { redact, redactText } from './redact';

export type Logger = winston.Logger;

export interface LoggerOptions {
  service: string;
  level?: string;
  /** Where lines go; stdout by default. Tests pass a stream to read what was logged. */
  stream?: NodeJS.WritableStream;
  silent?: boolean;
}

/** Redacts every log entry: sensitive keys anywhere in the metadata, and credentials inside messages. */
const redactFormat = winston.format((info) => {
  const cleaned = redact({ ...info }) as Record<string | symbol, unknown>;
  for (const symbol of Object.getOwnPropertySymbols(info))
    cleaned[symbol] = (info as Record<symbol, unknown>)[symbol];
  if (typeof cleaned.message === 'string') cleaned.message = redactText(cleaned.message);
  return cleaned as winston.Logform.TransformableInfo;
});

/** winston JSON lines: one object per line with timestamp, level, service and message. */
export function createLogger(options: LoggerOptions): Logger {
  const transport = options.stream
    ? new winston.transports.Stream({ stream: options.stream })
    : new winston.transports.Console();
  return winston.createLogger({
    level: options.level ?? 'info',
    silent: options.silent ?? false,
    defaultMeta: { service: options.service },
    format: winston.format.combine(redactFormat(), winston.format.timestamp(), winston.format.json()),
    transports: [transport],
  });
}
