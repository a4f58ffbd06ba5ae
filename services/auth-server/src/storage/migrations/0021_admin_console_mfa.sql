-- Up Migration
-- A second factor at the admin console's sign-in (issue 25, docs/FLOWS.md#admin-console).

-- How the admin signed in to the console (RFC 8176 amr values, as the pages' sessions record them). Rows
-- from before this migration were password sign-ins: the console had nothing else.
ALTER TABLE admin_console_sessions ADD COLUMN amr text[] NOT NULL DEFAULT '{pwd}';

-- Which sign-in a second-factor challenge belongs to: 'pages' (/login/second-factor) or 'console'
-- (/admin/console/login/second-factor). Each side looks up only its own, so a challenge started at one
-- can never finish a sign-in at the other (the cookies' names, paths and MAC keys differ too).
ALTER TABLE mfa_challenges ADD COLUMN purpose text NOT NULL DEFAULT 'pages'
  CHECK (purpose IN ('pages', 'console'));

-- Down Migration
ALTER TABLE mfa_challenges DROP COLUMN purpose;
ALTER TABLE admin_console_sessions DROP COLUMN amr;
