/** Turns the benches' BENCH_JSON figures into BENCHMARKS.md (tools/bench/report.ts runs them). */
import type { KindSummary } from './mix.js';

export interface BenchRun {
  name: string;
  command: string;
  stdout: string;
  json: Record<string, unknown>[];
  status: string;
}

export interface ReportInput {
  generatedAt: string;
  command: string;
  git: string;
  machine: { cpus: number; cpuModel: string; memoryGb: number; node: string; os: string; loadStart: number[]; loadEnd: number[] };
  runs: BenchRun[];
  notRun: Array<{ name: string; command: string }>;
  /** Every bench the report can run, for the line that says how to pick them. */
  known: string[];
}

/** bench:load's per-endpoint summary, as its BENCH_JSON line carries it. */
type Endpoint = KindSummary;

const code = (text: string) => `\`\`\`\n${text.trim()}\n\`\`\``;
const md = (header: string[], rows: string[][]) =>
  `| ${header.join(' | ')} |\n| ${header.map(() => '---').join(' | ')} |\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}`;
/** One client's p50 and p99 and the largest API process under load, against the targets at any size (docs/benchmarks.md). */
function scaleRows(scale: ScaleJson | undefined): string[][] {
  if (!scale) return [];
  const n = scale.products?.toLocaleString('en-US') ?? '?';
  const rss = scale.rss_peak_mb ? Math.max(scale.rss_peak_mb.search?.per_process ?? 0, scale.rss_peak_mb.mixed?.per_process ?? 0) : undefined;
  const one = scale.search_one_client;
  return [
    [
      `search p50 / p99, one client (bench:scale, ${n} products)`,
      '≤ 20 / 60 ms',
      one ? `${one.p50_ms} / ${one.p99_ms} ms` : '-',
      one ? ([verdict(one.p50_ms, 20, 'max'), verdict(one.p99_ms, 60, 'max')].every((v) => v === 'met') ? 'met' : 'missed') : 'not measured',
    ],
    [`largest API process RSS under load (bench:scale, ${n} products)`, '≤ 1,500 MB', rss === undefined ? '-' : `${rss} MB`, verdict(rss, 1500, 'max')],
  ];
}

/** What the targets read of bench:scale's JSON. */
interface ScaleJson {
  products?: number;
  search_one_client?: { p50_ms: number; p99_ms: number };
  rss_peak_mb?: { search?: { per_process: number }; mixed?: { per_process: number } };
  ann_recall_at_100?: number | null;
  crowdflower_ndcg?: { inside: { shipped: number }; alone: { shipped: number } };
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

const find = (runs: BenchRun[], bench: string) => runs.flatMap((r) => r.json).find((j) => j.bench === bench);

function endpointRows(byKind: Record<string, Endpoint>): string[][] {
  return Object.entries(byKind).map(([k, e]) => [
    k,
    e.rps.toFixed(1),
    String(e.requests),
    e.p50_ms.toFixed(1),
    e.p95_ms.toFixed(1),
    e.p99_ms.toFixed(1),
    String(e.errors),
  ]);
}
const ENDPOINT_HEADER = ['endpoint', 'req/s', 'requests', 'p50 ms', 'p95 ms', 'p99 ms', 'errors'];

/** "met", or how far off and by what factor, for a target where lower (max) or higher (min) is better. */
function verdict(value: number | undefined, target: number, kind: 'max' | 'min'): string {
  if (value === undefined || Number.isNaN(value)) return 'not measured';
  const ok = kind === 'max' ? value <= target : value >= target;
  if (ok) return 'met';
  // Two decimals near the limit, where one would print a miss as "1.0×".
  const times = value / target;
  return kind === 'max' ? `missed: ${times.toFixed(times < 1.1 ? 2 : 1)}× the limit` : `missed: ${((value / target) * 100).toFixed(0)} % of the target`;
}

/** bench:load's BENCH_JSON (tools/bench/load.ts). */
interface LoadJson {
  catalog: string;
  connections: number;
  duration_s: number;
  api_processes?: number;
  healthz: Endpoint;
  search_only: Endpoint;
  single_client?: Endpoint;
  mixed: Record<string, Endpoint>;
  search_to_healthz_ratio: number;
  duplicate_clicks: number;
  transport_errors: number;
  loadavg: Record<string, number[]>;
  server_cpu?: Record<
    string,
    { server_cores: number; server_ms_per_request: number; postgres_ms_per_request: number | null; client_ms_per_request: number } | null
  >;
  floor?: { embed: FloorPart; vector: FloorPart; text: FloorPart; cpu_ms_per_search: number; searches_per_core_s: number } | null;
  vs_floor?: { server_cpu_ratio: number; server_and_postgres_cpu_ratio: number | null; searches_per_busy_core: number } | null;
  rss_peak_mb?: Record<string, { per_process: number | null; total: number | null }>;
  search_profile?: Array<{ category: string; ms: number; share: number | null }>;
}
interface FloorPart {
  cpu_ms: number;
  p50_ms: number;
  calls: number;
}

function targets(runs: BenchRun[]): string {
  // The unprofiled run: the profiler costs CPU of its own (load-profile shows where the CPU goes).
  const load = runs.find((r) => r.name === 'load')?.json.find((j) => j.bench === 'load') as LoadJson | undefined;
  const objectStore = find(runs, 'object-store') as { p50_ratio?: number; store_latency_ms?: number } | undefined;
  const soak = find(runs, 'soak') as
    | { rss_growth_pct?: number | null; rss_max_process_mb?: number; verdict?: Record<string, boolean>; errors?: number }
    | undefined;
  const clicks = find(runs, 'clicks') as { clicks_per_s?: number; clicks_p99_ms?: number; db?: string } | undefined;
  const s = load?.search_only;
  const c = load?.mixed?.click;
  const one = load?.single_client;
  const cpu = load?.server_cpu?.search ?? null;
  const evalOf = (set: string) =>
    runs.flatMap((r) => r.json).find((j) => j.bench === 'eval' && j.set === set) as
      | { queries?: number; systems?: Record<string, { ndcg: number }> }
      | undefined;
  const cfRun = evalOf('crowdflower');
  const hdRun = evalOf('homedepot');
  const cf = cfRun?.systems?.['Aisle rerank']?.ndcg;
  const hd = hdRun?.systems?.['Aisle rerank']?.ndcg;
  const worst = find(runs, 'worst') as
    | {
        largest_ratio?: { row: string; ratio: number } | null;
        largest_search_ratio?: { row: string; ratio: number } | null;
        longest_block?: { row: string; ms: number } | null;
      }
    | undefined;
  const fresh = find(runs, 'freshness') as
    | {
        products?: number;
        commits?: number;
        fresh_per_s?: number;
        same_again_per_s?: number;
        delta_10pct_s?: number;
        delta_all_s?: number;
        p99_ratio?: number;
        storage_ratio?: number;
      }
    | undefined;
  // By the runs' names: the million and the hundred thousand are both bench:scale's JSON.
  const scaleOf = (name: string) => runs.find((r) => r.name === name)?.json.find((j) => j.bench === 'scale') as ScaleJson | undefined;
  const scale = scaleOf('scale');
  const scale100k = scaleOf('scale-100k');
  // By the run's name: outputs saved before the refresh bench named itself in its JSON carry no "bench".
  const refresh = runs.find((r) => r.name === 'refresh')?.json[0] as
    | { failed?: number; changes?: number; p99_over_steady_ms?: number; steady?: { p99_ms: number }; during?: { p99_ms: number } }
    | undefined;
  const policy = find(runs, 'policy') as { ratio?: number; ratio_absent?: number; products?: number } | undefined;
  const ingest = find(runs, 'ingest') as { placement_ratio?: number; products?: number } | undefined;
  const placementOf = (split: string) =>
    runs.flatMap((r) => r.json).find((j) => j.bench === 'placement' && j.split === split && j.vote === true) as
      | { top_level?: number; three_levels?: number; exact?: number }
      | undefined;
  const cfGap = scale?.crowdflower_ndcg ? round4(scale.crowdflower_ndcg.alone.shipped - scale.crowdflower_ndcg.inside.shipped) : undefined;
  const rssPeak = Math.max(load?.rss_peak_mb?.search?.per_process ?? 0, load?.rss_peak_mb?.mixed?.per_process ?? 0) || undefined;
  const ms = (v: number | undefined) => (v === undefined ? '-' : `${v} ms`);
  const rows: string[][] = [
    // The load targets: bench:load on PostgreSQL, Home Depot catalog, 16 connections (docs/benchmarks.md).
    ['searches/s, 16 connections (bench:load, search alone)', '≥ 200', s ? s.rps.toFixed(1) : '-', verdict(s?.rps, 200, 'min')],
    ['search p99, 16 connections', '≤ 150 ms', ms(s?.p99_ms), verdict(s?.p99_ms, 150, 'max')],
    [
      'search errors',
      '0',
      s ? String(s.errors + (load?.transport_errors ?? 0)) : '-',
      s ? (s.errors + (load?.transport_errors ?? 0) === 0 ? 'met' : 'missed') : 'not measured',
    ],
    ['search p50, one client (bench:load)', '≤ 12 ms', ms(one?.p50_ms), verdict(one?.p50_ms, 12, 'max')],
    ['server CPU per search, 16 connections', '≤ 8 ms', cpu ? `${cpu.server_ms_per_request} ms` : '-', verdict(cpu?.server_ms_per_request, 8, 'max')],
    [
      "server CPU per search / the floor's, measured in the same run",
      '≤ 1.5',
      load?.vs_floor ? String(load.vs_floor.server_cpu_ratio) : '-',
      verdict(load?.vs_floor?.server_cpu_ratio, 1.5, 'max'),
    ],
    [
      `clicks/s (bench:clicks${clicks?.db ? `, ${clicks.db}` : ''})`,
      '≥ 2,000',
      clicks?.clicks_per_s !== undefined ? String(clicks.clicks_per_s) : '-',
      verdict(clicks?.clicks_per_s, 2000, 'min'),
    ],
    ['click p99 (bench:clicks, clicks alone)', '≤ 50 ms', ms(clicks?.clicks_p99_ms), verdict(clicks?.clicks_p99_ms, 50, 'max')],
    ['click p99 inside the mixed load (bench:load)', '≤ 100 ms', ms(c?.p99_ms), verdict(c?.p99_ms, 100, 'max')],
    ['largest API process RSS under load (bench:load)', '≤ 700 MB', rssPeak === undefined ? '-' : `${rssPeak} MB`, verdict(rssPeak, 700, 'max')],
    [
      `search p50, catalog at az:// behind ${objectStore?.store_latency_ms ?? 20} ms a request / local catalog (bench:object-store)`,
      '≤ 1.5×',
      objectStore?.p50_ratio === undefined ? '-' : `${objectStore.p50_ratio}×`,
      verdict(objectStore?.p50_ratio, 1.5, 'max'),
    ],
    [
      'soak: RSS growth, GC troughs (bench:soak)',
      '< 10 %',
      soak?.rss_growth_pct == null ? '-' : `${soak.rss_growth_pct} %`,
      soak?.verdict ? (soak.verdict.rss_growth_under_10pct ? 'met' : 'missed') : 'not measured',
    ],
    [
      'soak: webhook backlog flat, 0 errors',
      'flat, 0',
      soak?.verdict ? `${soak.verdict.backlog_not_growing ? 'flat' : 'growing'}, ${soak.errors} errors` : '-',
      soak?.verdict ? (soak.verdict.backlog_not_growing && soak.verdict.zero_errors ? 'met' : 'missed') : 'not measured',
    ],
    // The most expensive request of each kind (bench:worst), against a typical one of its kind.
    [
      'largest CPU ratio, worst / typical request of a kind (bench:worst)',
      '≤ 10×',
      worst?.largest_ratio ? `${worst.largest_ratio.ratio}× (${worst.largest_ratio.row})` : '-',
      verdict(worst?.largest_ratio?.ratio, 10, 'max'),
    ],
    [
      'largest CPU ratio, worst / plain search (bench:worst)',
      '≤ 3×',
      worst?.largest_search_ratio ? `${worst.largest_search_ratio.ratio}× (${worst.largest_search_ratio.row})` : '-',
      verdict(worst?.largest_search_ratio?.ratio, 3, 'max'),
    ],
    [
      'longest event-loop block of any request (bench:worst)',
      '≤ 50 ms',
      worst?.longest_block ? `${worst.longest_block.ms} ms (${worst.longest_block.row})` : '-',
      verdict(worst?.longest_block?.ms, 50, 'max'),
    ],
    // The taxonomy and the publisher's policy (docs/policy.md, docs/ingest.md).
    [
      `CPU per search with a policy of 20 categories and 50 brands / none (bench:policy, ${policy?.products ?? '?'} products)`,
      '≤ 1.05',
      policy?.ratio === undefined ? '-' : `${policy.ratio} (one excluding nothing here: ${policy.ratio_absent})`,
      verdict(policy?.ratio, 1.05, 'max'),
    ],
    [
      `fresh import with placement / without (bench:ingest, ${ingest?.products ?? '?'} products)`,
      '≤ 1.10',
      ingest?.placement_ratio === undefined ? '-' : String(ingest.placement_ratio),
      verdict(ingest?.placement_ratio, 1.1, 'max'),
    ],
    ...(['dev', 'heldout'] as const).flatMap((split) => {
      const p = placementOf(split);
      const pct = (v: number | undefined) => (v === undefined ? '-' : `${Math.round(v * 1000) / 10} %`);
      return [
        [`placement from text, ${split}: top-level vertical (npm run placement)`, '≥ 95 %', pct(p?.top_level), verdict(p?.top_level, 0.95, 'min')],
        [`placement from text, ${split}: first three levels`, '≥ 85 %', pct(p?.three_levels), verdict(p?.three_levels, 0.85, 'min')],
        [`placement from text, ${split}: exact (or listed as equally right)`, '≥ 65 %', pct(p?.exact), verdict(p?.exact, 0.65, 'min')],
      ];
    }),
    // Keeping a catalog fresh (bench:freshness, docs/ingest.md): synthetic products, this machine.
    [
      `fresh import, index and fit (bench:freshness, ${fresh?.products ?? '?'} products)`,
      '≥ 1,000 products/s',
      fresh?.fresh_per_s === undefined ? '-' : `${fresh.fresh_per_s}/s`,
      verdict(fresh?.fresh_per_s, 1000, 'min'),
    ],
    [
      'the same feed again',
      '≥ 20,000 products/s',
      fresh?.same_again_per_s === undefined ? '-' : `${fresh.same_again_per_s}/s`,
      verdict(fresh?.same_again_per_s, 20_000, 'min'),
    ],
    [
      'price-only delta of 10 % of the catalog, to searchable',
      '≤ 10 s',
      fresh?.delta_10pct_s === undefined ? '-' : `${fresh.delta_10pct_s} s`,
      verdict(fresh?.delta_10pct_s, 10, 'max'),
    ],
    [
      'price-only delta of every product, to searchable',
      '≤ 60 s',
      fresh?.delta_all_s === undefined ? '-' : `${fresh.delta_all_s} s`,
      verdict(fresh?.delta_all_s, 60, 'max'),
    ],
    [
      `search p99 after ${fresh?.commits ?? '?'} delta commits / after upkeep`,
      '≤ 1.1×',
      fresh?.p99_ratio === undefined ? '-' : `${fresh.p99_ratio}×`,
      verdict(fresh?.p99_ratio, 1.1, 'max'),
    ],
    [
      `storage after ${fresh?.commits ?? '?'} delta commits / after upkeep`,
      '≤ 1.5×',
      fresh?.storage_ratio === undefined ? '-' : `${fresh.storage_ratio}×`,
      verdict(fresh?.storage_ratio, 1.5, 'max'),
    ],
    // A catalog at scale (bench:scale): synthetic products with CrowdFlower's mixed in.
    ...scaleRows(scale100k),
    ...scaleRows(scale),
    [
      `ANN recall@100 against exact search (bench:scale, ${scale?.products?.toLocaleString('en-US') ?? '?'} products)`,
      '≥ 0.98',
      scale?.ann_recall_at_100 == null ? '-' : String(round4(scale.ann_recall_at_100)),
      verdict(scale?.ann_recall_at_100 ?? undefined, 0.98, 'min'),
    ],
    [
      `CrowdFlower dev NDCG@10 as shipped: alone minus inside the catalog (bench:scale, ${scale?.products?.toLocaleString('en-US') ?? '?'} products)`,
      '≤ 0.03',
      cfGap === undefined ? '-' : cfGap.toFixed(4),
      verdict(cfGap, 0.03, 'max'),
    ],
    // Catalog changes under load (bench:refresh, docs/deployment.md).
    [
      `failed searches while ${refresh?.changes ?? '?'} imports, deltas and refits land (bench:refresh)`,
      '0',
      refresh?.failed === undefined ? '-' : String(refresh.failed),
      refresh?.failed === undefined ? 'not measured' : refresh.failed === 0 ? 'met' : 'missed',
    ],
    [
      'search p99 during those changes, over the p99 before them',
      '≤ 1,000 ms',
      refresh?.p99_over_steady_ms === undefined ? '-' : `${refresh.p99_over_steady_ms} ms (${refresh.steady?.p99_ms} → ${refresh.during?.p99_ms} ms)`,
      verdict(refresh?.p99_over_steady_ms, 1000, 'max'),
    ],
    // The relevance target on the dev splits (docs/relevance.md).
    [
      `NDCG@10 rerank, CrowdFlower dev (eval${cfRun?.queries ? `, ${cfRun.queries} queries` : ''})`,
      '≥ 0.80',
      cf !== undefined ? cf.toFixed(4) : '-',
      verdict(cf, 0.8, 'min'),
    ],
    [
      `NDCG@10 rerank, Home Depot dev (eval${hdRun?.queries ? `, ${hdRun.queries} queries` : ''})`,
      '≥ 0.45',
      hd !== undefined ? hd.toFixed(4) : '-',
      verdict(hd, 0.45, 'min'),
    ],
  ];
  const notes: string[] = [];
  const la = load?.loadavg?.search;
  if (la) notes.push(`Load average (1 min) on the machine during the search-alone run: ${la.join(' → ')} on {cpus} cores.`);
  if (load && s && cpu) {
    const machineMs = cpu.server_ms_per_request + (cpu.postgres_ms_per_request ?? 0) + cpu.client_ms_per_request;
    notes.push(
      `During the search-alone run the server (${load.api_processes ?? 1} API process${(load.api_processes ?? 1) === 1 ? '' : 'es'}) used ${cpu.server_cores} cores: ${cpu.server_ms_per_request} ms of CPU per search, ` +
        `PostgreSQL ${cpu.postgres_ms_per_request ?? '?'} ms and the load generator ${cpu.client_ms_per_request} ms more, ${machineMs.toFixed(2)} ms of the machine per search in all. ` +
        `Two cores give 2,000 ms of CPU per second, so this machine tops out near ${Math.round(2000 / machineMs)} searches/s with the load generator on it, ${Math.round(2000 / (machineMs - cpu.client_ms_per_request))} without.`,
    );
  }
  if (load?.floor && load.vs_floor && cpu) {
    notes.push(
      `The floor (embedding ${load.floor.embed.cpu_ms} + vector lookup ${load.floor.vector.cpu_ms} + full-text lookup ${load.floor.text.cpu_ms} ms of CPU, measured in the same run) is ${load.floor.cpu_ms_per_search} ms per search: ` +
        `the server spends ${load.vs_floor.server_cpu_ratio}× that (${load.vs_floor.server_and_postgres_cpu_ratio ?? '?'}× counting PostgreSQL), ${load.vs_floor.searches_per_busy_core} searches/s per busy core against the floor's ${load.floor.searches_per_core_s}.`,
    );
  }
  if (s && load) {
    notes.push(
      `With ${load.connections} connections in a closed loop, latency ≈ connections / throughput (Little's law): ${load.connections} / ${s.rps.toFixed(1)} per s = ${Math.round((load.connections / s.rps) * 1000)} ms, ` +
        `against a measured p50 of ${s.p50_ms} ms: latency under load is time queueing for a CPU; one client's p50 (${one?.p50_ms ?? '?'} ms) is the work of one search.`,
    );
  }
  return `${md(['target', 'limit', 'measured', 'verdict'], rows)}\n\n${notes.join('\n\n')}`;
}

function renderLoad(j: Record<string, unknown>): string {
  const l = j as unknown as LoadJson;
  const phase = (label: string, rows: Record<string, Endpoint>, name: string) => {
    const cpu = l.server_cpu?.[name];
    const rss = l.rss_peak_mb?.[name];
    const cpuText = cpu
      ? `; CPU per request: server ${cpu.server_ms_per_request} ms (${cpu.server_cores} cores busy), PostgreSQL ${cpu.postgres_ms_per_request ?? '?'} ms, load generator ${cpu.client_ms_per_request} ms`
      : '';
    const rssText = rss?.per_process ? `; RSS peak ${rss.per_process} MB in one server process, ${rss.total} MB in all` : '';
    return `**${label}** (load average ${l.loadavg[name]?.join(' → ') ?? '?'}${cpuText}${rssText})\n\n${md(ENDPOINT_HEADER, endpointRows(rows))}`;
  };
  return [
    `Catalog: ${l.catalog}; ${l.connections} connections, ${l.duration_s} s per phase; server \`src/main.ts\` in its own process${(l.api_processes ?? 1) > 1 ? `, ${l.api_processes} API processes (node:cluster)` : ''} on PostgreSQL.`,
    ...(l.floor
      ? [
          `**The floor**: each piece of a search's native work alone, one call at a time, in the bench process (\`tools/bench/floor.ts\`): CPU of every thread per call.\n\n${md(
            ['piece', 'CPU ms per call', 'p50 ms', 'calls'],
            [
              ['query embedding (use-lite, onnxruntime-node)', String(l.floor.embed.cpu_ms), String(l.floor.embed.p50_ms), String(l.floor.embed.calls)],
              ['vector lookup (LanceDB, ids and distances)', String(l.floor.vector.cpu_ms), String(l.floor.vector.p50_ms), String(l.floor.vector.calls)],
              ['full-text lookup (LanceDB, ids and scores)', String(l.floor.text.cpu_ms), String(l.floor.text.p50_ms), String(l.floor.text.calls)],
              ['sum: the least CPU a search takes', String(l.floor.cpu_ms_per_search), '', ''],
            ],
          )}\n\nAt most ${l.floor.searches_per_core_s} searches/s per core if a search were nothing else.`,
        ]
      : []),
    phase('GET /healthz alone (bare Fastify route)', { healthz: l.healthz }, 'healthz'),
    phase('POST /v1/search alone', { search: l.search_only }, 'search'),
    phase('Mixed: 70 % search, 20 % click, 10 % feedback', l.mixed, 'mixed'),
    ...(l.single_client ? [phase('POST /v1/search, one client', { search: l.single_client }, 'single')] : []),
    `Search throughput / bare route throughput: **${l.search_to_healthz_ratio}**.` +
      (l.vs_floor && l.floor
        ? ` Server CPU per search / the floor's: **${l.vs_floor.server_cpu_ratio}** (${l.vs_floor.server_and_postgres_cpu_ratio ?? '?'} with PostgreSQL's share).`
        : '') +
      ` Connection errors: ${l.transport_errors}. Clicks that had to reuse an impression (duplicates, 200): ${l.duplicate_clicks}.`,
    ...(l.search_profile
      ? [
          `**Where the server's JavaScript threads spend the searches-alone phase** (V8 sampling profiler, \`--profile\`; self time, every API process and its worker threads; the profiler samples wall time, so a thread waiting in a system call counts as busy in it):\n\n${md(
            ['category', 'ms', 'share of busy', 'ms per search'],
            l.search_profile.map((p) => [p.category, String(p.ms), p.share === null ? '' : `${p.share} %`, (p.ms / l.search_only.requests).toFixed(2)]),
          )}`,
        ]
      : []),
  ].join('\n\n');
}

function renderSoak(j: Record<string, unknown>): string {
  const s = j as {
    minutes: number;
    rate_rps: number;
    capacity_rps: number;
    rss_start_mb: number;
    rss_end_mb: number;
    rss_early_trough_mb?: number;
    rss_late_trough_mb?: number;
    rss_max_process_mb?: number;
    rss_growth_pct: number | null;
    backlog_early_peak: number;
    backlog_late_peak: number;
    backlog_left: number;
    drained_ms: number;
    errors: number;
    webhooks_received: number;
    endpoints: Record<string, Endpoint>;
    samples: Array<{ t_s: number; rss_mb: number; rss_max_process_mb?: number; backlog: number; errors: number; load1: number }>;
    verdict: Record<string, boolean>;
  };
  const samples = s.samples.filter((_, i) => i % Math.max(1, Math.ceil(s.samples.length / 12)) === 0 || i === s.samples.length - 1);
  return [
    `${s.minutes} min of the mixed workload at ${s.rate_rps} req/s (80 % of the ${s.capacity_rps} req/s measured just before), a webhook subscription on every event type delivered by the in-process worker to a receiver on 127.0.0.1.`,
    md(
      ['measure', 'value', 'requirement', 'verdict'],
      [
        [
          'server RSS (all processes), lowest of the first third → lowest of the last third',
          `${s.rss_early_trough_mb ?? '?'} MB → ${s.rss_late_trough_mb ?? '?'} MB (${s.rss_growth_pct ?? '?'} %); start ${s.rss_start_mb} MB, end ${s.rss_end_mb} MB`,
          '< 10 % growth',
          s.verdict.rss_growth_under_10pct ? 'met' : 'missed',
        ],
        ['largest single process RSS seen', s.rss_max_process_mb === undefined ? '?' : `${s.rss_max_process_mb} MB`, '', ''],
        [
          'webhook backlog (pending + delivering)',
          `early peak ${s.backlog_early_peak}, late peak ${s.backlog_late_peak}, ${s.backlog_left} left, drained in ${s.drained_ms} ms`,
          'no growth',
          s.verdict.backlog_not_growing ? 'met' : 'missed',
        ],
        ['errors (non-2xx, connection errors, timeouts)', String(s.errors), '0', s.verdict.zero_errors ? 'met' : 'missed'],
        ['webhook deliveries received', String(s.webhooks_received), '', ''],
      ],
    ),
    md(ENDPOINT_HEADER, endpointRows(s.endpoints)),
    `Samples:\n\n${md(
      ['t (s)', 'RSS MB (all)', 'largest process MB', 'backlog', 'errors', 'load avg'],
      samples.map((x) => [String(x.t_s), String(x.rss_mb), String(x.rss_max_process_mb ?? ''), String(x.backlog), String(x.errors), String(x.load1)]),
    )}`,
  ].join('\n\n');
}

function renderEval(j: Record<string, unknown>): string {
  const e = j as { set: string; queries: number; systems: Record<string, { ndcg: number; mrr: number; recall: number; p50_ms: number | null }> };
  const f = (x: number) => x.toFixed(4);
  return `${e.set} dev, ${e.queries} queries:\n\n${md(
    ['system', 'NDCG@10', 'MRR@10', 'Recall@10', 'p50 ms'],
    Object.entries(e.systems).map(([name, m]) => [name, f(m.ndcg), f(m.mrr), f(m.recall), m.p50_ms === null ? '-' : m.p50_ms.toFixed(1)]),
  )}`;
}

function renderMemory(j: Record<string, unknown>): string {
  const m = j as { catalog: string; steps: Array<{ step: string; rss_mb: number; heap_used_mb: number; external_mb: number; array_buffers_mb: number }> };
  return `Where one API process's memory goes: its parts opened in order in one process (catalog: ${m.catalog}), measured after a full GC.\n\n${md(
    ['step', 'RSS MB', 'Δ RSS MB', 'JS heap used MB', 'external MB', 'array buffers MB'],
    m.steps.map((s, i) => [
      s.step,
      String(s.rss_mb),
      i === 0 ? '' : (Math.round((s.rss_mb - m.steps[i - 1]!.rss_mb) * 10) / 10).toString(),
      String(s.heap_used_mb),
      String(s.external_mb),
      String(s.array_buffers_mb),
    ]),
  )}`;
}

function renderObjectStore(j: Record<string, unknown>): string {
  const o = j as {
    products: string;
    store_latency_ms: number;
    searches_per_catalog: number;
    catalogs: Record<string, { p50_ms: number; p99_ms: number }>;
    p50_ratio: number;
    store_requests_per_search: number;
  };
  return `The catalog on object storage (${o.products}): imported by \`npm run ingest\` into a local folder and into \`az://\` in Azurite behind a proxy that holds each store request ${o.store_latency_ms} ms, each served by its own \`npm start\`; one client alternates between them, ${o.searches_per_catalog} searches each.\n\n${md(
    ['catalog', 'p50 ms', 'p99 ms'],
    Object.entries(o.catalogs).map(([name, c]) => [name, String(c.p50_ms), String(c.p99_ms)]),
  )}\n\np50 az:// / local: **${o.p50_ratio}×**; store requests per search: ${o.store_requests_per_search}.`;
}

/** Benches whose BENCH_JSON has a section of its own; the others' output is shown as printed. */
const RENDERERS = new Map<unknown, (j: Record<string, unknown>) => string>([
  ['load', renderLoad],
  ['object-store', renderObjectStore],
  ['soak', renderSoak],
  ['eval', renderEval],
  ['memory', renderMemory],
]);

function renderRun(r: BenchRun): string {
  const parts = [`## ${r.name}`, `\`${r.command}\` — ${r.status}`];
  for (const j of r.json) {
    const render = RENDERERS.get(j.bench);
    if (render) parts.push(render(j));
  }
  const text = r.stdout
    .split('\n')
    .filter((l) => !l.startsWith('BENCH_JSON '))
    .join('\n');
  if (text.trim() && !r.json.some((j) => RENDERERS.has(j.bench))) parts.push(code(text));
  if (r.json.length) parts.push(`<details><summary>BENCH_JSON</summary>\n\n${code(r.json.map((j) => JSON.stringify(j)).join('\n'))}\n\n</details>`);
  return parts.join('\n\n');
}

export function renderReport(input: ReportInput): string {
  const m = input.machine;
  return `# Aisle benchmarks

Generated by \`${input.command}\` at ${input.generatedAt} (commit ${input.git}). Every figure below comes from
that run (or, where a section says so, from the saved output of an earlier run of the same command); run
the same command to regenerate this file. The machine is shared: read the load averages beside the figures.

## Machine

${md(['cpus', 'model', 'memory', 'node', 'os', 'load average (1, 5, 15 min) start → end'], [[String(m.cpus), m.cpuModel, `${m.memoryGb} GiB`, m.node, m.os, `${m.loadStart.join(', ')} → ${m.loadEnd.join(', ')}`]])}
${input.runs.some((r) => r.status.startsWith('figures from an earlier run')) ? '\nThis is the machine the report was generated on. A section whose figures come from a saved output ran where and when that output was made, which may have been another machine.\n' : ''}
## Targets

${targets(input.runs).replace('{cpus}', String(m.cpus))}

${input.runs.map(renderRun).join('\n\n')}

## Not run in this generation

${input.notRun.length ? input.notRun.map((n) => `- ${n.name}: \`${n.command}\``).join('\n') : 'None.'}

Pick benches with \`npm run bench:report -- --benches ${input.known.join(',')}\`.
`;
}
