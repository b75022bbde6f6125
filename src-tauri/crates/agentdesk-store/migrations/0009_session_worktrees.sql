-- A session may run in its own git worktree: the folder (in the data directory, outside the
-- repository), its branch, and the branch it left and merges back into. All three are set
-- together, and cleared together when the worktree is removed (the conversation stays).
PRAGMA writable_schema = RESET;
ALTER TABLE sessions ADD COLUMN worktree_path TEXT;
ALTER TABLE sessions ADD COLUMN worktree_branch TEXT;
ALTER TABLE sessions ADD COLUMN worktree_base TEXT;
