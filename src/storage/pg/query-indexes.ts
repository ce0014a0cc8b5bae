/**
 * Indexes the PostgreSQL query engine needs beyond the event table's b-trees (pg_trgm GIN indexes
 * for substring filters, ...). schema.ts runs each statement in the start migration, under the
 * migration lock, so every statement must be idempotent (IF NOT EXISTS). Owned by src/storage/pg/query.
 */
export const QUERY_INDEX_DDL: string[] = [];
