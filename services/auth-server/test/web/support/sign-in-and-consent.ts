import { inputValue, type WebClient } from './web-client';

/**
 * Opens `path` (an /authorize URL) in `browser` and answers the pages as a person would: the login form
 * with `who`'s password, the consent page with Allow, following same-origin redirects, for at most five
 * pages. Returns the last answer: a 303 to the client, or the page it stopped on (an error, say).
 */
export async function signInAndConsent(
  browser: WebClient,
  path: string,
  who: { username: string; password: string },
): Promise<Response> {
  let response = await browser.get(path);
  for (let step = 0; step < 5 && response.status === 200; step += 1) {
    const html = await response.text();
    response = html.includes('name="password"')
      ? await browser.post('/login', {
          csrf_token: inputValue(html, 'csrf_token'),
          return_to: inputValue(html, 'return_to'),
          username: who.username,
          password: who.password,
        })
      : await browser.post('/consent', {
          csrf_token: inputValue(html, 'csrf_token'),
          authorize_query: inputValue(html, 'authorize_query'),
          decision: 'allow',
        });
    while (response.status === 303 && response.headers.get('location')!.startsWith('/'))
      response = await browser.get(response.headers.get('location')!);
  }
  return response;
}
