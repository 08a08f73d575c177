import { describe, expect, it } from 'vitest';
import { childEnv, runToEnd, tempDir } from './helpers/process.js';

/** Logs one line through createProcessLogger in a child process whose stderr is a pipe (not a terminal). */
const logOnce = (format: string) => runToEnd('test/fixtures/log-once.ts', [format], childEnv(tempDir('logger')));

describe('createProcessLogger', () => {
  it('writes JSON lines when stderr is not a terminal (auto) or when asked (json)', async () => {
    for (const format of ['auto', 'json']) {
      const r = await logOnce(format);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stderr.trim())).toMatchObject({ level: 30, msg: 'catalog ready', products: 501 });
    }
  });

  it('writes one readable line when asked (pretty), as on a terminal', async () => {
    const r = await logOnce('pretty');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: catalog ready \{"products":501\}\n$/);
  });
});
