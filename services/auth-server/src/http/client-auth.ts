import type { Request } from 'express';
import { OAuthError } from '@acme/common';
import type { AuthContext } from '../domain/auth-context';
import { authenticateClient } from '../domain/clients/authenticate-client';
import type { Client } from '../storage/clients.repo';
import { parseBasicAuth } from './parse-params';
import type { FailureLimiter } from './rate-limit';

/** Client authentication for /token and /revoke, throttled per IP on failures. */
export async function authenticateRequestClient(
  ctx: AuthContext,
  limiter: FailureLimiter,
  req: Request,
  params: Record<string, string>,
): Promise<Client> {
  const ipKey = `ip:${req.ip ?? 'unknown'}`;
  const header = req.headers.authorization;
  const basic = parseBasicAuth(header);
  const clientId = basic?.id ?? params.client_id;
  const keys = clientId ? [ipKey, `client:${clientId}`] : [ipKey];
  limiter.check(...keys);
  if (header && /^basic /i.test(header) && !basic) {
    await limiter.fail(ipKey);
    throw new OAuthError('invalid_client', 'malformed Basic credentials', {
      'WWW-Authenticate': 'Basic realm="auth-server", charset="UTF-8"',
    });
  }
  try {
    return await authenticateClient(ctx, {
      basic,
      clientId: params.client_id,
      clientSecret: params.client_secret,
    });
  } catch (error) {
    if (error instanceof OAuthError && error.code === 'invalid_client') await limiter.fail(...keys);
    throw error;
  }
}
