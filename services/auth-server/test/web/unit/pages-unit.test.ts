import { describeScopes } from '../../../src/domain/consent/describe-scopes';
import { isConsentRemembered } from '../../../src/domain/consent/is-consent-remembered';
import { fromQueryString, parseReturnTo, toQueryString } from '../../../src/http/authorize-params';
import { escapeHtml, html } from '../../../src/http/views/html';
import { renderConsent } from '../../../src/http/views/consent.view';

describe('html escaping', () => {
  it.each([
    ['<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
    ['" onfocus="x', '&quot; onfocus=&quot;x'],
    ["' onfocus='x", '&#39; onfocus=&#39;x'],
    ['a & b', 'a &amp; b'],
    ['plain', 'plain'],
  ])('escapes %j', (input, expected) => {
    expect(escapeHtml(input)).toBe(expected);
  });

  it('escapes interpolations but keeps nested fragments, and drops undefined/false', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p title="${'"x"'}">${inner}${undefined}${false}${['<', html`<br />`]}</p>`.value).toBe(
      '<p title="&quot;x&quot;"><b>&lt;i&gt;</b>&lt;<br /></p>',
    );
  });

  it('renders a hostile client name inert on the consent page', () => {
    const page = renderConsent({
      csrfToken: 't',
      clientName: '<img src=x onerror=alert(1)>',
      clientId: 'c"><script>',
      scopes: [{ scope: 'x"y', description: '<b>' }],
      authorizeQuery: 'a=1&b="2"',
      username: 'u',
    });
    expect(page).not.toContain('<img');
    expect(page).not.toContain('<script>');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page).toContain('value="a=1&amp;b=&quot;2&quot;"');
  });
});

describe('remembered consent', () => {
  it.each([
    [['openid'], ['openid', 'email'], true],
    [['openid', 'email'], ['email', 'openid'], true],
    [[], ['openid'], true],
    [['openid', 'offline_access'], ['openid'], false],
    [['openid'], [], false],
  ])('requested %j against remembered %j → %s', (requested, remembered, expected) => {
    expect(isConsentRemembered(requested, remembered)).toBe(expected);
  });

  it('is never remembered when the user was never asked', () => {
    expect(isConsentRemembered([], null)).toBe(false);
  });
});

describe('scope words', () => {
  it('describes standard scopes and names unknown ones as-is, in request order', () => {
    expect(describeScopes(['email', 'weird:scope', 'openid'])).toEqual([
      { scope: 'email', description: 'See your email address' },
      { scope: 'weird:scope', description: 'Use the "weird:scope" permission' },
      { scope: 'openid', description: 'Confirm your identity (sign you in)' },
    ]);
  });
});

describe('login return_to', () => {
  it.each([
    ['/authorize?client_id=a&state=b', '/authorize?client_id=a&state=b'],
    ['/account', '/account'],
    ['https://evil.example/authorize?x', '/account'],
    ['//evil.example/authorize?x', '/account'],
    ['/authorize', '/account'],
    ['/authorize?x=1#frag', '/account'],
    ['/admin/clients', '/account'],
    ['/device', '/device'],
    ['/device?user_code=BCDF-GHJK', '/device?user_code=BCDF-GHJK'],
    ['/devices', '/account'],
    ['/device/../admin', '/account'],
    ['/device?user_code=x#frag', '/account'],
    ['//evil.example/device', '/account'],
    [undefined, '/account'],
  ])('%j → %j', (input, expected) => {
    expect(parseReturnTo(input)).toBe(expected);
  });

  it('keeps repeated parameters through a round trip, so the flow can still reject duplicates', () => {
    const query = 'scope=openid&state=a&state=b&x=%26%3D';
    expect(fromQueryString(query)).toEqual({ scope: 'openid', state: ['a', 'b'], x: '&=' });
    expect(toQueryString(fromQueryString(query))).toBe(query);
  });
});
