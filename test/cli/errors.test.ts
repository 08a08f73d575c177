import { mkdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FeedFormatError } from '../../src/catalog/files/types.js';
import { CliError, describeFailure, EXIT, UsageError } from '../../src/cli/errors.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { CatalogModelMismatchError } from '../../src/core/catalog/errors.js';
import { AppError } from '../../src/core/errors.js';
import { databaseUnavailable } from '../../src/store/pg/db-errors.js';
import { acquirePidLock } from '../../src/store/pid-lock.js';
import { tempDir } from '../helpers/process.js';

/** What `act` throws; fails the test when it throws nothing. */
async function thrown(act: () => unknown): Promise<unknown> {
  try {
    await act();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}

describe('describeFailure', () => {
  it.each([
    ['a usage mistake', new UsageError('--set DIR is required'), EXIT.usage, '--set DIR is required', true],
    ['a failure the tool foresaw', new CliError(EXIT.cannotCreate, 'out.jsonl: cannot write'), 73, 'out.jsonl: cannot write', false],
    [
      'a feed that is not one, with its place',
      new FeedFormatError('no header row', { file: 'feed.csv', line: 1 }),
      EXIT.dataError,
      'feed.csv:1: no header row',
      false,
    ],
    [
      'a catalog built by another model',
      new CatalogModelMismatchError('use-lite', 512, 'minilm', 384),
      EXIT.config,
      'The catalog was built with the embedding model use-lite',
      false,
    ],
    ['a caller mistake the core rejects', new AppError('not_found', 'No account with id 42.'), EXIT.dataError, 'No account with id 42.', false],
  ])('maps %s to its exit code and message', (_, err, exitCode, message, showUsage) => {
    const failure = describeFailure(err);
    expect(failure).toMatchObject({ exitCode, showUsage, unexpected: false });
    expect(failure.message).toContain(message);
  });

  it('maps an invalid configuration to 78 with every bad variable', async () => {
    const err = await thrown(() => loadConfig({ PORT: 'eighty', AISLE_API_PROCESSES: '0' }));
    expect(err).toBeInstanceOf(ConfigError);
    const failure = describeFailure(err);
    expect(failure.exitCode).toBe(EXIT.config);
    expect(failure.message).toMatch(/PORT: .*\n.*AISLE_API_PROCESSES/s);
  });

  it('maps a data directory held by another process to 75', async () => {
    const lock = join(tempDir('cli-lock'), 'lock.pid');
    const held = acquirePidLock(lock, () => 'unused');
    try {
      // This process is alive, so the lock it holds is refused to the next taker.
      const failure = describeFailure(await thrown(() => acquirePidLock(lock, (pid) => `the data directory is in use by process ${pid}`)));
      expect(failure).toMatchObject({ exitCode: EXIT.tempFail, message: `the data directory is in use by process ${process.pid}` });
    } finally {
      held.release();
    }
  });

  it('maps a missing or unreadable input file to 66 and an output that cannot be made to 73, naming the path', async () => {
    const dir = tempDir('cli-files');
    expect(describeFailure(await thrown(() => readFileSync(join(dir, 'missing.csv'))))).toMatchObject({
      exitCode: EXIT.noInput,
      message: `${join(dir, 'missing.csv')}: no such file or directory`,
    });
    expect(describeFailure(await thrown(() => readFileSync(dir)))).toMatchObject({
      exitCode: EXIT.noInput,
      message: expect.stringContaining('is a directory'),
    });
    expect(describeFailure(await thrown(() => mkdirSync(join(dir, 'no', 'such', 'parent'))))).toMatchObject({
      exitCode: EXIT.cannotCreate,
      message: `${join(dir, 'no', 'such', 'parent')}: cannot write: no such file or directory`,
    });
  });

  it('maps a server that refuses the connection to 69, naming the address', async () => {
    // Port 1 on loopback: nothing listens there, so the kernel refuses at once.
    const err = await thrown(() => new Promise((resolve, reject) => connect({ host: '127.0.0.1', port: 1 }).once('error', reject).once('connect', resolve)));
    expect(describeFailure(err)).toMatchObject({ exitCode: EXIT.unavailable, message: 'cannot reach 127.0.0.1:1: connection refused' });
    // The same refusal as the database layer reports it: a 503 whose cause is the socket error.
    expect(describeFailure(databaseUnavailable(err))).toMatchObject({ exitCode: EXIT.unavailable, message: 'cannot reach 127.0.0.1:1: connection refused' });
  });

  it('maps a database that timed out to 69 with what happened', () => {
    const timedOut = databaseUnavailable(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }));
    expect(describeFailure(timedOut)).toMatchObject({
      exitCode: EXIT.unavailable,
      message: expect.stringMatching(/^The database is unavailable: statement timeout/),
    });
  });

  it('treats anything else, and a 5xx from the core, as an unexpected error (exit 1)', () => {
    expect(describeFailure(new TypeError("Cannot read properties of null (reading 'x')"))).toEqual({
      exitCode: EXIT.failure,
      message: "unexpected error: TypeError: Cannot read properties of null (reading 'x')",
      showUsage: false,
      unexpected: true,
    });
    expect(describeFailure(new AppError('internal_error', 'boom'))).toMatchObject({ exitCode: EXIT.failure, unexpected: true });
  });
});
