import { appendFileSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findBinary } from './find-binary';
import { startLocalPostgres, type LocalPostgres } from './local-postgres';
import { runAsSync, unprivilegedUser } from './run-as';

/**
 * A hot standby of a local primary, as a production read replica is made: `pg_basebackup -R` (a base
 * backup with the WAL it needs, standby.signal and primary_conninfo written for us), then a server on
 * its own port streaming from the primary. hot_standby_feedback keeps the primary from vacuuming rows
 * a replica's running search still reads (else the standby cancels it: a recovery conflict).
 */
export async function startLocalReplica(primary: LocalPostgres): Promise<LocalPostgres> {
  const basebackup = findBinary('pg_basebackup');
  if (!basebackup) throw new Error('pg_basebackup is not on PATH (it ships with the Postgres binaries)');
  const root = mkdtempSync(join(tmpdir(), 'acme-pg-replica-'));
  const user = unprivilegedUser();
  if (user) chownSync(root, user.uid, user.gid);
  const dataDir = join(root, 'data');
  runAsSync(basebackup, [
    '--dbname',
    `host=127.0.0.1 port=${primary.port} user=postgres`,
    '--pgdata',
    dataDir,
    '--wal-method=stream',
    '--write-recovery-conf',
    '--checkpoint=fast',
    '--no-sync',
  ]);
  appendFileSync(join(dataDir, 'postgresql.auto.conf'), 'hot_standby_feedback = on\n');
  const server = await startLocalPostgres({ dataDir, ephemeral: true });
  return {
    ...server,
    async stop() {
      await server.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
