import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { lines, destination };
}

describe('createLogger', () => {
  it('never writes secrets, at any depth', () => {
    const { lines, destination } = capture();
    const log = createLogger({ service: 't', level: 'info', destination });
    log.info(
      { password: 'hunter2-top', config: { bot_token: 'tok-123456' }, a: { b: { api_token: 'deep-1' } } },
      'x',
    );
    log.child({ component: 'http' }).info({ req: { headers: { authorization: 'Bearer abc.def.ghi' } } }, 'y');
    const out = lines.join('');
    for (const secret of ['hunter2-top', 'tok-123456', 'deep-1', 'abc.def.ghi'])
      expect(out).not.toContain(secret);
    expect(out).toContain('[redacted]');
    expect(out).toContain('"component":"http"');
  });
});
