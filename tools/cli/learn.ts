/**
 * `npm run learn`: one run of global learning against the configured database, as the server
 * runs it every AISLE_LEARNING_INTERVAL_MS: it judges the candidate model under test (promote or
 * reject on its interleaving evidence) or fits a new candidate from the event log. For
 * PostgreSQL deployments that schedule it themselves (cron); with the embedded database the
 * server holds the data directory, so stop it first. Prints what the run did on stdout and logs
 * on stderr at LOG_LEVEL, as the server does; exit 0 whatever it decided, 1 when it failed, and
 * the codes of docs/development.md for usage (64), an unreachable database (69), a held data
 * directory (75) and the configuration (78).
 */
// First, so that the command line is checked before anything else loads (learn.command.ts).

import { loadConfig } from '../../src/config.js';
import { createProcessLogger } from '../../src/logger.js';
import { openLearningRuntime } from '../../src/runtime.js';
import { cli } from './learn.command.js';

await cli.run(async () => {
  const config = loadConfig();
  const logger = createProcessLogger(config.logLevel, config.logFormat);
  const { ranking, close } = await openLearningRuntime(config, logger);
  try {
    const run = await ranking.runOnce();
    process.stdout.write(`${JSON.stringify(run, null, 2)}\n`);
  } finally {
    await close();
  }
});
