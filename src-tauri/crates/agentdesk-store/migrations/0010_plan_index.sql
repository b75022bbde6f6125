-- The session's latest plan (issue 24) is read when a run starts (Claude's task tools name
-- the steps of earlier runs by id) and when a session opens (its header shows the current
-- step): a partial index keeps that one short range scan however long the session is.
CREATE INDEX IF NOT EXISTS timeline_items_plans ON timeline_items (session_id, pk)
    WHERE kind = 'plan';
