/**
 * The global-learning fit on a thread of its own (fit-thread.ts bundles this file): the log arrives
 * packed in typed arrays and columns of strings, the fit's result goes back as a message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { fitFromLog } from '../core/learning/global-fit.js';
import { type FitRequest, unpackLog } from './fit-thread-log.js';

const request = workerData as FitRequest;
// A failure is an unhandled rejection, which ends the thread with an 'error' the caller rejects on.
void fitFromLog(unpackLog(request.log), request.serving, request.source, request.options, request.incumbent).then((result) => parentPort!.postMessage(result));
