-- Messages enter the full-text index when they are complete, and not inside the write that
-- completes them. Before, every flush of a streaming answer re-indexed its whole text (the
-- old text out, the new text in), and the last flush of a 4 MB answer spent ~0.3 s tokenising
-- it on the run's critical path. Now a completed message is only queued here; the queue is
-- drained by `Store::index_pending` (before every search, so a search never misses one, and in
-- the background after a run in the app).
--
-- Invariant kept by the triggers below: a row is in message_fts exactly when it is a message
-- with text, not running, and not queued in fts_pending.
CREATE TABLE fts_pending (
    pk INTEGER PRIMARY KEY NOT NULL
);

-- The old triggers indexed running messages too: take those out so the invariant holds.
INSERT INTO message_fts(message_fts, rowid, text)
    SELECT 'delete', pk, text FROM timeline_items
    WHERE kind IN ('user_message', 'agent_message') AND text IS NOT NULL AND status = 'running';

DROP TRIGGER timeline_fts_insert;
DROP TRIGGER timeline_fts_delete;
DROP TRIGGER timeline_fts_update;

CREATE TRIGGER timeline_fts_insert AFTER INSERT ON timeline_items
WHEN new.kind IN ('user_message', 'agent_message') AND new.text IS NOT NULL
    AND new.status <> 'running'
BEGIN
    INSERT OR IGNORE INTO fts_pending(pk) VALUES (new.pk);
END;

-- An indexed row leaves the index with the text it was indexed with (external content:
-- FTS5 needs the old values); a queued one just leaves the queue.
CREATE TRIGGER timeline_fts_delete AFTER DELETE ON timeline_items
WHEN old.kind IN ('user_message', 'agent_message') AND old.text IS NOT NULL
    AND old.status <> 'running'
BEGIN
    INSERT INTO message_fts(message_fts, rowid, text)
        SELECT 'delete', old.pk, old.text
        WHERE NOT EXISTS (SELECT 1 FROM fts_pending WHERE pk = old.pk);
    DELETE FROM fts_pending WHERE pk = old.pk;
END;

-- The recorder upserts every column of an item on each flush; only a change that moves the
-- row in or out of the index, or changes its text, touches the index. Statements run in
-- order: the old text leaves before the queue forgets the row, then the new state is queued.
CREATE TRIGGER timeline_fts_update AFTER UPDATE OF text, kind, status ON timeline_items
WHEN old.text IS NOT new.text OR old.kind IS NOT new.kind
    OR (old.status = 'running') <> (new.status = 'running')
BEGIN
    INSERT INTO message_fts(message_fts, rowid, text)
        SELECT 'delete', old.pk, old.text
        WHERE old.kind IN ('user_message', 'agent_message') AND old.text IS NOT NULL
            AND old.status <> 'running'
            AND NOT EXISTS (SELECT 1 FROM fts_pending WHERE pk = old.pk);
    DELETE FROM fts_pending WHERE pk = old.pk;
    INSERT OR IGNORE INTO fts_pending(pk)
        SELECT new.pk
        WHERE new.kind IN ('user_message', 'agent_message') AND new.text IS NOT NULL
            AND new.status <> 'running';
END;
