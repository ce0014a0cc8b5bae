export { runPgQuery, PG_QUERY_TIMEOUT_MS } from './run.js';
