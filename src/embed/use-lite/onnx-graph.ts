import onnxProto from 'onnx-proto';
import type { TfjsTensor } from './weights.js';

/**
 * Re-expresses USE-lite's TF.js graph (317 nodes, sparse gathers and scatters) as a dense ONNX graph
 * of 92 nodes that onnxruntime runs in ~1 ms a query. The maths, from design/EMBEDDINGS.md:
 *
 *   x0 = (2·E[ids] + timing)·mask; layer 0 = Attn(LN x0) + (x0·Wadj + badj)·mask, then + FFN·mask;
 *   layer 1 = y + Attn(LN y), then + FFN·mask; mean over real tokens → tanh dense → L2-normalise.
 *
 * The TF.js graph only computes residual/FFN rows for real tokens and scatters them back, so
 * multiplying by the mask reproduces it; attention rows at padding are garbage but never read,
 * because keys at padding get a -1e9 bias and pooling ignores them.
 */

const { onnx } = onnxProto;
type NodeProto = onnxProto.onnx.INodeProto;
type TensorProto = onnxProto.onnx.ITensorProto;
type AttributeProto = onnxProto.onnx.IAttributeProto;

/** The ONNX operator set the graph targets (LayerNormalization needs 17 or later). */
export const USE_LITE_OPSET = 17;
/** ONNX IR 8 is what opset 17 was released with (ONNX 1.12). */
const IR_VERSION = 8;
const FLOAT = onnx.TensorProto.DataType.FLOAT;
const INT64 = onnx.TensorProto.DataType.INT64;
const UINT8 = onnx.TensorProto.DataType.UINT8;
/** onnxruntime's contrib operators (DynamicQuantizeMatMul), in every CPU build. */
const MS_DOMAIN = 'com.microsoft';

/**
 * How the dense layers' weights are stored and multiplied: `float32` as trained, or `int8`
 * (8-bit, one scale per output column, zero point 128) through onnxruntime's
 * DynamicQuantizeMatMul, which quantises each activation row to 8 bits as it runs and multiplies
 * in integers. Attention's own products (queries × keys, weights × values) stay float either way.
 */
export type UseLitePrecision = 'float32' | 'int8';

/** What the weights say about the architecture; read, not assumed, so a changed package fails loudly. */
interface Hyper {
  heads: number;
  maxTokens: number;
  epsilon: number;
  maskBias: number;
  l2Epsilon: number;
}

const intAttr = (name: string, i: number): AttributeProto => ({ name, type: onnx.AttributeProto.AttributeType.INT, i });
const floatAttr = (name: string, f: number): AttributeProto => ({ name, type: onnx.AttributeProto.AttributeType.FLOAT, f });
const intsAttr = (name: string, ints: number[]): AttributeProto => ({ name, type: onnx.AttributeProto.AttributeType.INTS, ints });

/** Accumulates nodes and initializers with generated, readable names; reads weights by name. */
class GraphBuilder {
  readonly nodes: NodeProto[] = [];
  readonly initializers: TensorProto[] = [];
  readonly hyper: Hyper;
  private counter = 0;
  private readonly names = new Set<string>();

  constructor(
    private readonly tensors: ReadonlyMap<string, TfjsTensor>,
    readonly precision: UseLitePrecision = 'float32',
  ) {
    this.hyper = {
      heads: this.scalar('MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/2'),
      maxTokens: this.scalar('ClipToMaxLength/Less/y'),
      epsilon: this.scalar('FFN/layer_prepostprocess/layer_norm/Cast/x'),
      maskBias: this.scalar('attention_bias_ignore_padding/mul/y'),
      l2Epsilon: this.scalar('l2_normalize/Maximum/y'),
    };
  }

  op(opType: string, inputs: string[], attribute: AttributeProto[] = [], outputCount = 1): string[] {
    const name = `${opType}_${++this.counter}`;
    const output = outputCount === 1 ? [name] : Array.from({ length: outputCount }, (_, i) => `${name}:${i}`);
    this.nodes.push({ name, opType, input: inputs, output, attribute });
    return output;
  }

  /** Single-output shorthand; `output` names the result (graph outputs), otherwise it is generated. */
  one(opType: string, inputs: string[], attribute: AttributeProto[] = [], output?: string): string {
    if (output === undefined) return this.op(opType, inputs, attribute)[0] as string;
    this.nodes.push({ name: output, opType, input: inputs, output: [output], attribute });
    return output;
  }

  float(name: string, dims: readonly number[], data: Float32Array | readonly number[]): string {
    if (this.names.has(name)) return name;
    this.names.add(name);
    const values = data instanceof Float32Array ? data : Float32Array.from(data);
    this.initializers.push({ name, dims: [...dims], dataType: FLOAT, rawData: bytesOf(values) });
    return name;
  }

  int64(name: string, values: readonly number[]): string {
    if (this.names.has(name)) return name;
    this.names.add(name);
    const data = BigInt64Array.from(values.map((v) => BigInt(v)));
    this.initializers.push({ name, dims: [values.length], dataType: INT64, rawData: bytesOf(data) });
    return name;
  }

  /** The one tensor whose name ends with `/suffix`; throws naming the suffix otherwise. */
  tensor(suffix: string): TfjsTensor {
    const hits = [...this.tensors.values()].filter((t) => t.name.endsWith(`/${suffix}`) || t.name === suffix);
    if (hits.length !== 1) throw new Error(`USE-lite weights: expected one tensor named …/${suffix}, found ${hits.length}`);
    return hits[0] as TfjsTensor;
  }

  scalar(suffix: string): number {
    const t = this.tensor(suffix);
    if (t.data.length !== 1) throw new Error(`USE-lite weights: ${suffix} should be a scalar`);
    return t.data[0] as number;
  }

  /** A float weight as an initializer; TF's 1×1 conv kernels [1,1,in,out] become plain [in,out] matrices. */
  weight(name: string, suffix: string): string {
    const t = this.tensor(suffix);
    const dims = t.shape.length === 4 && t.shape[0] === 1 && t.shape[1] === 1 ? t.shape.slice(2) : t.shape;
    if (!(t.data instanceof Float32Array)) throw new Error(`USE-lite weights: ${suffix} is not float32`);
    return this.float(name, dims, t.data);
  }

  /** x·W + b for a TF dense or 1×1-conv pair. */
  dense(x: string, name: string, kernel: string, bias: string): string {
    if (this.precision === 'float32') return this.one('Add', [this.one('MatMul', [x, this.weight(`${name}_w`, kernel)]), this.weight(`${name}_b`, bias)]);
    const t = this.tensor(kernel);
    const dims = t.shape.length === 4 && t.shape[0] === 1 && t.shape[1] === 1 ? t.shape.slice(2) : t.shape;
    if (!(t.data instanceof Float32Array) || dims.length !== 2) throw new Error(`USE-lite weights: ${kernel} is not a float32 matrix`);
    const q = quantizeColumns(t.data, dims[0]!, dims[1]!);
    const weights = this.raw(`${name}_wq`, dims, UINT8, q.codes);
    const scales = this.float(`${name}_wscale`, [dims[1]!], q.scales);
    const zeros = this.raw(`${name}_wzero`, [dims[1]!], UINT8, new Uint8Array(dims[1]!).fill(ZERO_POINT));
    const node = `DynamicQuantizeMatMul_${name}`;
    this.nodes.push({
      name: node,
      opType: 'DynamicQuantizeMatMul',
      domain: MS_DOMAIN,
      input: [x, weights, scales, zeros, this.weight(`${name}_b`, bias)],
      output: [node],
    });
    return node;
  }

  private raw(name: string, dims: readonly number[], dataType: number, data: Uint8Array): string {
    this.names.add(name);
    this.initializers.push({ name, dims: [...dims], dataType, rawData: data });
    return name;
  }
}

/** The code of a zero weight: codes run 1…255, symmetric around it. */
const ZERO_POINT = 128;

/**
 * A [rows × cols] row-major float matrix as 8-bit codes, one scale per column (the largest
 * magnitude in it maps to ±127): w ≈ scale[c] · (code − 128). Unsigned codes: onnxruntime's
 * u8×u8 kernels do not saturate where its u8×s8 ones can on CPUs without VNNI.
 */
function quantizeColumns(w: Float32Array, rows: number, cols: number): { codes: Uint8Array; scales: Float32Array } {
  const scales = new Float32Array(cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) scales[c] = Math.max(scales[c]!, Math.abs(w[r * cols + c]!));
  for (let c = 0; c < cols; c++) scales[c] = scales[c]! > 0 ? scales[c]! / 127 : 1;
  const codes = new Uint8Array(rows * cols);
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) codes[r * cols + c] = ZERO_POINT + Math.max(-127, Math.min(127, Math.round(w[r * cols + c]! / scales[c]!)));
  return { codes, scales };
}

// ONNX raw_data is little-endian, as are typed arrays on every platform onnxruntime-node ships for.
const bytesOf = (a: Float32Array | BigInt64Array): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

// Where TF keeps each layer's variables (`Encode/…`) and its folded constants (`TransformerStack/…`).
const layerVars = (i: number): string => `Encode/Layer_${i}/TransformerLayer`;
const layerConsts = (i: number): string => `TransformerStack/Layer_${i}/TransformerLayer`;
const CONCAT = 'ConcatPartitions/concat';

/** Tensors shared by every block: the float mask in two shapes and the additive attention bias. */
interface Masks {
  /** [batch, seq, 1]: zeroes padding rows. */
  rows: string;
  /** [batch, seq]. */
  flat: string;
  /** [batch, 1, 1, seq]: 0 for real keys, -1e9 for padding. */
  keyBias: string;
}

/** Clips to the model's 128 tokens, then builds x0 = (2·E[ids] + timing)·mask. */
function embedInputs(g: GraphBuilder): { x0: string; masks: Masks } {
  const [zero, one, max] = [g.int64('c_0', [0]), g.int64('c_1', [1]), g.int64('c_max_tokens', [g.hyper.maxTokens])];
  const ids = g.one('Slice', ['input_ids', zero, max, one]);
  const flat = g.one('Cast', [g.one('Slice', ['attention_mask', zero, max, one])], [intAttr('to', FLOAT)]);
  const rows = g.one('Unsqueeze', [flat, g.int64('c_axis_last', [-1])]);
  const notMask = g.one('Sub', [g.float('f_one', [], [1]), flat]);
  const bias = g.one('Mul', [notMask, g.float('f_mask_bias', [], [g.hyper.maskBias])]);
  const keyBias = g.one('Unsqueeze', [bias, g.int64('c_axes_1_2', [1, 2])]);

  const embedded = g.one('Gather', [g.weight('embeddings', 'Embeddings_en'), ids], [intAttr('axis', 0)]);
  const timing = timingSignal(g, ids);
  // Same association as TF (E + (E + timing)) so rounding matches the original.
  const x0 = g.one('Mul', [g.one('Add', [embedded, g.one('Add', [embedded, timing])]), rows]);
  return { x0, masks: { rows, flat, keyBias } };
}

/** timing[p] = concat(sin(p·inv), cos(p·inv)) for p in 0..seq-1, computed in float32 like TF. */
function timingSignal(g: GraphBuilder, ids: string): string {
  const seq = g.one('Cast', [g.one('Shape', [ids], [intAttr('start', 1), intAttr('end', 2)])], [intAttr('to', FLOAT)]);
  const positions = g.one('Range', [g.float('f_zero', [], [0]), g.one('Squeeze', [seq]), g.float('f_step', [], [1])]);
  const column = g.one('Unsqueeze', [positions, g.int64('c_axis_1', [1])]);
  const scaled = g.one('Mul', [column, g.weight('timing_inv', 'AddTimingSignal/TimingSignal/ExpandDims_1')]);
  return g.one('Concat', [g.one('Sin', [scaled]), g.one('Cos', [scaled])], [intAttr('axis', -1)]);
}

/** `prefix` is the scope holding `layer_prepostprocess/layer_norm/…`. */
function layerNorm(g: GraphBuilder, x: string, prefix: string, name: string): string {
  const scale = g.weight(`${name}_scale`, `${prefix}/layer_prepostprocess/layer_norm/layer_norm_scale/${CONCAT}`);
  const bias = g.weight(`${name}_bias`, `${prefix}/layer_prepostprocess/layer_norm/layer_norm_bias/${CONCAT}`);
  return g.one('LayerNormalization', [x, scale, bias], [intAttr('axis', -1), floatAttr('epsilon', g.hyper.epsilon)]);
}

/** Multi-head self-attention of layer `i` on the normalised input `h`, including the output projection. */
function attention(g: GraphBuilder, h: string, i: number, masks: Masks): string {
  const mha = `${layerVars(i)}/MultiheadAttention`;
  const qkv = g.dense(h, `l${i}_qkv`, `${mha}/qkv_transform_single/kernel/part_0`, `${mha}/qkv_transform_single/bias/${CONCAT}`);
  const width = g.tensor(`${mha}/qkv_transform_single/bias/${CONCAT}`).data.length / 3;
  const [q, k, v] = g.op('Split', [qkv, g.int64(`l${i}_split`, [width, width, width])], [intAttr('axis', -1)], 3) as [string, string, string];
  const headShape = g.int64(`l${i}_head_shape`, [0, 0, g.hyper.heads, -1]);
  const heads = (x: string, perm: number[]) => g.one('Transpose', [g.one('Reshape', [x, headShape])], [intsAttr('perm', perm)]);
  const scale = g.float(`l${i}_query_scale`, [], [g.scalar(`${layerConsts(i)}/MultiheadAttention/mul/y`)]);
  const queries = g.one('Mul', [heads(q, [0, 2, 1, 3]), scale]);
  const logits = g.one('Add', [g.one('MatMul', [queries, heads(k, [0, 2, 3, 1])]), masks.keyBias]);
  const weights = g.one('Softmax', [logits], [intAttr('axis', -1)]);
  const context = g.one('Transpose', [g.one('MatMul', [weights, heads(v, [0, 2, 1, 3])])], [intsAttr('perm', [0, 2, 1, 3])]);
  const merged = g.one('Reshape', [context, g.int64(`l${i}_merge_shape`, [0, 0, -1])]);
  return g.dense(merged, `l${i}_out`, `${mha}/output_transform_single/kernel/part_0`, `${mha}/output_transform_single/bias/${CONCAT}`);
}

/** y + FFN(LN2 y)·mask for layer `i`. */
function feedForward(g: GraphBuilder, y: string, i: number, masks: Masks): string {
  const vars = `${layerVars(i)}/FFN`;
  const consts = `${layerConsts(i)}/FFN`;
  const h = layerNorm(g, y, vars, `l${i}_ln2`);
  const inner = g.one('Relu', [g.dense(h, `l${i}_ffn1`, `${consts}/conv1/Tensordot/Reshape_1`, `${vars}/conv1/bias/${CONCAT}`)]);
  const out = g.dense(inner, `l${i}_ffn2`, `${consts}/conv2/Tensordot/Reshape_1`, `${vars}/conv2/bias/${CONCAT}`);
  return g.one('Add', [y, g.one('Mul', [out, masks.rows])]);
}

/** Mean over real tokens, tanh dense layer, L2 normalisation into the graph output `sentence_embedding`. */
function pool(g: GraphBuilder, y: string, masks: Masks): void {
  const axis1 = g.int64('c_pool_axis', [1]);
  const summed = g.one('ReduceSum', [g.one('Mul', [y, masks.rows]), axis1], [intAttr('keepdims', 0)]);
  const counts = g.one('Max', [g.one('ReduceSum', [masks.flat, axis1], [intAttr('keepdims', 1)]), g.float('f_one', [], [1])]);
  const mean = g.one('Div', [summed, counts]);
  const tanh = g.one('Tanh', [g.dense(mean, 'tanh', 'hidden_layers/tanh_layer_0/weights', 'hidden_layers/tanh_layer_0/bias')]);
  const squares = g.one('ReduceSum', [g.one('Mul', [tanh, tanh]), g.int64('c_norm_axis', [-1])], [intAttr('keepdims', 1)]);
  const norm = g.one('Sqrt', [g.one('Max', [squares, g.float('f_l2_epsilon', [], [g.hyper.l2Epsilon])])]);
  g.one('Div', [tanh, norm], [], 'sentence_embedding');
}

/**
 * Builds the ONNX model (opset 17) from USE-lite's TF.js tensors and returns its protobuf bytes.
 * Inputs `input_ids`, `attention_mask`: int64 [batch, seq]; output `sentence_embedding`: float
 * [batch, 512], unit length. Throws when a weight is missing or has an unexpected shape.
 */
export function buildUseLiteOnnx(tensors: ReadonlyMap<string, TfjsTensor>, producerVersion: string, precision: UseLitePrecision = 'float32'): Uint8Array {
  const g = new GraphBuilder(tensors, precision);
  const { x0, masks } = embedInputs(g);

  // Layer 0 widens 256 → 512, so its residual goes through a dense projection (TF: AdjustResidualInput).
  const h0 = layerNorm(g, x0, layerVars(0), 'l0_ln1');
  const adjusted = g.dense(x0, 'l0_adjust', `${layerVars(0)}/dense/kernel/${CONCAT}`, `${layerVars(0)}/dense/bias/${CONCAT}`);
  const y0 = g.one('Add', [attention(g, h0, 0, masks), g.one('Mul', [adjusted, masks.rows])]);
  const z0 = feedForward(g, y0, 0, masks);

  const h1 = layerNorm(g, z0, layerVars(1), 'l1_ln1');
  const y1 = g.one('Add', [z0, attention(g, h1, 1, masks)]);
  const z1 = feedForward(g, y1, 1, masks);

  pool(g, z1, masks);
  return encodeModel(g, g.tensor('hidden_layers/tanh_layer_0/bias').data.length, producerVersion);
}

function encodeModel(g: GraphBuilder, dims: number, producerVersion: string): Uint8Array {
  const tensorType = (elemType: number, dim: Array<{ dimParam: string } | { dimValue: number }>) => ({ tensorType: { elemType, shape: { dim } } });
  const tokens = (name: string) => ({ name, type: tensorType(INT64, [{ dimParam: 'batch' }, { dimParam: 'sequence' }]) });
  const graph = {
    name: 'universal_sentence_encoder_lite',
    node: g.nodes,
    initializer: g.initializers,
    input: [tokens('input_ids'), tokens('attention_mask')],
    output: [{ name: 'sentence_embedding', type: tensorType(FLOAT, [{ dimParam: 'batch' }, { dimValue: dims }]) }],
  };
  const model = onnx.ModelProto.create({
    irVersion: IR_VERSION,
    producerName: 'aisle-use-lite-builder',
    producerVersion,
    opsetImport: [{ domain: '', version: USE_LITE_OPSET }, ...(g.precision === 'int8' ? [{ domain: MS_DOMAIN, version: 1 }] : [])],
    graph,
  });
  return onnx.ModelProto.encode(model).finish();
}
