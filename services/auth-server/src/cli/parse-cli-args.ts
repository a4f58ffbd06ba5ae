/** `--name value`, repeated `--scope a --scope b`, flags (`--json`) and positionals. */
export interface CliArgs {
  positionals: string[];
  options: Map<string, string[]>;
  flags: Set<string>;
}

const FLAGS = new Set([
  'json',
  'help',
  'password-stdin',
  'backchannel-logout-session-required',
  'require-pushed-authorization-requests',
  'dpop-bound-access-tokens',
  'require-signed-request-object',
  'client-secret-jwt',
]);

export function parseCliArgs(argv: string[]): CliArgs {
  const args: CliArgs = { positionals: [], options: new Map(), flags: new Set() };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '-h') {
      args.flags.add('help');
      continue;
    }
    if (!arg.startsWith('--')) {
      args.positionals.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s) as [string, string | undefined];
    if (FLAGS.has(name)) {
      args.flags.add(name);
      continue;
    }
    const value = inline ?? argv[(i += 1)];
    if (value === undefined) throw new Error(`--${name} needs a value`);
    args.options.set(name, [...(args.options.get(name) ?? []), value]);
  }
  return args;
}

export const one = (args: CliArgs, name: string): string | undefined => args.options.get(name)?.at(-1);
/** Repeated options and space/comma-separated values both work: `--scope a --scope "b c"`. */
export const many = (args: CliArgs, name: string): string[] | undefined =>
  args.options.get(name)?.flatMap((v) => v.split(/[\s,]+/).filter(Boolean));
