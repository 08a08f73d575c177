import type { SecretStore } from '../../core/shared-ports.js';
import type { Db } from './db.js';

export class PgSecretStore implements SecretStore {
  constructor(private readonly db: Db) {}

  async getOrCreate(name: string, generate: () => string, now: Date): Promise<string> {
    // Processes starting together all try to insert; the first wins and everyone reads its value.
    await this.db.query(`INSERT INTO server_secrets (name, secret, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`, [name, generate(), now]);
    const rows = await this.db.query<{ secret: string }>(`SELECT secret FROM server_secrets WHERE name = $1`, [name]);
    if (!rows[0]) throw new Error(`server secret ${name} vanished`);
    return rows[0].secret;
  }
}
