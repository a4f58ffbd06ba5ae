import { many, one, parseCliArgs, type CliArgs } from './parse-cli-args';
import type { PasswordSource } from './read-password';

export const USAGE = `usage: npm run admin -- <command> [options] [--json]
  clients create --name N [--type confidential|public] [--app-type web|native] [--redirect-uri U]...
                 [--grant-type G]... [--response-type R]... [--scope S]... [--token-format opaque|jwt]
                 [--jwt-alg HS256|RS256|ES256] [--access-ttl SECONDS|none] [--refresh-ttl SECONDS] [--refresh-idle-ttl SECONDS]
                 [--post-logout-redirect-uri U]... [--backchannel-logout-uri U] [--backchannel-logout-session-required]
                 [--require-pushed-authorization-requests] [--dpop-bound-access-tokens] [--require-signed-request-object]
                 [--auth-method client_secret_basic|client_secret_post|client_secret_jwt|private_key_jwt|none]
                 [--jwks JSON | --jwks-uri U]
  clients list | clients get ID | clients delete ID | clients rotate-secret ID
  clients update ID [--name N] [--redirect-uri U]... [--grant-type G]... [--scope S]... [--token-format opaque|jwt]
                 [--jwt-alg HS256|RS256|ES256] [--access-ttl SECONDS|none] [--refresh-ttl SECONDS] [--refresh-idle-ttl SECONDS]
  resource-servers create --id ID --audience AUD [--scope S]... [--jwks JSON | --jwks-uri U] [--client-secret-jwt]
  resource-servers list | resource-servers delete ID | resource-servers rotate-secret ID
  initial-access-tokens create [--max-uses N] [--expires-in SECONDS]   (RFC 7591, for POST /register)
  users create --username U [--password-stdin | --password-file PATH] [--claims JSON] | users get ID
                 (the password is prompted for without echo on a terminal, else read from stdin's first line)
  users reset-mfa ID   (removes the user's authenticator app, recovery codes and passkeys)
  users list [--search PREFIX] [--limit N] [--offset N] | users disable ID | users enable ID
  users grant-admin ID | users revoke-admin ID        (the admin role opens the console at /admin)
  revoke --user ID | --client ID | --grant ID
  grants list [--user ID | --client ID] | sessions list [--user ID] | sessions end --user ID --sid SID
  keys rotate --alg RS256|ES256 | keys list
  audit list [--limit N] [--before CURSOR]
env: AUTH_ADMIN_URL (default http://127.0.0.1:4000), ADMIN_TOKEN`;

/** `password`: read it (never from argv) and add it to the body before sending. */
type Request = { method: string; path: string; body?: unknown; password?: PasswordSource };

const num = (value: string | undefined) =>
  value === undefined ? undefined : value === 'none' ? null : Number(value);
/** A boolean metadata flag: sent as true when given, left out (the API's default) otherwise. */
const flag = (args: CliArgs, name: string) => (args.flags.has(name) ? true : undefined);
/** `--jwks JSON`: a JSON error is a usage error naming the option, not a stack trace. */
function jwksOption(args: CliArgs): unknown {
  const jwks = one(args, 'jwks');
  if (jwks === undefined) return undefined;
  try {
    return JSON.parse(jwks);
  } catch {
    throw new UsageError('--jwks must be a JSON Web Key Set, e.g. \'{"keys":[…]}\'');
  }
}

/** `?a=1&b=2` of the given values, or '' when none is given. */
function query(values: Record<string, string | undefined>): string {
  const given = Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return given.length ? `?${new URLSearchParams(given).toString()}` : '';
}

function defined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));
}

/** Turns the command line into one admin API call. */
export function buildRequest(args: CliArgs): Request {
  const [noun, verb, target] = args.positionals;
  const key = `${noun ?? ''} ${verb ?? ''}`.trim();
  switch (key) {
    case 'clients create': {
      return {
        method: 'POST',
        path: '/clients',
        body: defined({
          name: one(args, 'name'),
          client_type: one(args, 'type') ?? 'confidential',
          application_type: one(args, 'app-type'),
          redirect_uris: many(args, 'redirect-uri'),
          grant_types: many(args, 'grant-type'),
          response_types: args.options.get('response-type'),
          scopes: many(args, 'scope'),
          token_format: one(args, 'token-format'),
          jwt_alg: one(args, 'jwt-alg'),
          access_token_ttl_seconds: num(one(args, 'access-ttl')),
          refresh_token_ttl_seconds: num(one(args, 'refresh-ttl')),
          refresh_idle_ttl_seconds: num(one(args, 'refresh-idle-ttl')),
          post_logout_redirect_uris: many(args, 'post-logout-redirect-uri'),
          backchannel_logout_uri: one(args, 'backchannel-logout-uri'),
          backchannel_logout_session_required: args.flags.has('backchannel-logout-session-required')
            ? true
            : undefined,
          require_pushed_authorization_requests: flag(args, 'require-pushed-authorization-requests'),
          dpop_bound_access_tokens: flag(args, 'dpop-bound-access-tokens'),
          require_signed_request_object: flag(args, 'require-signed-request-object'),
          token_endpoint_auth_method: one(args, 'auth-method'),
          jwks: jwksOption(args),
          jwks_uri: one(args, 'jwks-uri'),
        }),
      };
    }
    case 'clients list':
      return { method: 'GET', path: '/clients' };
    case 'resource-servers create':
      return {
        method: 'POST',
        path: '/resource-servers',
        body: defined({
          id: one(args, 'id'),
          audience: one(args, 'audience'),
          scopes: many(args, 'scope'),
          jwks: jwksOption(args),
          jwks_uri: one(args, 'jwks-uri'),
          client_secret_jwt: flag(args, 'client-secret-jwt'),
        }),
      };
    case 'initial-access-tokens create':
      return {
        method: 'POST',
        path: '/initial-access-tokens',
        body: defined({
          max_uses: num(one(args, 'max-uses')) ?? undefined,
          expires_in: num(one(args, 'expires-in')) ?? undefined,
        }),
      };
    case 'resource-servers list':
      return { method: 'GET', path: '/resource-servers' };
    case 'users create': {
      // argv is readable by every user of the host (ps, /proc/PID/cmdline) and lands in shell history.
      if (args.options.has('password'))
        throw new UsageError(
          '--password would show the password to every user of this host: pipe it on stdin or use --password-file PATH',
        );
      const claims = one(args, 'claims');
      const file = one(args, 'password-file');
      return {
        method: 'POST',
        path: '/users',
        body: defined({
          username: one(args, 'username'),
          claims: claims ? JSON.parse(claims) : undefined,
        }),
        password: file === undefined ? { kind: 'stdin' } : { kind: 'file', path: file },
      };
    }
    case 'keys rotate':
      return { method: 'POST', path: '/signing-keys/rotate', body: { alg: one(args, 'alg') } };
    case 'keys list':
      return { method: 'GET', path: '/signing-keys' };
    case 'users list':
      return {
        method: 'GET',
        path: `/users${query({ search: one(args, 'search'), limit: one(args, 'limit'), offset: one(args, 'offset') })}`,
      };
    case 'grants list':
      return {
        method: 'GET',
        path: `/grants${query({ user_id: one(args, 'user'), client_id: one(args, 'client') })}`,
      };
    case 'sessions list':
      return { method: 'GET', path: `/sessions${query({ user_id: one(args, 'user') })}` };
    case 'sessions end': {
      const user = one(args, 'user');
      const sid = one(args, 'sid');
      if (!user || !sid) throw new UsageError('sessions end needs --user ID and --sid SID');
      return {
        method: 'DELETE',
        path: `/users/${encodeURIComponent(user)}/sessions/${encodeURIComponent(sid)}`,
      };
    }
    case 'audit list':
      return {
        method: 'GET',
        path: `/audit-events${query({ limit: one(args, 'limit'), before: one(args, 'before') })}`,
      };
  }
  if (noun === 'users' && verb === 'reset-mfa' && target)
    return { method: 'POST', path: `/users/${encodeURIComponent(target)}/mfa/reset` };
  if (noun === 'clients' && verb === 'update' && target)
    return {
      method: 'PATCH',
      path: `/clients/${encodeURIComponent(target)}`,
      body: defined({
        name: one(args, 'name'),
        redirect_uris: many(args, 'redirect-uri'),
        grant_types: many(args, 'grant-type'),
        scopes: many(args, 'scope'),
        token_format: one(args, 'token-format'),
        jwt_alg: one(args, 'jwt-alg'),
        access_token_ttl_seconds: num(one(args, 'access-ttl')),
        refresh_token_ttl_seconds: num(one(args, 'refresh-ttl')),
        refresh_idle_ttl_seconds: num(one(args, 'refresh-idle-ttl')),
      }),
    };
  if ((noun === 'clients' || noun === 'resource-servers') && verb === 'rotate-secret' && target)
    return { method: 'POST', path: `/${noun}/${encodeURIComponent(target)}/secret` };
  if (noun === 'users' && target && (verb === 'disable' || verb === 'enable'))
    return { method: 'POST', path: `/users/${encodeURIComponent(target)}/${verb}` };
  if (noun === 'users' && target && (verb === 'grant-admin' || verb === 'revoke-admin'))
    return {
      method: verb === 'grant-admin' ? 'PUT' : 'DELETE',
      path: `/users/${encodeURIComponent(target)}/roles/admin`,
    };
  if (noun === 'revoke') {
    const target = defined({
      user_id: one(args, 'user'),
      client_id: one(args, 'client'),
      grant_id: one(args, 'grant'),
    });
    return { method: 'POST', path: '/revocations', body: target };
  }
  if (
    target &&
    (verb === 'get' || verb === 'delete') &&
    ['clients', 'resource-servers', 'users'].includes(noun ?? '')
  )
    return { method: verb === 'get' ? 'GET' : 'DELETE', path: `/${noun}/${encodeURIComponent(target)}` };
  throw new UsageError(USAGE);
}

export class UsageError extends Error {}

/**
 * Runs one command; returns the exit code. Output goes to `out`, errors to `err`; a password is read
 * through `readPassword` (admin.ts: the terminal without echo, or stdin, or a file).
 */
export async function runAdminCli(
  argv: string[],
  env: Record<string, string | undefined>,
  out: (line: string) => void,
  err: (line: string) => void,
  readPassword: (source: PasswordSource) => Promise<string> = () =>
    Promise.reject(new Error('no password input available')),
): Promise<number> {
  let args: CliArgs;
  let request: Request;
  try {
    args = parseCliArgs(argv);
    // Asked-for help is a success (exit 0, stdout), as in POSIX utilities; a missing command is a usage error.
    if (args.flags.has('help')) {
      out(USAGE);
      return 0;
    }
    if (args.positionals.length === 0) throw new UsageError(USAGE);
    request = buildRequest(args);
  } catch (error) {
    err(error instanceof Error ? error.message : String(error));
    return 2;
  }
  const token = env.ADMIN_TOKEN;
  if (!token) {
    err('ADMIN_TOKEN is not set');
    return 2;
  }
  if (request.password) {
    try {
      request.body = { ...(request.body as object), password: await readPassword(request.password) };
    } catch (error) {
      err(`cannot read the password: ${error instanceof Error ? error.message : String(error)}`);
      return 2;
    }
  }
  const base = (env.AUTH_ADMIN_URL ?? 'http://127.0.0.1:4000').replace(/\/+$/, '');
  const response = await fetch(`${base}/admin${request.path}`, {
    method: request.method,
    headers: {
      authorization: `Bearer ${token}`,
      // The audit events' actor: 'cli' rather than 'admin-token' (a label: only the token holder can send it).
      'x-admin-actor': 'cli',
      ...(request.body ? { 'content-type': 'application/json' } : {}),
    },
    body: request.body ? JSON.stringify(request.body) : undefined,
  });
  const text = await response.text();
  const body: unknown = text ? JSON.parse(text) : { ok: true };
  if (!response.ok) {
    const e = body as { error?: string; error_description?: string };
    err(
      args.flags.has('json')
        ? JSON.stringify(body)
        : `error: ${e.error ?? response.status}: ${e.error_description ?? ''}`,
    );
    return 1;
  }
  out(args.flags.has('json') ? JSON.stringify(body, null, 2) : formatHuman(body));
  return 0;
}

function formatHuman(body: unknown): string {
  const rows = Array.isArray(body) ? body : [body];
  return rows
    .map((row) =>
      Object.entries(row as Record<string, unknown>)
        .map(
          ([k, v]) =>
            `${k}: ${Array.isArray(v) ? v.join(' ') : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`,
        )
        .join('\n'),
    )
    .join('\n\n');
}
