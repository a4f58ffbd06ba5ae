import type { z } from 'zod';

/** Thrown when the environment does not satisfy a service's config schema. Lists names, never values. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment once through a zod schema whose keys are the variable names.
 * Every bad or missing variable is reported by name with what was expected; its value is never
 * printed (it may be a secret).
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.output<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.map(String).join('.') || '(environment)';
    return `${name}: ${describe(issue)}`;
  });
  throw new ConfigError([...new Set(problems)]);
}

function describe(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'is required' : `expected ${issue.expected}`;
    case 'too_small':
      return `must be at least ${String(issue.minimum)}${issue.origin === 'string' ? ' characters' : ''}`;
    case 'too_big':
      return `must be at most ${String(issue.maximum)}${issue.origin === 'string' ? ' characters' : ''}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_format':
      return `must be a valid ${issue.format}`;
    default:
      // zod's own messages describe the rule, not the input value
      return issue.message;
  }
}

/**
 * For a service's main.ts: the parsed config, or one line per bad variable on stderr and exit 1
 * (never a value: it may be a secret).
 */
export function loadConfigOrExit<S extends z.ZodType>(
  schema: S,
  env: NodeJS.ProcessEnv,
  service: string,
): z.output<S> {
  try {
    return loadConfig(schema, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${service}: ${error.message}\n`);
    process.exit(1);
  }
}
