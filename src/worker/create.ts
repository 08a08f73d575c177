import type { Config } from '../config.js';
import { systemClock } from '../core/clock.js';
import type { Logger } from '../core/shared-ports.js';
import type { Db } from '../store/pg/db.js';
import { PgWebhookStore } from '../store/pg/webhook-store.js';
import { DeliveryWorker, type DeliveryWorkerDeps } from './delivery-worker.js';
import { HttpTransport } from './transport.js';

/** A delivery worker on the configured database, as both `npm start` and `npm run worker` run it. */
export function createDeliveryWorker(
  config: Config,
  db: Db,
  logger: Logger,
  onAttempt?: DeliveryWorkerDeps['onAttempt'],
): { worker: DeliveryWorker; close(): Promise<void> } {
  const transport = new HttpTransport({ allowPrivate: config.webhooks.allowPrivate, timeoutMs: config.webhooks.timeoutMs });
  const worker = new DeliveryWorker({
    queue: new PgWebhookStore(db),
    transport,
    clock: systemClock,
    logger,
    concurrency: config.webhooks.concurrency,
    leaseMs: config.webhooks.leaseMs,
    pollMs: config.webhooks.pollMs,
    ...(onAttempt ? { onAttempt } : {}),
  });
  return {
    worker,
    close: async () => {
      await worker.stop();
      await transport.close();
    },
  };
}
