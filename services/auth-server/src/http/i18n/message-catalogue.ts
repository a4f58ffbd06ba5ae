import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { createTranslator, ENGLISH, type Translator } from './translator';

/** src/http/i18n/messages from src/http/i18n (ts-jest) and dist/http/i18n (the build). */
const MESSAGES_DIR = join(__dirname, '..', '..', '..', 'src', 'http', 'i18n', 'messages');

const MAX_FILE_BYTES = 512 * 1024;
/** A language file: English message → translation, both non-empty, nothing else. */
const languageFile = z.record(z.string().min(1).max(2000), z.string().min(1).max(2000));
/** The file name is the language: a BCP 47 primary tag, optionally a region (de.json, pt-BR.json). */
const LANGUAGE_FILE_NAME = /^([a-z]{2,3}(?:-[A-Z]{2})?)\.json$/;

/** Every language the pages speak, English first (the source). */
export interface MessageCatalogue {
  languages: string[];
  translator(lang: string): Translator;
}

/** Reads i18n/messages/*.json once at start-up; a malformed file stops start-up with its name. */
export function loadMessageCatalogue(dir = MESSAGES_DIR): MessageCatalogue {
  const translators = new Map<string, Translator>([['en', ENGLISH]]);
  for (const file of readdirSync(dir).sort()) {
    const name = LANGUAGE_FILE_NAME.exec(file);
    if (!name) continue;
    const path = join(dir, file);
    if (statSync(path).size > MAX_FILE_BYTES) throw new Error(`${path}: larger than ${MAX_FILE_BYTES} bytes`);
    const parsed = languageFile.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    if (!parsed.success) throw new Error(`${path}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    const lang = name[1] as string;
    translators.set(lang, createTranslator(lang, new Map(Object.entries(parsed.data))));
  }
  return {
    languages: [...translators.keys()],
    translator: (lang) => translators.get(lang) ?? ENGLISH,
  };
}
