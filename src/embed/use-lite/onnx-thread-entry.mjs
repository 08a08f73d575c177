// The onnxruntime session of the default embedder, run in a thread of its own (onnx-thread.ts starts
// it). onnxruntime-node's run() executes synchronously on the thread that calls it, so on the
// server's thread every query embedding (~2 ms) stopped HTTP, PGlite and the full-text search
// from making progress. Plain JavaScript: a thread starts a fresh module loader, and this file
// then loads the same way under node, tsx and vitest without registering a TypeScript loader.
import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';

/** @type {import('onnxruntime-node').InferenceSession} */
let session;
try {
  session = await ort.InferenceSession.create(workerData.model, workerData.sessionOptions);
} catch (error) {
  parentPort.postMessage({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}
parentPort.postMessage({ kind: 'ready' });

parentPort.on('message', async (message) => {
  if (message.kind === 'release') {
    await session.release();
    parentPort.close();
    return;
  }
  const { id, feeds } = message;
  try {
    const tensors = {};
    for (const [name, f] of Object.entries(feeds)) tensors[name] = new ort.Tensor(f.type, f.data, f.dims);
    const result = await session.run(tensors);
    const outputs = {};
    const transfer = [];
    for (const [name, t] of Object.entries(result)) {
      // A copy: the tensor's own buffer may be native memory, which cannot be transferred.
      const data = ArrayBuffer.isView(t.data) ? t.data.slice() : t.data;
      if (ArrayBuffer.isView(data)) transfer.push(data.buffer);
      outputs[name] = { type: t.type, data, dims: t.dims };
    }
    parentPort.postMessage({ kind: 'result', id, outputs }, transfer);
  } catch (error) {
    parentPort.postMessage({ kind: 'error', id, message: error instanceof Error ? error.message : String(error) });
  }
});
