import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runMigrations } from '@acme/common';
import { createTestDatabase } from '@acme/testkit';

const MIGRATIONS_DIR = join(__dirname, '..', '..', '..', 'src', 'storage', 'migrations');

/**
 * A fresh database migrated in stages, for tests that write rows the way an older writer did and then
 * run the migration under test on them: the migrations go through a temp dir that receives them a
 * stage at a time.
 */
export class StagedMigrations {
  private constructor(
    readonly databaseUrl: string,
    private readonly dir: string,
  ) {}

  static async create(name: string): Promise<StagedMigrations> {
    return new StagedMigrations(await createTestDatabase(name), mkdtempSync(join(tmpdir(), `${name}-`)));
  }

  /** Runs every migration whose file name sorts below `bound` (e.g. '0007'); returns the ones applied. */
  async runBelow(bound: string): Promise<string[]> {
    for (const file of readdirSync(MIGRATIONS_DIR).filter((f) => f < bound))
      copyFileSync(join(MIGRATIONS_DIR, file), join(this.dir, file));
    return runMigrations({ databaseUrl: this.databaseUrl, dir: this.dir, table: 'search_migrations' });
  }

  /** Runs the rest. */
  runAll(): Promise<string[]> {
    return this.runBelow('\uffff');
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
