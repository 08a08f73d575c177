import { type ParseArgsConfig, parseArgs } from 'node:util';
import { editDistance } from '../core/ranking/lexical.js';
import { describeFailure, EXIT, UsageError, verboseTrace } from './errors.js';

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;
type Values<O extends OptionsConfig> = ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>>['values'];
type StringFlag<O extends OptionsConfig> = { [K in keyof O & string]: O[K]['type'] extends 'string' ? K : never }[keyof O & string];

/** Flags every tool takes. */
const COMMON_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  verbose: { type: 'boolean' },
} as const satisfies OptionsConfig;

export interface CommandSpec<O extends OptionsConfig> {
  /** The tool's name at the start of each message: "ingest", "bench:search". */
  name: string;
  /** Printed by --help (stdout, exit 0) and after a usage mistake (stderr, exit 64). */
  usage: string;
  /** node:util parseArgs options; --help/-h and --verbose are added. */
  options: O;
  allowPositionals?: boolean;
  /** Defaults to process.argv after the script. */
  argv?: readonly string[];
}

interface NumberFlag {
  default?: number;
  integer?: boolean;
  /** Greater than 0. */
  positive?: boolean;
  min?: number;
  max?: number;
}

export interface Command<O extends OptionsConfig> {
  readonly values: Values<O>;
  readonly positionals: string[];
  readonly verbose: boolean;
  /**
   * A numeric flag's value, its default when absent. A value that is not a number within the
   * bounds is a usage mistake: reported, and the process exits 64 at once (so call it before
   * opening anything).
   */
  number(flag: StringFlag<O>, spec: NumberFlag & { default: number }): number;
  number(flag: StringFlag<O>, spec?: NumberFlag): number | undefined;
  /**
   * Runs the tool and exits: with main's code (0 when it returns nothing), or with the code the
   * error it throws maps to (describeFailure), after writing that error to stderr.
   */
  run(main: () => Promise<unknown>): Promise<never>;
  /**
   * Runs a check of the arguments outside run() (at the top of a module, say): what it throws
   * (a UsageError) is reported and the process exits now.
   */
  check<T>(validate: () => T): T;
  /** Reports `err` as run() would and exits now. */
  exit(err: unknown): never;
}

/** Rewords node:util parseArgs's errors (its own explain the `--` convention at length). */
function usageErrorOf(err: NodeJS.ErrnoException, optionNames: readonly string[]): UsageError {
  const quoted = /'([^']+)'/.exec(err.message)?.[1] ?? '';
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const given = quoted.replace(/^-+/, '');
    const near = optionNames.filter((o) => editDistance(given, o, 2) <= 2 || (given.length >= 3 && o.startsWith(given)));
    return new UsageError(`unknown option ${quoted}${near.length > 0 ? ` (did you mean ${near.map((o) => `--${o}`).join(' or ')}?)` : ''}`);
  }
  if (err.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return new UsageError(`unexpected argument ${quoted}`);
  return new UsageError(err.message.split(/\.\s/)[0]!.replace(/\.$/, ''));
}

function describeBounds(spec: NumberFlag): string {
  const kind = spec.integer ? 'integer' : 'number';
  const a = spec.integer ? 'an' : 'a';
  if (spec.min !== undefined && spec.max !== undefined) return `${a} ${kind} from ${spec.min} to ${spec.max}`;
  if (spec.positive) return `a positive ${kind}`;
  if (spec.min !== undefined) return `${a} ${kind} of at least ${spec.min}`;
  if (spec.max !== undefined) return `${a} ${kind} of at most ${spec.max}`;
  return `${a} ${kind}`;
}

const flushed = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => stream.write('', () => resolve()));

/**
 * The command line of an operator tool (tools/): parses the flags (strict: an unknown flag, a
 * missing value or an unexpected argument is a usage mistake), answers --help, and maps what
 * the tool throws to one message and a sysexits exit code (errors.ts; docs/development.md).
 * --verbose adds the stack trace. A leading `--` (as `npx tsx tool.ts -- --flag` passes it) is
 * dropped.
 */
export function command<const O extends OptionsConfig>(spec: CommandSpec<O>): Command<O> {
  const argv = [...(spec.argv ?? process.argv.slice(2))];
  if (argv[0] === '--') argv.shift();
  let verbose = argv.includes('--verbose');

  const report = (err: unknown): number => {
    const failure = describeFailure(err);
    if (verbose && !failure.showUsage) process.stderr.write(`${verboseTrace(err)}\n`);
    const advice = failure.unexpected && !verbose ? '; rerun with --verbose for the stack trace' : '';
    process.stderr.write(`${spec.name}: ${failure.message}${advice}\n${failure.showUsage ? `\n${spec.usage}\n` : ''}`);
    return failure.exitCode;
  };
  const exit = (err: unknown): never => process.exit(report(err));

  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: { ...spec.options, ...COMMON_OPTIONS }, allowPositionals: spec.allowPositionals ?? false, strict: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    exit(code?.startsWith('ERR_PARSE_ARGS_') ? usageErrorOf(err as NodeJS.ErrnoException, Object.keys(spec.options)) : err);
  }
  verbose = parsed!.values.verbose === true;
  if (parsed!.values.help === true) {
    process.stdout.write(`${spec.usage}\n`);
    process.exit(EXIT.ok);
  }
  const values = parsed!.values as Values<O>;

  return {
    values,
    positionals: parsed!.positionals,
    verbose,
    number(flag: StringFlag<O>, bounds: NumberFlag = {}): number {
      const raw = (values as Record<string, unknown>)[flag];
      if (raw === undefined) return bounds.default as number;
      const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
      const fits =
        Number.isFinite(value) &&
        (!bounds.integer || Number.isInteger(value)) &&
        (!bounds.positive || value > 0) &&
        (bounds.min === undefined || value >= bounds.min) &&
        (bounds.max === undefined || value <= bounds.max);
      if (!fits) exit(new UsageError(`--${flag} must be ${describeBounds(bounds)}, not ${JSON.stringify(raw)}`));
      return value;
    },
    async run(main) {
      let code: number;
      try {
        const returned = await main();
        code = typeof returned === 'number' ? returned : EXIT.ok;
      } catch (err) {
        code = report(err);
      }
      // process.exit does not wait for a pipe to drain where writes are asynchronous (macOS).
      await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
      process.exit(code);
    },
    check(validate) {
      try {
        return validate();
      } catch (err) {
        return exit(err);
      }
    },
    exit,
  };
}
