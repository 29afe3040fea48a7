// The read baseline: a bare node:http server doing what GET /api/generator/state must do for a
// request, and nothing else. It checks the bearer token as a fresh server would (BENCH_BARE_AUTH):
//   jose  (default) jose's jwtVerify on every request: signature, HS256 only, issuer, expiry and the
//         claims the controller requires, with the same secret as the controller's JWT_SECRET;
//   cache the controller's own way: a token verified once with jwtVerify is remembered until it
//         expires, and a request costs a Map lookup and the expiry check.
// A good token gets the controller's answer: its headers (BENCH_BARE_HEADERS: content-type,
// cache-control, the security headers, all but those Node writes itself) and its JSON body; anything
// else 401 {detail} with WWW-Authenticate: Bearer. Prints its port once listening.
import { createSecretKey } from 'node:crypto';
import { createServer } from 'node:http';
import { jwtVerify } from 'jose';

const body = Buffer.from(process.env.BENCH_BARE_BODY ?? '{}');
const headers = {
  ...JSON.parse(process.env.BENCH_BARE_HEADERS ?? '{"content-type":"application/json"}'),
  'content-length': body.length,
};
const key = createSecretKey(Buffer.from(process.env.BENCH_BARE_JWT_SECRET ?? '', 'utf8'));
const cached = process.env.BENCH_BARE_AUTH === 'cache';
const verified = new Map();
const OPTIONS = {
  algorithms: ['HS256'],
  issuer: 'outpost-controller',
  requiredClaims: ['sub', 'jti', 'exp', 'iat'],
};

/** True when the token is a valid, unexpired token signed with the secret. */
async function valid(token) {
  let exp = cached ? verified.get(token) : undefined;
  if (exp === undefined) {
    try {
      exp = (await jwtVerify(token, key, OPTIONS)).payload.exp * 1000;
    } catch {
      return false;
    }
    if (cached) verified.set(token, exp);
  }
  return exp > Date.now();
}

const refused = Buffer.from(JSON.stringify({ detail: 'Invalid or expired token' }));
const server = createServer(async (req, res) => {
  const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!match || !(await valid(match[1]))) {
    res.writeHead(401, {
      'content-type': 'application/json',
      'content-length': refused.length,
      'www-authenticate': 'Bearer',
    });
    res.end(refused);
    return;
  }
  res.writeHead(200, headers);
  res.end(body);
});
server.listen(Number(process.env.BENCH_BARE_PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port} (auth: ${cached ? 'cache' : 'jose'})\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
