-- An approval's only state is its record in `approvals`: a timeline item names it by id and
-- holds nothing else of it. Older builds copied the record into the item's payload (a tool
-- card's `approval: {approvalId, requestId, kind, command, ..., state, decidedBy}`, an approval
-- row's `approval: {...}`, a question's `requestId`, `questions`, `answers`, `state`); the
-- copy could disagree with the record. This keeps the id (found by the engine request id when
-- the copy never got one) and drops the copy. `agentdesk_store::timeline` reads an old
-- payload the same way, for a row that comes from elsewhere.

UPDATE timeline_items
SET payload = json_remove(
        json_set(payload, '$.approvalId',
            COALESCE(
                json_extract(payload, '$.approval.approvalId'),
                (SELECT a.id FROM approvals a
                 WHERE a.run_id = timeline_items.run_id
                   AND a.engine_request_id = json_extract(timeline_items.payload, '$.approval.requestId')
                 ORDER BY a.created_at LIMIT 1))),
        '$.approval')
WHERE kind IN ('tool', 'approval') AND json_type(payload, '$.approval') = 'object';

UPDATE timeline_items
SET payload = json_remove(json_set(payload, '$.approvalId', json('null')), '$.approval')
WHERE kind IN ('tool', 'approval') AND json_type(payload, '$.approval') = 'null';

UPDATE timeline_items
SET payload = json_remove(
        json_set(payload, '$.approvalId',
            COALESCE(
                json_extract(payload, '$.approvalId'),
                (SELECT a.id FROM approvals a
                 WHERE a.run_id = timeline_items.run_id
                   AND a.engine_request_id = json_extract(timeline_items.payload, '$.requestId')
                 ORDER BY a.created_at LIMIT 1))),
        '$.requestId', '$.questions', '$.answers', '$.state')
WHERE kind = 'question' AND json_type(payload, '$.requestId') IS NOT NULL;
