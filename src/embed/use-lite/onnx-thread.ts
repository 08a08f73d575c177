import { Worker } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';

/** What the embedder needs of an onnxruntime session; ort.InferenceSession is one. */
export interface OnnxSession {
  run(feeds: Record<string, ort.Tensor>): Promise<Record<string, { readonly data: unknown; readonly dims: readonly number[] }>>;
  release(): Promise<void>;
}

interface WireTensor {
  type: ort.Tensor.Type;
  data: ort.Tensor.DataType;
  dims: readonly number[];
}

type FromThread =
  | { kind: 'ready' }
  | { kind: 'failed'; message: string }
  | { kind: 'result'; id: number; outputs: Record<string, WireTensor> }
  | { kind: 'error'; id: number; message: string };

interface Pending {
  resolve: (outputs: Record<string, WireTensor>) => void;
  reject: (error: Error) => void;
}

const THREAD_URL = new URL('./onnx-thread-entry.mjs', import.meta.url);

/**
 * An onnxruntime session in a thread of its own (onnx-thread-entry.mjs). onnxruntime-node runs a model
 * synchronously on the calling thread; here the server's thread only posts the input ids and
 * gets the vectors back, and keeps serving requests, reading PGlite and taking full-text
 * results meanwhile. The thread holds the process open only while a run is in flight, so a tool
 * that forgets to close its embedder still exits. A thread that dies (it should not: errors of a
 * run are answered as errors) fails the runs in flight, and the next run starts a new one from
 * the same model bytes.
 */
export class OnnxThread implements OnnxSession {
  private thread: Worker | null = null;
  private starting: Promise<Worker> | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private released = false;
  /** Runs not yet answered: release waits for them, so the session is never released under a run. */
  private readonly inFlight = new Set<Promise<unknown>>();

  private constructor(
    private readonly model: Uint8Array,
    private readonly sessionOptions: ort.InferenceSession.SessionOptions,
  ) {}

  /** Starts the thread and loads the model in it; rejects as ort.InferenceSession.create would for bytes that do not load. */
  static async create(model: Uint8Array, sessionOptions: ort.InferenceSession.SessionOptions = {}): Promise<OnnxThread> {
    const thread = new OnnxThread(model, sessionOptions);
    await thread.start();
    return thread;
  }

  async run(feeds: Record<string, ort.Tensor>): Promise<Record<string, ort.Tensor>> {
    if (this.released) throw new Error('The onnxruntime session is released');
    const thread = this.thread ?? (await this.start());
    const wire: Record<string, WireTensor> = {};
    for (const [name, t] of Object.entries(feeds)) wire[name] = { type: t.type, data: t.data, dims: t.dims };
    const id = this.nextId++;
    const answer = new Promise<Record<string, WireTensor>>((resolve, reject) => {
      if (this.pending.size === 0) thread.ref();
      this.pending.set(id, { resolve, reject });
      thread.postMessage({ kind: 'run', id, feeds: wire });
    });
    this.inFlight.add(answer);
    const outputs = await answer.finally(() => this.inFlight.delete(answer));
    const result: Record<string, ort.Tensor> = {};
    for (const [name, t] of Object.entries(outputs)) result[name] = new ort.Tensor(t.type, t.data as never, t.dims);
    return result;
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await Promise.allSettled([...this.inFlight]);
    const thread = this.thread ?? (await this.starting?.catch(() => null)) ?? null;
    this.thread = null;
    if (thread === null) return;
    const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
    // Held open until it has exited: an unref'd thread would let the process end mid-release.
    thread.ref();
    thread.postMessage({ kind: 'release' });
    await exited;
  }

  private start(): Promise<Worker> {
    this.starting ??= new Promise<Worker>((resolve, reject) => {
      // A copy of the bytes goes to each thread started, so a replacement can load them again.
      const thread = new Worker(THREAD_URL, { workerData: { model: this.model, sessionOptions: this.sessionOptions } });
      let ready = false;
      let failed = false;
      const stopped = (error: Error) => {
        if (!ready) {
          // 'failed' is followed by 'exit': the first one tells why.
          if (failed) return;
          failed = true;
          this.starting = null;
          reject(error);
          return;
        }
        if (this.thread === thread) this.thread = null;
        const calls = [...this.pending.values()];
        this.pending.clear();
        for (const call of calls) call.reject(new Error(`Embedding failed: ${error.message}`));
      };
      thread.on('message', (message: FromThread) => {
        if (message.kind === 'ready') {
          ready = true;
          thread.unref();
          this.thread = thread;
          this.starting = null;
          resolve(thread);
        } else if (message.kind === 'failed') {
          stopped(new Error(message.message));
        } else {
          const call = this.pending.get(message.id);
          if (!call) return;
          this.pending.delete(message.id);
          if (this.pending.size === 0) thread.unref();
          if (message.kind === 'result') call.resolve(message.outputs);
          else call.reject(new Error(message.message));
        }
      });
      thread.on('error', stopped);
      thread.on('exit', (code) => stopped(new Error(`the onnxruntime thread exited (code ${code})`)));
    });
    return this.starting;
  }
}
