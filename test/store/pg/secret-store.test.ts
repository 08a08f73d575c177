import { describe, expect, it } from 'vitest';
import { createPgStores } from '../../../src/store/pg/index.js';
import { createTestDb } from '../../helpers/db.js';

describe('PgSecretStore.getOrCreate', () => {
  it('generates a secret once and hands every later caller (and every concurrent one) the same', async () => {
    const { db, cleanup } = await createTestDb();
    try {
      const stores = createPgStores(db);
      let n = 0;
      const generate = () => `secret-${++n}`;
      const first = await Promise.all(Array.from({ length: 5 }, () => stores.secrets.getOrCreate('click_link', generate, new Date())));
      expect(new Set(first)).toEqual(new Set([first[0]]));
      expect(await createPgStores(db).secrets.getOrCreate('click_link', generate, new Date())).toBe(first[0]);
      expect(await stores.secrets.getOrCreate('other', generate, new Date())).not.toBe(first[0]);
    } finally {
      await cleanup();
    }
  });
});
