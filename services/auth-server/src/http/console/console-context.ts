import type { AuthContext } from '../../domain/auth-context';
import type { ConsoleSessionsRepo } from '../../domain/admin/console-session';
import type { MfaChallengesRepo } from '../../domain/sessions/mfa-challenge';
import type { Csrf } from '../csrf';
import type { MfaChallengeManager } from '../mfa-challenge-manager';
import type { PageContext } from '../page-context';
import type { ConsoleSessionManager } from './console-session';

/** What app.ts hands the pages router for the console: the protocol core's context and the session table. */
export interface ConsoleDeps {
  auth: AuthContext;
  sessions: ConsoleSessionsRepo;
  /** The second-factor challenges' table (shared with the pages, told apart by purpose, migration 0021). */
  mfaChallenges: MfaChallengesRepo;
  /** Resolves once the signing keys are loaded (the keys page lists them). */
  ready: () => Promise<void>;
}

/** What every console route shares: the pages' context (chrome, throttle, logout) plus its own. */
export interface ConsoleContext {
  page: PageContext;
  auth: AuthContext;
  sessions: ConsoleSessionManager;
  csrf: Csrf;
  /** The console's second-factor challenges (purpose 'console', its own cookie under /admin). */
  challenges: MfaChallengeManager;
  ready: () => Promise<void>;
}
