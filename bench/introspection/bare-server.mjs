// (a) The ceiling our framework allows: express 5 with the same body parsers and the same passport-http
// Basic parsing (form-url-decoded id and secret, constant-time compare) as auth-server's /token_info,
// and no lookup at all: every authenticated call answers one fixed active token.
import { createHash, timingSafeEqual } from 'node:crypto';
import express from 'express';
import { Passport } from 'passport';
import { BasicStrategy } from 'passport-http';

const { PORT, RS_ID, RS_SECRET } = process.env;
const digest = (value) => createHash('sha256').update(value).digest();
const expectedSecret = digest(RS_SECRET);
const formDecode = (value) => decodeURIComponent(value.replace(/\+/g, ' '));

const passport = new Passport();
passport.use(
  'rs-basic',
  new BasicStrategy({ realm: 'token_info' }, (rawId, rawSecret, done) => {
    const ok = formDecode(rawId) === RS_ID && timingSafeEqual(digest(formDecode(rawSecret)), expectedSecret);
    done(null, ok ? { id: RS_ID } : false);
  }),
);

const app = express();
app.disable('x-powered-by');
app.post(
  '/token_info',
  express.urlencoded({ extended: false, limit: '16kb' }),
  express.json({ limit: '16kb' }),
  passport.authenticate('rs-basic', { session: false }),
  (req, res) => {
    res.set('Cache-Control', 'no-store').set('Pragma', 'no-cache');
    if (typeof req.body?.token !== 'string') {
      res.status(400).json({ error: 'invalid_request', error_description: 'token is required' });
      return;
    }
    const now = Math.floor(Date.now() / 1000);
    res.json({
      active: true,
      scope: 'bench.read',
      client_id: 'bench-client',
      token_type: 'Bearer',
      iat: now,
      exp: now + 3600,
    });
  },
);
const server = app.listen(Number(PORT), '127.0.0.1', () => process.stdout.write(`listening ${PORT}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
