-- Answers to questions the engine marked secret were stored in clear by earlier builds, in the
-- approval's decision and in the question's timeline row (issue 19, item 8). Builds from now
-- on keep only a fixed mask (`SECRET_ANSWER_MASK` in agentdesk-core: the same whatever was
-- answered, so it tells neither the value nor its length); this rewrites what is already
-- stored the same way. Answers to questions not marked secret are kept as they were.

-- Freed space is zeroed, so the clear answers do not linger in the file's free pages (this
-- connection only: it is the one that rewrites them).
PRAGMA secure_delete = ON;

UPDATE approvals
SET decision = json_set(decision, '$.answers', (
    SELECT json_group_object(a.key,
        CASE WHEN EXISTS (
            SELECT 1 FROM json_each(approvals.request, '$.questions') AS q
            WHERE json_extract(q.value, '$.secret') = 1 AND json_extract(q.value, '$.id') = a.key
        ) THEN json_array('••••••') ELSE json(a.value) END)
    FROM json_each(approvals.decision, '$.answers') AS a))
WHERE kind = 'question'
  AND decision IS NOT NULL
  AND json_type(decision, '$.answers') = 'object'
  AND EXISTS (
      SELECT 1 FROM json_each(approvals.request, '$.questions') AS q
      WHERE json_extract(q.value, '$.secret') = 1
  );

UPDATE timeline_items
SET payload = json_set(payload, '$.answers', (
    SELECT json_group_object(a.key,
        CASE WHEN EXISTS (
            SELECT 1 FROM json_each(timeline_items.payload, '$.questions') AS q
            WHERE json_extract(q.value, '$.secret') = 1 AND json_extract(q.value, '$.id') = a.key
        ) THEN json_array('••••••') ELSE json(a.value) END)
    FROM json_each(timeline_items.payload, '$.answers') AS a))
WHERE kind = 'question'
  AND json_type(payload, '$.answers') = 'object'
  AND EXISTS (
      SELECT 1 FROM json_each(timeline_items.payload, '$.questions') AS q
      WHERE json_extract(q.value, '$.secret') = 1
  );
