import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMessageCatalogue } from '../../../src/http/i18n/message-catalogue';
import { negotiateLocale } from '../../../src/http/i18n/negotiate-locale';
import { createTranslator } from '../../../src/http/i18n/translator';
import { html } from '../../../src/http/views/html';
import { renderLogin } from '../../../src/http/views/login.view';
import { DEFAULT_CHROME } from '../../../src/http/views/layout.view';

const SRC = join(__dirname, '..', '..', '..', 'src');

/** Every message the pages' source words in English: t/tHtml literals, PageError and refusal texts, scopes. */
function sourceMessages(): Set<string> {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) files.push(path);
    }
  };
  walk(join(SRC, 'http'));
  const literal = String.raw`'((?:[^'\\]|\\.)*)'`;
  const messages = new Set<string>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(new RegExp(String.raw`\b(?:t|tHtml|refuse)\(\s*` + literal, 'g')))
      messages.add(m[1]!.replace(/\\'/g, "'"));
    for (const call of text.matchAll(/new PageError\(([^;]*?)\)[;,\n]/gs)) {
      for (const m of call[1]!.matchAll(new RegExp(literal, 'g'))) {
        if (!/^[a-z_]+$/.test(m[1]!)) messages.add(m[1]!); // not an OAuth error code
      }
    }
  }
  const scopes = readFileSync(join(SRC, 'domain', 'consent', 'describe-scopes.ts'), 'utf8');
  for (const m of scopes.matchAll(/:\s*'([^']+)',/g)) messages.add(m[1]!);
  return messages;
}

describe('page languages', () => {
  it('negotiates ui_locales first, then Accept-Language by q-value, then English', () => {
    const available = ['en', 'de'];
    expect(negotiateLocale(available, undefined, undefined)).toBe('en');
    expect(negotiateLocale(available, undefined, 'de-DE,de;q=0.9,en;q=0.8')).toBe('de');
    expect(negotiateLocale(available, undefined, 'fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7')).toBe('en');
    expect(negotiateLocale(available, undefined, 'en;q=0.5, DE-at;q=0.9')).toBe('de');
    expect(negotiateLocale(available, undefined, 'de;q=0, *')).toBe('en');
    expect(negotiateLocale(available, 'fr de', 'en')).toBe('de');
    expect(negotiateLocale(available, 'fr-CA', 'de')).toBe('de'); // no ui_locales match: the header decides
    expect(negotiateLocale(available, 'en-GB de', 'de')).toBe('en');
    // Hostile input: long, malformed, many ranges, never more than a bounded amount of work.
    expect(negotiateLocale(available, 'x'.repeat(100_000), `${'zz,'.repeat(50_000)}de`)).toBe('en');
    expect(negotiateLocale(available, '__proto__ constructor', '__proto__;q=1, toString')).toBe('en');
    expect(negotiateLocale(available, undefined, 'de;q=abc')).toBe('de');
  });

  it('escapes message text and string parameters, keeps markup parameters', () => {
    const de = createTranslator('de', new Map([['Hello {name}.', '<Hallo> {name}! {missing}']]));
    expect(de.t('Hello {name}.', { name: '<b>' })).toBe('<Hallo> <b>! {missing}');
    expect(de.tHtml('Hello {name}.', { name: '<b>' }).value).toBe('&lt;Hallo&gt; &lt;b&gt;! {missing}');
    expect(de.tHtml('Hello {name}.', { name: html`<strong>${'A&B'}</strong>` }).value).toBe(
      '&lt;Hallo&gt; <strong>A&amp;B</strong>! {missing}',
    );
    expect(de.t('Not translated {x}', { x: 1 })).toBe('Not translated 1');
    expect(de.t('Hello {constructor}.', {})).toBe('Hello {constructor}.');
  });

  it('has a German translation for every English message of the pages', () => {
    const catalogue = loadMessageCatalogue();
    expect(catalogue.languages).toEqual(['en', 'de']);
    const german = JSON.parse(
      readFileSync(join(SRC, 'http', 'i18n', 'messages', 'de.json'), 'utf8'),
    ) as Record<string, string>;
    const messages = sourceMessages();
    expect(messages.size).toBeGreaterThan(60);
    const missing = [...messages].filter((m) => !Object.hasOwn(german, m));
    expect(missing).toEqual([]);
    const unused = Object.keys(german).filter((m) => !messages.has(m));
    expect(unused).toEqual([]);
    // Placeholders survive translation.
    for (const [english, translated] of Object.entries(german)) {
      const names = (text: string) => [...text.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]).sort();
      expect({ english, names: names(translated) }).toEqual({ english, names: names(english) });
    }
  });

  it('renders a page in the chosen language with its lang attribute', () => {
    const catalogue = loadMessageCatalogue();
    const page = renderLogin({
      csrfToken: 'c',
      returnTo: '/account',
      clientName: 'Foto <Buch>',
      chrome: { ...DEFAULT_CHROME, lang: 'de', i18n: catalogue.translator('de') },
    });
    expect(page).toContain('<html lang="de">');
    expect(page).toContain('<h1>Anmelden</h1>');
    expect(page).toContain('Melden Sie sich an, um zu <strong>Foto &lt;Buch&gt;</strong> zu gelangen.');
    expect(page).toContain('<label for="password">Passwort</label>');
  });

  it('refuses a malformed language file at start-up, naming it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'messages-'));
    try {
      writeFileSync(join(dir, 'fr.json'), JSON.stringify({ 'Sign in': 42 }));
      expect(() => loadMessageCatalogue(dir)).toThrow(/fr\.json/);
      writeFileSync(join(dir, 'fr.json'), JSON.stringify({ 'Sign in': 'Se connecter' }));
      writeFileSync(join(dir, 'README.md'), 'not a language');
      const catalogue = loadMessageCatalogue(dir);
      expect(catalogue.languages).toEqual(['en', 'fr']);
      expect(catalogue.translator('fr').t('Sign in')).toBe('Se connecter');
      expect(catalogue.translator('xx').t('Sign in')).toBe('Sign in');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
