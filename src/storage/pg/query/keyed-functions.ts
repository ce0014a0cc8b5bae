// SQL functions behind keyed filters (keyed.ts), created by the start migration with the query
// indexes. They reproduce what SQLite's json_each answers for the same text (sqlite/query/keyed.ts):
// - a path step finds the FIRST member of that name (json_each keeps duplicates, in order, as
//   SQLite does; jsonb would keep the last);
// - a numeric step is an array index, an object key, or either (see stepModes in keyed.ts);
// - at the end, an array matches when any element does, an object never, a scalar when it equals;
// - strings compare exactly, true/false/null by their spelling, numbers as SQLite compares a JSON
//   integer (exactly, within 64 bits) or real (as a double) with the bound double, and a nested
//   array or object by its text without insignificant whitespace (SQLite renders it minified);
// - text that is not JSON has no keys (SQLite's json_valid): the cast fails and the row does not match.
// PostgreSQL cannot turn \u0000 or a lone surrogate escape into text, and json_each fails on an
// object holding one anywhere. SQLite reads them (a NUL, an unpaired surrogate), and they can never
// equal a value asked for (PostgreSQL text holds neither). So a document that fails is read again
// with those escapes turned into plain backslash text (whd_json_sanitize), which keeps every other
// string, key and number as it was; what still fails is not JSON (SQLite's json_valid): no match,
// never a failed query.

const MATCH = `CREATE OR REPLACE FUNCTION whd_json_match(v json, s text, n float8, n_int numeric) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $f$
DECLARE
    t text;
    x numeric;
BEGIN
    CASE json_typeof(v)
    WHEN 'string' THEN
        RETURN s IS NOT NULL AND (v #>> '{}') = s;
    WHEN 'number' THEN
        IF n IS NULL THEN RETURN false; END IF;
        t := btrim(v::text, E' \\t\\n\\r');
        x := t::numeric;
        IF t ~ '^-?[0-9]+$' AND x BETWEEN -9223372036854775808 AND 9223372036854775807 THEN
            RETURN n_int IS NOT NULL AND x = n_int;
        END IF;
        -- A real (or an integer past 64 bits): as a double, where overflow is infinity (equal to
        -- no finite value) and underflow zero.
        IF abs(x) >= 1.7976931348623159e308 THEN RETURN false; END IF;
        IF abs(x) <= 2.4703282292062328e-324 THEN RETURN n = 0; END IF;
        RETURN x::float8 = n;
    WHEN 'boolean' THEN
        RETURN s = btrim(v::text, E' \\t\\n\\r');
    WHEN 'null' THEN
        RETURN s = 'null';
    ELSE
        RETURN s = regexp_replace(v::text, '("(?:[^"\\\\]|\\\\.)*")|[ \\t\\n\\r]+', '\\1', 'g');
    END CASE;
END $f$`;

const KEYED = `CREATE OR REPLACE FUNCTION whd_keyed_walk(doc text, steps text[], modes text, s text, n float8, n_int numeric) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $f$
DECLARE
    node json;
    e json;
    kind text;
    t text;
    q text;
    at int;
BEGIN
    IF doc IS NULL THEN RETURN false; END IF;
    node := doc::json;
    FOR i IN 1..coalesce(array_length(steps, 1), 0) LOOP
        kind := json_typeof(node);
        IF kind = 'object' AND substr(modes, i, 1) <> 'i' THEN
            -- The -> operator answers the LAST member of a name; only a name written twice needs
            -- the (slower) walk over the members to find the first.
            t := node::text;
            q := to_json(steps[i])::text;
            at := strpos(t, q);
            IF at > 0 AND strpos(substr(t, at + length(q)), q) > 0 THEN
                node := (SELECT j.value FROM json_each(node) j WHERE j.key = steps[i] LIMIT 1);
            ELSE
                node := node -> steps[i];
            END IF;
        ELSIF kind = 'array' AND substr(modes, i, 1) <> 'k' THEN
            node := node -> steps[i]::int;
        ELSE
            RETURN false;
        END IF;
        IF node IS NULL THEN RETURN false; END IF;
    END LOOP;
    kind := json_typeof(node);
    IF kind = 'string' THEN RETURN (node #>> '{}') = s; END IF;
    IF kind = 'object' THEN RETURN false; END IF;
    IF kind <> 'array' THEN RETURN whd_json_match(node, s, n, n_int); END IF;
    FOR e IN SELECT value FROM json_array_elements(node) LOOP
        IF whd_json_match(e, s, n, n_int) THEN RETURN true; END IF;
    END LOOP;
    RETURN false;
END $f$`;

// Response header names keep the case they were set with: every top-level member whose name,
// lower-cased in ASCII (SQLite's lower()), is the name asked for. SQLite reads each through json_quote of its
// SQL value, where true and false are the integers 1 and 0.
const HEADER = `CREATE OR REPLACE FUNCTION whd_keyed_header_walk(doc text, name text, s text, n float8, n_int numeric) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $f$
DECLARE
    h record;
    e json;
    kind text;
BEGIN
    IF doc IS NULL THEN RETURN false; END IF;
    IF json_typeof(doc::json) <> 'object' THEN RETURN false; END IF;
    FOR h IN SELECT j.key, j.value FROM json_each(doc::json) j LOOP
        CONTINUE WHEN lower(h.key COLLATE "C") <> name;
        kind := json_typeof(h.value);
        IF kind = 'array' THEN
            FOR e IN SELECT value FROM json_array_elements(h.value) LOOP
                IF whd_json_match(e, s, n, n_int) THEN RETURN true; END IF;
            END LOOP;
        ELSIF kind = 'boolean' THEN
            IF whd_json_match(CASE WHEN btrim(h.value::text) = 'true' THEN '1' ELSE '0' END::json, s, n, n_int) THEN RETURN true; END IF;
        ELSIF kind <> 'object' THEN
            IF whd_json_match(h.value, s, n, n_int) THEN RETURN true; END IF;
        END IF;
    END LOOP;
    RETURN false;
END $f$`;

const SANITIZE = `CREATE OR REPLACE FUNCTION whd_json_sanitize(doc text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$
    SELECT regexp_replace(regexp_replace(doc, '(?<![\\\\])((?:\\\\\\\\)*)\\\\u0000', '\\1\\\\\\\\u0000', 'g'),
        '(?<![\\\\])((?:\\\\\\\\)*)(\\\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\\\u[dD][c-fC-F])|(?<!\\\\u[dD][89abAB][0-9a-fA-F]{2})\\\\u[dD][c-fC-F][0-9a-fA-F]{2})',
        '\\1\\\\\\2', 'g')
$f$`;

/** The walk over `doc`, again on the sanitized document when it fails, and false when that fails too. */
// PARALLEL RESTRICTED: a parallel worker cannot start the subtransaction an EXCEPTION block needs.
const retrying = (name: string, args: string, call: string): string => `CREATE OR REPLACE FUNCTION ${name}_safe(doc text, ${args}) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL RESTRICTED AS $f$
BEGIN
    BEGIN
        RETURN ${call.replace('DOC', 'doc')};
    EXCEPTION WHEN others THEN
        NULL;
    END;
    RETURN ${call.replace('DOC', 'whd_json_sanitize(doc)')};
EXCEPTION WHEN others THEN
    RETURN false;
END $f$`;

/**
 * The entry point: a subtransaction (the EXCEPTION block) costs more than the walk itself, so a
 * document known to be JSON (\`valid\`: JSON.stringify wrote it, or ingest's scanner passed the
 * body) and free of the escapes PostgreSQL cannot read is walked directly; any other takes the safe way.
 */
const entry = (name: string, args: string, call: string): string => `CREATE OR REPLACE FUNCTION ${name}(doc text, valid boolean, ${args}) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL RESTRICTED AS $f$
BEGIN
    IF doc IS NULL THEN RETURN false; END IF;
    IF valid AND strpos(doc, '\\u0000') = 0 AND strpos(doc, '\\ud') = 0 AND strpos(doc, '\\uD') = 0 THEN
        RETURN ${call.replace('DOC', 'doc')};
    END IF;
    RETURN ${name}_safe(doc, ${call.replace(/^[a-z_]+\(DOC, /, '').replace(/\)$/, '')});
END $f$`;

const KEYED_ARGS = 'steps text[], modes text, s text, n float8, n_int numeric';
const KEYED_CALL = 'whd_keyed_walk(DOC, steps, modes, s, n, n_int)';
const HEADER_ARGS = 'name text, s text, n float8, n_int numeric';
const HEADER_CALL = 'whd_keyed_header_walk(DOC, name, s, n, n_int)';

/** The statements creating (or replacing) the keyed-filter functions. */
export const KEYED_FUNCTIONS_DDL: readonly string[] = [
    MATCH,
    KEYED,
    HEADER,
    SANITIZE,
    retrying('whd_keyed', KEYED_ARGS, KEYED_CALL),
    retrying('whd_keyed_header', HEADER_ARGS, HEADER_CALL),
    entry('whd_keyed', KEYED_ARGS, KEYED_CALL),
    entry('whd_keyed_header', HEADER_ARGS, HEADER_CALL),
];
