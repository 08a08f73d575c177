/**
 * Operator CLI: `npm run aisle -- <command>`.
 *   accounts create --name NAME [--json]
 *   keys create --account ID --name NAME [--scopes a,b] [--rate-limit N] [--json]
 *   ranking status [--json]      which ranking model serves, the candidate under test and its
 *                                interleaving evidence, and the latest decisions
 *   ranking rollback             the learned model serving stops; the one before it serves again
 * Works on the configured database (DATABASE_URL, or PGlite in AISLE_DATA_DIR — which a running
 * server holds exclusively, so stop it first or point DATABASE_URL at PostgreSQL).
 * Exit codes (docs/development.md): 64 usage, 65 an id or value the service rejects (an
 * unknown account), 69 the database server cannot be reached, 75 a running server holds the
 * data directory, 78 configuration.
 */
// First, so that the command line is checked before anything else loads (aisle.command.ts).

import { z } from 'zod';
import { UsageError } from '../../src/cli/errors.js';
import { loadConfig } from '../../src/config.js';
import { systemClock } from '../../src/core/clock.js';
import { parseId } from '../../src/core/ids.js';
import { createCore } from '../../src/core/index.js';
import { SCOPES } from '../../src/core/keys/scopes.js';
import type { RankingStatus } from '../../src/core/learning/ranking-learner.js';
import { ScopeSchema } from '../../src/core/schemas/keys.js';
import { createLogger } from '../../src/logger.js';
import { createPgStores, openMigratedDb } from '../../src/store/pg/index.js';
import { cli } from './aisle.command.js';

const { values, positionals } = cli;
const rateLimit = cli.number('rate-limit', { integer: true, min: 1, max: 1_000_000 });

function print(fields: Record<string, string>): void {
  if (values.json) process.stdout.write(`${JSON.stringify(fields)}\n`);
  else for (const [k, v] of Object.entries(fields)) process.stdout.write(`${k.padEnd(11)} ${v}\n`);
}

function required(name: 'name' | 'account'): string {
  const value = values[name]?.trim();
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

function parseScopes(flag: string): z.infer<typeof ScopeSchema>[] {
  const parsed = z
    .array(ScopeSchema)
    .min(1)
    .safeParse(flag.split(',').map((s) => s.trim()));
  if (!parsed.success) throw new UsageError(`--scopes takes scopes from ${SCOPES.join(', ')}, not ${JSON.stringify(flag)}`);
  return parsed.data;
}

function printStatus(s: RankingStatus): void {
  if (values.json) {
    process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
    return;
  }
  const out: string[] = [];
  out.push(`scope        ${s.scope}`);
  out.push(
    `serving      ${s.serving ? `${s.serving.id} (learned; promoted ${s.serving.decidedAt?.toISOString() ?? '?'})` : `${s.base} (the catalog's model; no learned model serves)`}`,
  );
  if (s.candidate) {
    const e = s.candidate.interleaving;
    out.push(`candidate    ${s.candidate.id} (proposed ${s.candidate.createdAt.toISOString()})`);
    out.push(`interleaving candidate wins ${e.candidateWins}, serving wins ${e.servingWins}, ties ${e.ties}, sign test p = ${e.pValue.toPrecision(3)}`);
    out.push(`             decides at ${s.guard.minDecisive} decisive comparisons (p < ${s.guard.alpha}); rejected if undecided at ${s.guard.maxDecisive}`);
  } else out.push('candidate    none');
  out.push('decisions (newest first):');
  for (const d of s.decisions) {
    const e = d.evidence as Record<string, unknown>;
    const detail =
      d.action === 'propose'
        ? `held-out NDCG@10 ${JSON.stringify(e.heldOutNdcg ?? null)}`
        : d.action === 'rollback'
          ? `back to ${d.modelId ?? s.base}`
          : `wins ${String(e.candidateWins)}:${String(e.servingWins)}, p = ${String(e.pValue)}`;
    out.push(
      `  ${d.createdAt.toISOString()}  ${d.action.padEnd(8)} ${(d.action === 'rollback' ? (d.previousId ?? '') : (d.modelId ?? '')).padEnd(20)} by ${d.actor}; ${detail}`,
    );
  }
  if (s.decisions.length === 0) out.push('  none');
  process.stdout.write(`${out.join('\n')}\n`);
}

async function ranking(subcommand: string): Promise<void> {
  // Loaded here, not at the top: the runtime brings the catalog store (LanceDB, Arrow) and the
  // embedder, which only the ranking commands use; accounts and keys start without them.
  const { openLearningRuntime } = await import('../../src/runtime.js');
  const { ranking, close } = await openLearningRuntime(loadConfig(), createLogger('warn'));
  try {
    if (subcommand === 'ranking status') printStatus(await ranking.status());
    else {
      const result = await ranking.rollback('operator (npm run aisle)');
      if (result === null) process.stdout.write('No learned model serves: nothing to roll back.\n');
      else process.stdout.write(`Rolled back ${result.from}; now serving ${result.to ?? "the catalog's own model"}. Running servers switch within 10 s.\n`);
    }
  } finally {
    await close();
  }
}

async function run(): Promise<void> {
  const subcommand = positionals.join(' ');
  if (!['accounts create', 'keys create', 'ranking status', 'ranking rollback'].includes(subcommand))
    throw new UsageError(subcommand ? `unknown command: ${subcommand}` : 'no command');
  if (subcommand.startsWith('ranking ')) return ranking(subcommand);
  // Every flag is checked before the database opens.
  const name = required('name');
  const accountId = subcommand === 'keys create' ? parseId('account', required('account')) : null;
  if (subcommand === 'keys create' && accountId === null) throw new UsageError('--account must be an account id (UUID)');
  const scopes = values.scopes === undefined ? undefined : parseScopes(values.scopes);
  const config = loadConfig();
  const db = await openMigratedDb(config);
  try {
    const core = createCore({
      stores: createPgStores(db),
      clock: systemClock,
      logger: createLogger('warn'),
      defaultRateLimitPerMinute: config.defaultRateLimitPerMinute,
    });
    if (accountId === null) {
      const { account, firstKey } = await core.accounts.create(name);
      print({ account_id: account.id, key_id: firstKey.metadata.id, scopes: firstKey.metadata.scopes.join(','), api_key: firstKey.key });
      return;
    }
    const account = await core.accounts.get(accountId);
    // The operator acts with every scope; the key gets the scopes asked for (default: all).
    const operator = { accountId: account.id, keyId: 'operator', scopes: SCOPES, rateLimitPerMinute: config.defaultRateLimitPerMinute };
    const created = await core.keys.create(operator, {
      name,
      ...(scopes ? { scopes } : {}),
      ...(rateLimit ? { rate_limit_per_minute: rateLimit } : {}),
    });
    print({ account_id: account.id, key_id: created.metadata.id, scopes: created.metadata.scopes.join(','), api_key: created.key });
  } finally {
    await db.close();
  }
}

await cli.run(run);
