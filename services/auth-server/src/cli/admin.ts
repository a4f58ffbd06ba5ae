#!/usr/bin/env node
import { readPassword } from './read-password';
import { runAdminCli } from './run-admin-cli';

/** `npm run admin -- clients create …`: the admin API from a shell (AUTH_ADMIN_URL, ADMIN_TOKEN). */
runAdminCli(
  process.argv.slice(2),
  process.env,
  (line) => process.stdout.write(`${line}\n`),
  (line) => process.stderr.write(`${line}\n`),
  (source) => readPassword(source, { input: process.stdin, output: process.stderr }),
).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`admin: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
