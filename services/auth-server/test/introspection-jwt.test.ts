import { createPublicKey, type JsonWebKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { basic, type Json } from './support/oauth-helpers';
import {
  postTokenInfo as post,
  tokenInfoHeaders,
  type TokenInfoPath as Path,
} from './support/post-token-info';
import { startIntrospectionServer } from './support/start-introspection-server';
import type { RunningAuthServer } from './support/start-auth-server';

const JWT_TYPE = 'application/token-introspection+jwt';

/** RFC 9701: a resource server that asks with Accept gets the introspection response as a signed JWT. */
describe.each<Path>(['front', 'express'])('JWT introspection responses through the %s path', (path) => {
  let server: RunningAuthServer;
  let rs: { id: string; secret: string; audience: string };
  let token: string;
  beforeAll(async () => {
    ({ server, rs, token } = await startIntrospectionServer());
  });
  afterAll(async () => {
    await server.stop();
  });

  const headers = (extra: Record<string, string> = {}) => tokenInfoHeaders(rs, extra);
  const introspect = (extra: Record<string, string>, body = `token=${token}`) =>
    post(path, `${server.url}/token_info`, headers(extra), body);

  /** Verifies as a resource server would: our JWKS, an explicit algorithm list, issuer and audience. */
  const verify = async (text: string) => {
    const jwks = (await (await fetch(`${server.url}/jwks`)).json()) as { keys: JsonWebKey[] };
    const decoded = jwt.decode(text, { complete: true });
    const jwk = jwks.keys.find((key) => key.kid === decoded?.header.kid);
    expect(jwk).toBeDefined();
    const key = createPublicKey({ key: jwk!, format: 'jwk' });
    const claims = jwt.verify(text, key, {
      algorithms: ['RS256'],
      issuer: server.config.ISSUER,
      audience: rs.id,
    }) as Json;
    return { header: decoded!.header, claims };
  };

  it('answers a signed JWT of type token-introspection+jwt holding the usual response', async () => {
    const json = JSON.parse((await introspect({})).text) as Json;
    expect(json).toMatchObject({ active: true, scope: 'search.read' });
    const before = Math.floor(Date.now() / 1000);
    const answer = await introspect({ accept: JWT_TYPE });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe(JWT_TYPE);
    expect(answer.headers['cache-control']).toBe('no-store');
    const { header, claims } = await verify(answer.text);
    expect(header).toMatchObject({ alg: 'RS256', typ: 'token-introspection+jwt' });
    expect(claims).toEqual({
      iss: server.config.ISSUER,
      aud: rs.id,
      iat: expect.any(Number),
      token_introspection: json,
    });
    expect(claims.iat).toBeGreaterThanOrEqual(before);
  });

  it('signs an inactive answer too, and honours q values and case in Accept', async () => {
    const inactive = await introspect({ accept: JWT_TYPE }, 'token=unknown-token');
    expect((await verify(inactive.text)).claims.token_introspection).toEqual({ active: false });
    const listed = await introspect({
      accept: `application/json;q=0.5, Application/Token-Introspection+JWT`,
    });
    expect(listed.headers['content-type']).toBe(JWT_TYPE);
    const refused = await introspect({ accept: `${JWT_TYPE};q=0, application/json` });
    expect(refused.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(refused.text)).toMatchObject({ active: true });
  });

  it('answers JSON exactly as before without the Accept header or with another type', async () => {
    for (const extra of [{}, { accept: 'application/json' }, { accept: '*/*' }] as Record<string, string>[]) {
      const answer = await introspect(extra);
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(JSON.parse(answer.text)).toMatchObject({
        active: true,
        scope: 'search.read',
        aud: [rs.audience],
      });
    }
  });

  it('keeps errors in the JSON OAuth envelope', async () => {
    const answer = await post(
      path,
      `${server.url}/token_info`,
      headers({ accept: JWT_TYPE, authorization: basic(rs.id, 'wrong') }),
      `token=${token}`,
    );
    expect(answer.status).toBe(401);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(answer.text)).toEqual({
      error: 'invalid_client',
      error_description: 'resource server authentication failed',
    });
  });

  it('takes a JSON body as well', async () => {
    const answer = await post(
      path,
      `${server.url}/token_info`,
      headers({ accept: JWT_TYPE, 'content-type': 'application/json' }),
      JSON.stringify({ token }),
    );
    expect(answer.headers['content-type']).toBe(JWT_TYPE);
    expect((await verify(answer.text)).claims.token_introspection).toMatchObject({ active: true });
  });

  it('is in discovery', async () => {
    const metadata = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Json;
    expect(metadata.introspection_signing_alg_values_supported).toEqual(['RS256']);
  });
});
