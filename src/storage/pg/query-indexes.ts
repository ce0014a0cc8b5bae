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

/**
 * Columns every sort index carries beyond its keys (INCLUDE), so that a page filtered on them walks
 * the index alone, each row tested in the index entry (an index-only scan), not in the table: the
 * address (16 bytes) and the body keys' signature (8 bytes, body-keys.ts keySignature). A /16 sorted
 * by URL tested 100,124 rows: 139 ms through the table, 9.3 ms in the index (bench/README.md). The
 * columns themselves (JSON texts, body keys) have no bound, and an index entry must stay under
 * ~2.7 KB. query/plan.ts (walkInIndex) says which filters this serves.
 */
const INCLUDED = 'INCLUDE (ip_bin, body_sig)';
/**
 * The URL's index also carries whether the query JSON is its URL's query string parsed
 * (query-in-url.ts), so a query substring sorted by URL is tested on the URL in the index entry.
 */
const URL_INCLUDED = 'INCLUDE (ip_bin, body_sig, query_plain)';

/**
 * Sort field columns but the address (events_q_ip, below): one b-tree each, in the total order
 * (column, ts, id) that a page walks.
 */
const SORT_INDEXES: [name: string, lead: string][] = [
    ['status', 'status_code'],
    ['method', `method ${C}`],
    ['size', 'size'],
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
    ['events', 'form_fields'],
    ['bodies', 'text'],
];

/**
 * Rows every b-tree here can index: PostgreSQL refuses an index entry over 2,704 bytes (a third of
 * a page), and a stranger sets the URL, user agent and content type (up to the 64 KB of a request's
 * head, MAX_HEADER_BYTES in http/client-error.ts), an import sets the id. An entry holds one such
 * text and the id (WALKED, below), with at most ~60 bytes beside: 2,048 + 256 leaves room. A row
 * past it stays in the inbox (inbox.ts), which every read also covers, unindexed; storing it in
 * events would fail the move, and with it every row behind it.
 */
export const KEY_BYTES_MAX = 2048;
export const ID_BYTES_MAX = 256;
const TEXT_KEYS = ['webhook_id', 'method', 'user_agent', 'request_url', 'content_type', 'request_id', 'signature_provider', 'signature_error'];
/** A condition over an inbox row (unqualified columns): true when its texts fit the indexes' entries. */
export const INDEXABLE = [`octet_length(id) <= ${ID_BYTES_MAX}`, ...TEXT_KEYS.map((column) => `coalesce(octet_length(${column}), 0) <= ${KEY_BYTES_MAX}`)].join(' AND ');

/** The indexes a page walks in sort order, but the address's own: name → key columns, included columns. */
const WALKED: [name: string, keys: string, included: string][] = [
    ['events_q_ts', `ts, id ${C}`, INCLUDED],
    ['events_q_id', `id ${C}`, INCLUDED],
    ...SORT_INDEXES.map(([name, lead]): [string, string, string] => [`events_q_${name}`, `${lead}, ts, id ${C}`, name === 'url' ? URL_INCLUDED : INCLUDED]),
];

/** Drops `name` when it was built without `included` (an earlier build's), so that it is built again with it. */
const rebuiltWithIncluded = (name: string, included: string): string =>
    `DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('${name}') AND pg_get_indexdef(indexrelid) NOT LIKE '%${included}') THEN DROP INDEX ${name}; END IF; END $$`;

export const QUERY_INDEX_DDL: string[] = [
    'CREATE EXTENSION IF NOT EXISTS pg_trgm',
    ...WALKED.flatMap(([name, keys, included]) => [rebuiltWithIncluded(name, included), `CREATE INDEX IF NOT EXISTS ${name} ON events (${keys}) ${included}`]),
    // The address's own (its key): nullable, NULL first ascending and last descending, as SQLite
    // orders (a backward scan gives the latter).
    `CREATE INDEX IF NOT EXISTS events_q_ip ON events (ip_bin NULLS FIRST, ts, id ${C})`,
    // An index-only scan reads the table for rows on pages not yet marked all-visible, which only a
    // vacuum marks: by default after inserts of a fifth of the table (200,000 rows at a million),
    // here after a fiftieth.
    'ALTER TABLE events SET (autovacuum_vacuum_insert_scale_factor = 0.02)',
    // Keyed body filters (query/keyed.ts): the keys written at ingest, and the rows that have none.
    'CREATE INDEX IF NOT EXISTS events_q_body_keys ON events USING gin (body_keys)',
    'CREATE INDEX IF NOT EXISTS events_q_body_unkeyed ON events (seq) WHERE body_keys IS NULL',
    // answeredBy=<name> (a rule's captures), in time order; only rows a rule answered.
    `CREATE INDEX IF NOT EXISTS events_q_answered ON events (answered_by ${C}, ts, id ${C}) WHERE answered_by IS NOT NULL`,
    ...TRIGRAM_INDEXES.map(([table, column]) => `CREATE INDEX IF NOT EXISTS ${table}_q_trgm_${column} ON ${table} USING gin (${column} ${C} gin_trgm_ops)`),
    ...KEYED_FUNCTIONS_DDL,
];
