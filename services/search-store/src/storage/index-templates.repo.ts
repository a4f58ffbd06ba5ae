import type { Queryable } from './queryable';

/** Which template table: composable index templates or component templates. */
export type TemplateKind = 'index' | 'component';

export interface StoredTemplate<Body> {
  name: string;
  body: Body;
}

const TABLE: Record<TemplateKind, string> = {
  index: 'index_templates',
  component: 'component_templates',
};

/** Every template of a kind, by name (templates are cluster metadata: a handful, never millions). */
export async function findTemplates<Body>(
  db: Queryable,
  kind: TemplateKind,
): Promise<StoredTemplate<Body>[]> {
  const { rows } = await db.query<{ name: string; body: Body }>(
    `SELECT name, body FROM ${TABLE[kind]} ORDER BY name COLLATE "C"`,
  );
  return rows;
}

/**
 * Serialises template writers (PUT and DELETE of either kind) for the rest of the transaction: the
 * checks across templates (overlapping patterns, component templates in use) read what no concurrent
 * writer can change before commit. SHARE ROW EXCLUSIVE conflicts with itself but not with readers,
 * so index creation, which only reads the templates, never waits.
 */
export async function lockTemplates(db: Queryable): Promise<void> {
  await db.query('LOCK TABLE index_templates, component_templates IN SHARE ROW EXCLUSIVE MODE');
}

export async function saveTemplate(
  db: Queryable,
  kind: TemplateKind,
  name: string,
  body: unknown,
): Promise<void> {
  await db.query(
    `INSERT INTO ${TABLE[kind]} (name, body) VALUES ($1, $2)
     ON CONFLICT (name) DO UPDATE SET body = EXCLUDED.body, updated_at = now()`,
    [name, JSON.stringify(body)],
  );
}

export async function deleteTemplates(db: Queryable, kind: TemplateKind, names: string[]): Promise<void> {
  await db.query(`DELETE FROM ${TABLE[kind]} WHERE name = ANY($1::text[])`, [names]);
}
