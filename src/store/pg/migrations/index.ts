import * as m001 from './001-accounts-keys.js';
import * as m002 from './002-search.js';
import * as m003 from './003-clicks.js';
import * as m004 from './004-webhooks.js';
import * as m005 from './005-analytics.js';
import * as m006 from './006-analytics-rollups.js';
import * as m007 from './007-display-receipts.js';
import * as m008 from './008-console-sessions.js';
import * as m009 from './009-learning.js';
import * as m010 from './010-ranking-models.js';
import * as m011 from './011-rate-limit-batch.js';
import * as m012 from './012-retention.js';
import * as m013 from './013-oauth.js';
import * as m014 from './014-attribution.js';
import * as m015 from './015-feeds.js';
import * as m016 from './016-test-mode.js';
import * as m017 from './017-catalog-sources.js';
import * as m018 from './018-publisher-policy.js';
import * as m019 from './019-impression-categories.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Append only: an applied migration is never edited, a change is a new migration. */
export const migrations: readonly Migration[] = [
  { version: 1, name: 'accounts-keys', sql: m001.sql },
  { version: 2, name: 'search', sql: m002.sql },
  { version: 3, name: 'clicks', sql: m003.sql },
  { version: 4, name: 'webhooks', sql: m004.sql },
  { version: 5, name: 'analytics', sql: m005.sql },
  { version: 6, name: 'analytics-rollups', sql: m006.sql },
  { version: 7, name: 'display-receipts', sql: m007.sql },
  { version: 8, name: 'console-sessions', sql: m008.sql },
  { version: 9, name: 'learning', sql: m009.sql },
  { version: 10, name: 'ranking-models', sql: m010.sql },
  { version: 11, name: 'rate-limit-batch', sql: m011.sql },
  { version: 12, name: 'retention', sql: m012.sql },
  { version: 13, name: 'oauth', sql: m013.sql },
  { version: 14, name: 'attribution', sql: m014.sql },
  { version: 15, name: 'feeds', sql: m015.sql },
  { version: 16, name: 'test-mode', sql: m016.sql },
  { version: 17, name: 'catalog-sources', sql: m017.sql },
  { version: 18, name: 'publisher-policy', sql: m018.sql },
  { version: 19, name: 'impression-categories', sql: m019.sql },
];

export const latestVersion = (): number => migrations.at(-1)?.version ?? 0;
