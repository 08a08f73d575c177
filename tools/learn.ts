/**
 * `npm run learn`: one run of global learning against the configured database, as the server
 * runs it every AISLE_LEARNING_INTERVAL_MS: it judges the candidate model under test (promote or
 * reject on its interleaving evidence) or fits a new candidate from the event log. For
 * PostgreSQL deployments that schedule it themselves (cron); with the embedded database the
 * server holds the data directory, so stop it first. Prints what the run did; exit 0 whatever
 * it decided, 1 when it failed.
 */
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { openLearningRuntime } from '../src/runtime.js';

const logger = createLogger(process.env.LOG_LEVEL ?? 'warn');
const { core, close } = await openLearningRuntime(loadConfig(), logger);
try {
  const run = await core.ranking!.runOnce();
  process.stdout.write(`${JSON.stringify(run, null, 2)}\n`);
} catch (err) {
  process.stderr.write(`learning failed: ${(err as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await close();
}
