-- A subagent's items name the tool call that started it (`<run id>:<engine item id>` of the
-- parent item), so the timeline draws them nested under that call. NULL for the run's own
-- items (every row stored before this migration).
ALTER TABLE timeline_items ADD COLUMN parent_id TEXT;
