-- The list of engines is the engine crate's registry, not the schema (issue 21): the
-- `CHECK (engine IN ('codex', 'claude'))` of `profiles` and `sessions` goes, so a new engine
-- (`acp`) needs no migration. The store still refuses a name the registry does not know when
-- it reads a row (`Engine::parse`).
--
-- SQLite cannot drop a CHECK, and the usual table rebuild is not possible here: sqlx runs a
-- SQLite migration inside a transaction, where foreign keys cannot be turned off, and
-- `DROP TABLE sessions` would then cascade into runs, timelines and approvals. Removing a
-- CHECK changes nothing on disk, so the documented way for such a change is used instead
-- (https://www.sqlite.org/lang_altertable.html#otheralter): rewrite the table's text in
-- `sqlite_schema`, then change the schema so every connection reloads it (the create and
-- drop below bump the schema cookie).
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
SET sql = replace(sql, 'CHECK (engine IN (''codex'', ''claude''))', 'CHECK (length(engine) > 0)')
WHERE type = 'table' AND name IN ('profiles', 'sessions');
PRAGMA writable_schema = OFF;
CREATE TABLE schema_reload_0006 (x INTEGER);
DROP TABLE schema_reload_0006;
