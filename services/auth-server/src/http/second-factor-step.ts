import type { Request, Response } from 'express';
import { authenticationOf, type AuthenticationMethod } from '../domain/sessions/authentication-methods';
import type { MfaChallenge } from '../domain/sessions/mfa-challenge';
import { LOGIN_MARK_PARAM } from './authorize-params';
import { continuation } from './login.route';
import { auditPageEvent } from './page-audit';
import type { PageContext } from './page-context';
import { PageError } from './page-error';
import { renderSecondFactor } from './views/second-factor.view';

/** What the second step's routes (a code: second-factor.route.ts; a passkey: second-factor-passkey.route.ts) share. */
export interface SecondFactorStep {
  /** The challenge of this browser; a step-up's only while the session it raises is still this browser's. */
  challenge(req: Request): Promise<MfaChallenge | null>;
  /** The second-factor page for the challenge, offering what can answer it, with an optional error. */
  page(req: Request, res: Response, challenge: MfaChallenge, status?: number, error?: string): Promise<void>;
  /**
   * A second factor answered: uses the challenge up (a double submit loses: expired), clears the user's
   * second-factor failures, and starts the session (a sign-in) or raises it (a step-up) with the amr/acr
   * authenticationOf gives for the methods so far plus `methods`; answers 303 onwards.
   */
  complete(
    req: Request,
    res: Response,
    challenge: MfaChallenge,
    methods: AuthenticationMethod[],
    details?: Record<string, string>,
  ): Promise<void>;
}

export const secondStepExpired = () =>
  new PageError(400, 'Sign-in expired', 'This sign-in took too long or was finished already. Sign in again.');

export function createSecondFactorStep(ctx: PageContext): SecondFactorStep {
  return {
    async challenge(req) {
      const challenge = await ctx.mfa.challenges.current(req);
      if (!challenge?.sessionHash) return challenge;
      const session = ctx.sessions.sessionHashOf(req);
      return session && session.equals(challenge.sessionHash) ? challenge : null;
    },

    async page(req, res, challenge, status = 200, error) {
      const choices = await ctx.mfa.choices(challenge);
      res
        .status(status)
        .type('html')
        .send(
          renderSecondFactor({
            chrome: ctx.chrome(req),
            csrfToken: ctx.csrf.token(req, res),
            username: challenge.username,
            offer: {
              code: choices.code,
              passkey: choices.passkeys.length > 0,
              passkeyUnusable: choices.passkeysUnusable,
            },
            ...(error ? { error } : {}),
          }),
        );
    },

    async complete(req, res, challenge, methods, details = {}) {
      if (!(await ctx.mfa.challenges.finish(req, res))) throw secondStepExpired();
      await ctx.mfa.throttle.recordSuccess(challenge.userId);
      const authentication = authenticationOf([...challenge.amr, ...methods]);
      auditPageEvent(ctx.logger, req, 'mfa.success', {
        userId: challenge.userId,
        amr: authentication.amr,
        stepUp: challenge.sessionHash ? 'yes' : 'no',
        ...details,
      });
      if (challenge.sessionHash) {
        const raised = await ctx.sessions.stepUp(req, res, authentication);
        if (!raised) throw secondStepExpired();
        // A continuation that carried the login mark keeps it, under the raised session's new id.
        const marked = challenge.returnTo.includes(`${LOGIN_MARK_PARAM}=`);
        return res.redirect(
          303,
          marked ? continuation(challenge.returnTo, ctx.sessions.loginMark(raised)) : challenge.returnTo,
        );
      }
      const user = { userId: challenge.userId, username: challenge.username };
      const session = await ctx.sessions.start(req, res, user, authentication);
      auditPageEvent(ctx.logger, req, 'login.success', { userId: user.userId, username: user.username });
      res.redirect(303, continuation(challenge.returnTo, ctx.sessions.loginMark(session)));
    },
  };
}
