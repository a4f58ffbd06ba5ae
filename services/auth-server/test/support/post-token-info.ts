import { request } from 'node:http';
import { basic } from './oauth-helpers';

/** Which route answers: the front route in introspection-fast-path.ts, or the express route. */
export type TokenInfoPath = 'front' | 'express';

export interface TokenInfoAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * POST /token_info with a Content-Length (the shape the front route takes) or chunked, with no
 * Content-Length (the front route declines it and the express route answers): the same bytes either way.
 */
export function postTokenInfo(
  path: TokenInfoPath,
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<TokenInfoAnswer> {
  return new Promise((resolve, reject) => {
    const sent =
      path === 'front' ? { ...headers, 'content-length': String(Buffer.byteLength(body)) } : headers;
    const req = request(url, { method: 'POST', headers: sent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    if (path === 'express') req.write(body.slice(0, 1));
    req.end(path === 'express' ? body.slice(1) : body);
  });
}

/** A resource server's form post headers (RFC 7662 §2.1: it authenticates with Basic). */
export const tokenInfoHeaders = (
  rs: { id: string; secret: string },
  extra: Record<string, string> = {},
): Record<string, string> => ({
  authorization: basic(rs.id, rs.secret),
  'content-type': 'application/x-www-form-urlencoded',
  ...extra,
});
