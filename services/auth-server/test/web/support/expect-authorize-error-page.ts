/**
 * The authorization endpoint's error page: 400, HTML, no redirect to the client (RFC 6749 §4.1.2.1: a
 * request that cannot be trusted is never sent back to its redirect URI), the error code shown.
 */
export async function expectAuthorizeErrorPage(response: Response, code: string): Promise<void> {
  expect(response.status).toBe(400);
  expect(response.headers.get('location')).toBeNull();
  expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  expect(await response.text()).toContain(`<code>${code}</code>`);
}
