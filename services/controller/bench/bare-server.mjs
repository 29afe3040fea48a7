// The baseline: a bare node:http server answering every request with the same JSON body the
// controller returns for GET /api/generator/state. Prints its port once listening.
import { createServer } from 'node:http';

const body = Buffer.from(process.env.BENCH_BARE_BODY ?? '{}');
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
});
server.listen(Number(process.env.BENCH_BARE_PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
