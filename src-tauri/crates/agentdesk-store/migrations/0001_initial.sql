-- Agent Desk schema, version 1. Never edit a migration once it has landed: add a new one.
-- Times are Unix milliseconds (INTEGER). Ids are uuid v7 strings unless said otherwise.
-- JSON columns hold serde_json text and are checked with json_valid().

CREATE TABLE workspaces (
    id          TEXT PRIMARY KEY NOT NULL,
    name        TEXT NOT NULL,
    -- Canonical absolute path; one workspace per folder.
    path        TEXT NOT NULL UNIQUE,
    created_at  INTEGER NOT NULL,
    archived_at INTEGER
);

CREATE TABLE profiles (
    id                    TEXT PRIMARY KEY NOT NULL,
    workspace_id          TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    name                  TEXT NOT NULL,
    is_default            INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
    engine                TEXT NOT NULL CHECK (engine IN ('codex', 'claude')),
    model                 TEXT,
    -- Optional OpenAI- or Anthropic-compatible endpoint and the env var holding its key.
    base_url              TEXT,
    api_key_env           TEXT,
    permission_mode       TEXT NOT NULL DEFAULT 'ask'
                          CHECK (permission_mode IN ('ask', 'auto_edit', 'full_auto', 'read_only')),
    allowed_tools         TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(allowed_tools)),
    denied_tools          TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(denied_tools)),
    system_prompt         TEXT,
    extra_dirs            TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(extra_dirs)),
    env                   TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(env)),
    approval_rules        TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(approval_rules)),
    -- Seconds before a pending approval ends in a safe deny recorded as timed_out; NULL = never.
    approval_timeout_secs INTEGER CHECK (approval_timeout_secs IS NULL OR approval_timeout_secs > 0),
    -- Engine-specific extras (codex -c overrides, plugins, claude setting sources...).
    engine_options        TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(engine_options)),
    created_at            INTEGER NOT NULL,
    updated_at            INTEGER NOT NULL,
    UNIQUE (workspace_id, name)
);
-- At most one default profile per workspace.
CREATE UNIQUE INDEX profiles_one_default ON profiles(workspace_id) WHERE is_default = 1;

CREATE TABLE sessions (
    id                TEXT PRIMARY KEY NOT NULL,
    workspace_id      TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    profile_id        TEXT REFERENCES profiles(id) ON DELETE SET NULL,
    title             TEXT NOT NULL DEFAULT '',
    engine            TEXT NOT NULL CHECK (engine IN ('codex', 'claude')),
    -- Codex thread id or Claude session id, once the engine has given one.
    engine_session_id TEXT,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL,
    archived_at       INTEGER
);
CREATE INDEX sessions_by_workspace ON sessions(workspace_id, updated_at DESC);

CREATE TABLE runs (
    id          TEXT PRIMARY KEY NOT NULL,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    -- 1-based position of the run in its session.
    seq         INTEGER NOT NULL,
    status      TEXT NOT NULL
                CHECK (status IN ('queued', 'running', 'completed', 'failed', 'interrupted')),
    prompt      TEXT NOT NULL,
    profile_id  TEXT REFERENCES profiles(id) ON DELETE SET NULL,
    model       TEXT,
    stop_reason TEXT,
    error       TEXT,
    created_at  INTEGER NOT NULL,
    started_at  INTEGER,
    ended_at    INTEGER,
    UNIQUE (session_id, seq)
);
CREATE INDEX runs_by_status ON runs(status) WHERE status IN ('queued', 'running');

-- The timeline: one row per item (user message, agent message, reasoning, tool call, file
-- change, approval, question, notice, diagnostic), upserted by id while it streams.
CREATE TABLE timeline_items (
    -- Stable integer key: the FTS index points at it, and unlike the implicit rowid of a
    -- table with a TEXT primary key it never changes on VACUUM.
    pk          INTEGER PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    run_id      TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    -- Order within the run.
    seq         INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'completed',
    -- Message/reasoning text (the searchable part); NULL for other kinds.
    text        TEXT,
    payload     TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(payload)),
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE INDEX timeline_by_session ON timeline_items(session_id, pk);
CREATE INDEX timeline_by_run ON timeline_items(run_id, seq);

CREATE TABLE approvals (
    id                TEXT PRIMARY KEY NOT NULL,
    session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    run_id            TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    -- The timeline item (tool call) the approval belongs to, when there is one.
    item_id           TEXT,
    -- The engine's own request id (JSON-RPC id or control request_id), as text.
    engine_request_id TEXT NOT NULL,
    kind              TEXT NOT NULL
                      CHECK (kind IN ('command', 'file_change', 'permission', 'tool', 'question')),
    -- What exactly is asked: command + cwd, paths + diff, tool + input, questions.
    request           TEXT NOT NULL CHECK (json_valid(request)),
    suggestions       TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(suggestions)),
    state             TEXT NOT NULL DEFAULT 'pending'
                      CHECK (state IN ('pending', 'approved_once', 'approved_session', 'denied',
                                       'expired', 'cancelled', 'timed_out', 'answered')),
    -- Who decided; NULL while pending and for states nobody decided (expired, cancelled).
    decided_by        TEXT CHECK (decided_by IS NULL OR decided_by IN ('user', 'notification', 'rule', 'deadline')),
    -- The decision's details: edited input, deny message, answers.
    decision          TEXT CHECK (decision IS NULL OR json_valid(decision)),
    created_at        INTEGER NOT NULL,
    deadline_at       INTEGER,
    decided_at        INTEGER
);
CREATE INDEX approvals_pending ON approvals(state, created_at) WHERE state = 'pending';
CREATE INDEX approvals_by_session ON approvals(session_id, created_at);

-- Content-addressed blobs (files live under <data dir>/attachments/<sha256>).
CREATE TABLE attachments (
    sha256     TEXT PRIMARY KEY NOT NULL,
    mime       TEXT NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('image', 'file')),
    size       INTEGER NOT NULL CHECK (size >= 0),
    created_at INTEGER NOT NULL
);

-- Which run (message) carries which attachment, under which name.
CREATE TABLE run_attachments (
    run_id     TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    sha256     TEXT NOT NULL REFERENCES attachments(sha256),
    position   INTEGER NOT NULL,
    name       TEXT NOT NULL,
    PRIMARY KEY (run_id, position)
);
CREATE INDEX run_attachments_by_blob ON run_attachments(sha256);

-- Token usage and cost per run (a run may update it several times while streaming).
CREATE TABLE usage (
    run_id              TEXT PRIMARY KEY NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    input_tokens        INTEGER NOT NULL DEFAULT 0,
    cached_input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens       INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens    INTEGER NOT NULL DEFAULT 0,
    -- NULL when the engine does not report a cost.
    cost_usd            REAL,
    updated_at          INTEGER NOT NULL
);

-- App settings (engine paths, notification preferences...), one JSON value per key.
CREATE TABLE settings (
    key        TEXT PRIMARY KEY NOT NULL,
    value      TEXT NOT NULL CHECK (json_valid(value)),
    updated_at INTEGER NOT NULL
);

-- Full-text index over message text (user and agent messages), external content.
CREATE VIRTUAL TABLE message_fts USING fts5(
    text,
    content = 'timeline_items',
    content_rowid = 'pk',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER timeline_fts_insert AFTER INSERT ON timeline_items
WHEN new.kind IN ('user_message', 'agent_message') AND new.text IS NOT NULL
BEGIN
    INSERT INTO message_fts(rowid, text) VALUES (new.pk, new.text);
END;

CREATE TRIGGER timeline_fts_delete AFTER DELETE ON timeline_items
WHEN old.kind IN ('user_message', 'agent_message') AND old.text IS NOT NULL
BEGIN
    INSERT INTO message_fts(message_fts, rowid, text) VALUES ('delete', old.pk, old.text);
END;

-- One trigger, two statements in order: the old text must leave the index before the new
-- text enters it (SQLite does not promise an order between separate triggers).
CREATE TRIGGER timeline_fts_update AFTER UPDATE OF text, kind ON timeline_items
BEGIN
    INSERT INTO message_fts(message_fts, rowid, text)
        SELECT 'delete', old.pk, old.text
        WHERE old.kind IN ('user_message', 'agent_message') AND old.text IS NOT NULL;
    INSERT INTO message_fts(rowid, text)
        SELECT new.pk, new.text
        WHERE new.kind IN ('user_message', 'agent_message') AND new.text IS NOT NULL;
END;
