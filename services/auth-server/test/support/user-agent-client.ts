import { WebClient } from '../web/support/web-client';

/** A WebClient that sends a browser's User-Agent on every request (the account page's device column). */
export class UserAgentClient extends WebClient {
  constructor(
    baseUrl: string,
    readonly userAgent: string,
  ) {
    super(baseUrl);
  }

  override get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    return super.get(path, { 'user-agent': this.userAgent, ...headers });
  }

  override post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
    return super.post(path, fields, { 'user-agent': this.userAgent, ...headers });
  }
}

export const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0';
export const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
