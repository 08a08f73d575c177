/**
 * Where a server's JavaScript thread spends its time: self time of a V8 .cpuprofile (written by
 * `node --cpu-prof`) grouped by what the code belongs to. Native threads (LanceDB's and
 * onnxruntime's pools) are not in the profile; time the JS thread waits on them shows as idle or
 * as the calling function.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}
interface CpuProfile {
  nodes: ProfileNode[];
  /** Microseconds, on the same clock as endTime. */
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Wall-clock window to count, and when the profiled process ended (its profile's endTime). */
export interface ProfileWindow {
  fromMs: number;
  toMs: number;
  exitedAtMs: number;
}

/** First match wins: the order puts our own code before the libraries it calls. */
const CATEGORIES: Array<[string, RegExp]> = [
  ['(idle)', /^\(idle\)$/],
  ['(garbage collector)', /^\(garbage collector\)$/],
  ['(program: native code, unattributed)', /^\(program\)$/],
  ['ranking: features and scores (src/core/ranking)', /\/src\/core\/ranking\//],
  ['search service, feedback and learning (src/core/search, feedback, learning)', /\/src\/core\/(?:search|feedback|learning)\//],
  ['catalog store (src/store/lance)', /\/src\/store\/lance\//],
  ['embedding (src/embed, onnxruntime-node)', /\/src\/embed\/|onnxruntime/],
  ['LanceDB and Arrow (JS side)', /@lancedb|apache-arrow/],
  ['PostgreSQL client and stores (pg, src/store/pg)', /\/node_modules\/pg|\/src\/store\/pg\//],
  ['zod validation', /\/node_modules\/zod\//],
  ['Fastify, routing and serialisation', /fastify|find-my-way|light-my-request|fast-json-stringify|avvio/],
  ['logging (pino)', /pino|sonic-boom/],
  ['other Aisle code (src/)', /\/src\//],
  ['Node.js internals (http, streams, timers)', /^node:|^internal\//],
  ['other dependencies', /node_modules/],
];

function categoryOf(node: ProfileNode): string {
  const key = node.callFrame.url || node.callFrame.functionName;
  const found = CATEGORIES.find(([, re]) => re.test(key))?.[0];
  if (found) return found;
  // No script URL: V8 builtins and native bindings called from whichever code above.
  if (!node.callFrame.url)
    return node.callFrame.functionName.startsWith('RegExp:') ? 'regular expressions (V8)' : 'V8 builtins and native bindings (buffers, crypto, UTF-8)';
  return 'other';
}

/**
 * Milliseconds of self time per category, over every profile in `dir`, largest first; with
 * `window`, only samples taken within it (the profile's clock is mapped to wall time through the
 * process's exit, so start-up work stays out).
 */
export function summarizeProfiles(dir: string, window?: ProfileWindow): Array<{ category: string; ms: number; share: number }> {
  const totals = new Map<string, number>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const own = new Map<string, number>();
    let t = profile.startTime;
    profile.samples.forEach((id, i) => {
      t += profile.timeDeltas[i] ?? 0;
      if (window) {
        const wall = window.exitedAtMs - (profile.endTime - t) / 1000;
        if (wall < window.fromMs || wall > window.toMs) return;
      }
      const category = categoryOf(byId.get(id)!);
      own.set(category, (own.get(category) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
    });
    // A thread that sleeps through the run (a module loader's, the fit thread's) gets a profile too and is not the server.
    const all = [...own.values()].reduce((n, ms) => n + ms, 0);
    if (all === 0 || (own.get('(idle)') ?? 0) / all > 0.95) continue;
    for (const [category, ms] of own) totals.set(category, (totals.get(category) ?? 0) + ms);
  }
  const busy = [...totals].filter(([c]) => c !== '(idle)').reduce((n, [, ms]) => n + ms, 0);
  return [...totals]
    .map(([category, ms]) => ({ category, ms: Math.round(ms), share: category === '(idle)' ? Number.NaN : Math.round((ms / busy) * 1000) / 10 }))
    .sort((a, b) => b.ms - a.ms);
}
