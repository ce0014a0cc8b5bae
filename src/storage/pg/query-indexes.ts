import { KEYED_FUNCTIONS_DDL } from './query/keyed-functions.js';

/**
 * Indexes (and functions) the PostgreSQL query engine needs beyond the event table's own. schema.ts
 * runs each statement in the start migration, under the migration lock, so every statement must be
 * idempotent (IF NOT EXISTS, OR REPLACE). Owned by src/storage/pg/query.
 *
 * Text is compared and ordered under the "C" collation whatever the database's locale (see
 * query/columns.ts), so text columns are indexed under it too, or no query could use the index.
 */
const C = 'COLLATE "C"';

/** Sort field columns: one b-tree each, in the total order (column, ts, id) that a page walks. */
const SORT_INDEXES: [name: string, lead: string][] = [
    ['status', 'status_code'],
    ['method', `method ${C}`],
    ['size', 'size'],
    // Nullable: NULL first ascending, last descending, as SQLite orders (a backward scan gives the latter).
    ['ip', 'ip_bin NULLS FIRST'],
    ['processing', 'processing_time'],
    ['webhook', `webhook_id ${C}`],
    ['agent', `user_agent ${C}`],
    ['url', `request_url ${C}`],
    ['ctype', `content_type ${C}`],
    ['request', `request_id ${C}`],
    ['valid', 'signature_valid NULLS FIRST'],
    ['provider', `signature_provider ${C} NULLS FIRST`],
    ['sigerror', `signature_error ${C} NULLS FIRST`],
];

/** Columns searched by substring (ILIKE): a pg_trgm GIN index each finds the candidates. */
const TRIGRAM_INDEXES: [table: string, column: string][] = [
    ['events', 'request_url'],
    ['events', 'content_type'],
    ['events', 'user_agent'],
    ['events', 'headers'],
    ['events', 'query'],
    ['events', 'response_headers'],
    ['events', 'response_body'],
    ['bodies', 'text'],
];

export const QUERY_INDEX_DDL: string[] = [
    'CREATE EXTENSION IF NOT EXISTS pg_trgm',
    `CREATE INDEX IF NOT EXISTS events_q_ts ON events (ts, id ${C})`,
    `CREATE INDEX IF NOT EXISTS events_q_id ON events (id ${C})`,
    ...SORT_INDEXES.map(([name, lead]) => `CREATE INDEX IF NOT EXISTS events_q_${name} ON events (${lead}, ts, id ${C})`),
    // Keyed body filters (query/keyed.ts): the keys written at ingest, and the rows that have none.
    'CREATE INDEX IF NOT EXISTS events_q_body_keys ON events USING gin (body_keys)',
    'CREATE INDEX IF NOT EXISTS events_q_body_unkeyed ON events (seq) WHERE body_keys IS NULL',
    ...TRIGRAM_INDEXES.map(([table, column]) => `CREATE INDEX IF NOT EXISTS ${table}_q_trgm_${column} ON ${table} USING gin (${column} ${C} gin_trgm_ops)`),
    ...KEYED_FUNCTIONS_DDL,
];
