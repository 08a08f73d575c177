/**
 * The rounds: a row is one variant of one kind (its typical request or one of its worst); every
 * row runs once to warm up, then once a round, each batch built and cleaned up outside the
 * measured window. Within a round a kind's rows run back to back, so drift on a shared machine
 * hits the typical and the worst alike.
 */
import { type BenchServer, round } from '../lib.js';
import type { Client } from './client.js';
import type { Kind, Variant } from './kinds.js';
import { measure, type Sample } from './measure.js';

export interface Row {
  kind: Kind;
  variant: Variant;
  typical: boolean;
  samples: Sample[];
}

const rowName = (k: Kind) => (k.tool ? `${k.route} ${k.tool}` : k.route);

/** The rows of the kinds whose name contains one of `only` (all when null), each kind's typical first. */
export function rowsOf(kinds: readonly Kind[], only: readonly string[] | null): Row[] {
  const selected = (k: Kind) => only === null || only.some((o) => rowName(k).includes(o));
  return kinds
    .filter(selected)
    .flatMap((kind) => [
      { kind, variant: kind.typical, typical: true, samples: [] },
      ...kind.worst.map((variant) => ({ kind, variant, typical: false, samples: [] as Sample[] })),
    ]);
}

async function runBatch(server: BenchServer, client: Client, variant: Variant, n: number): Promise<Sample> {
  const reqs = await variant.build(n);
  const sample = await measure(server, client, reqs);
  await variant.cleanup?.();
  return sample;
}

/** Warms up, then runs `rounds` rounds, adding a sample to each row a round; progress (and with `trace` each batch's wall time) on stderr. */
export async function runRounds(
  server: BenchServer,
  client: Client,
  rows: readonly Row[],
  options: { rounds: number; trace: boolean; started: number },
): Promise<void> {
  const { rounds, trace, started } = options;
  // Warm-up: every request kind once or a few times, not recorded.
  for (const row of rows) {
    const t = performance.now();
    await runBatch(server, client, row.variant, 1);
    if (trace) process.stderr.write(`  warm-up ${rowName(row.kind)} ${row.variant.label.slice(0, 30)}: ${round(performance.now() - t, 0)} ms\n`);
  }
  process.stderr.write(`warmed up after ${round((performance.now() - started) / 1000, 1)} s\n`);
  for (let r = 0; r < rounds; r++) {
    for (const row of rows) {
      const t = performance.now();
      row.samples.push(await runBatch(server, client, row.variant, row.variant.reps ?? row.kind.reps));
      if (trace) process.stderr.write(`  ${rowName(row.kind)} ${row.variant.label.slice(0, 30)}: ${round(performance.now() - t, 0)} ms\n`);
    }
    process.stderr.write(`round ${r + 1} of ${rounds} done after ${round((performance.now() - started) / 1000, 1)} s\n`);
  }
}
