import type { Database, Statement } from 'better-sqlite3';

const MAX_CACHED_STATEMENTS = 200;
const statements = new WeakMap<Database, Map<string, Statement>>();

/** Prepares `sql` once per connection; the cache is bounded (least recently used goes first). */
export function prepared(db: Database, sql: string): Statement {
    let cache = statements.get(db);
    if (!cache) statements.set(db, (cache = new Map()));
    let stmt = cache.get(sql);
    if (stmt) cache.delete(sql);
    else stmt = db.prepare(sql);
    cache.set(sql, stmt);
    if (cache.size > MAX_CACHED_STATEMENTS) cache.delete(cache.keys().next().value!);
    return stmt;
}
