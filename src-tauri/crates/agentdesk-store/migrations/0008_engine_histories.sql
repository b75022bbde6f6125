-- Sessions that started outside the app: the engines' own histories (a Codex CLI thread, a
-- Claude Code transcript), imported and continued here. `origin` says where a session began;
-- the app's own are 'app'. One imported session per engine session: the unique index makes a
-- re-scan update the session it made instead of adding a second.
--
-- The connection that ran 0006 in this same pass still holds the table's old text (0006
-- rewrote it in place); ADD COLUMN splices into that text at an offset taken when it was
-- parsed, so the schema is reloaded first (RESET: writable_schema off, schema re-read).
PRAGMA writable_schema = RESET;
ALTER TABLE sessions ADD COLUMN origin TEXT NOT NULL DEFAULT 'app';
CREATE UNIQUE INDEX sessions_by_origin ON sessions(origin, engine_session_id)
    WHERE origin <> 'app';

-- What a re-scan has read of each history file, so the next one reads only what is new: the
-- file's identity and size when last read, how far it was read (`read_to`: the end of the last
-- complete line), and where the session's last turn began (`turn_at`: appended lines may
-- continue that turn, so it is read again from there and its run replaced). `skipped` counts
-- lines that could not be read (corrupt, unknown, too long), for the diagnostics.
CREATE TABLE history_files (
    path        TEXT PRIMARY KEY NOT NULL,
    origin      TEXT NOT NULL,
    session_id  TEXT REFERENCES sessions(id) ON DELETE CASCADE,
    file_id     TEXT NOT NULL,
    size        INTEGER NOT NULL,
    mtime_ms    INTEGER NOT NULL,
    read_to     INTEGER NOT NULL,
    turn_at     INTEGER NOT NULL,
    turn_seq    INTEGER NOT NULL,
    skipped     INTEGER NOT NULL DEFAULT 0,
    updated_at  INTEGER NOT NULL
);
-- Every run's end looks up its session's file (`history_file_of_session`): by index, not a scan.
CREATE INDEX history_files_by_session ON history_files(session_id);
