-- Workspace folders were stored as `std::fs::canonicalize` gave them, which on Windows is the
-- verbatim form (`\\?\C:\work`, `\\?\UNC\server\share\work`). Used as an engine's cwd that
-- breaks: `cmd.exe` (every npm `.cmd` shim) refuses it and falls back to `C:\Windows`, and
-- codex's "trusted project" setting is keyed on the plain spelling (issue 20, item 2). Builds
-- from now on store the plain form (`agentdesk_store::canonical`); this rewrites stored rows
-- with the same rule as `canonical::plain_form` (a test runs both over one corpus). No path
-- on Linux or macOS starts with `\\?\`: there this changes nothing.
--
-- SQLite has no escape in GLOB: `[?]` is a literal `?`, and `\` is an ordinary character.

CREATE TEMP TABLE plain_workspace_paths AS
SELECT id,
       CASE WHEN path GLOB '\\[?]\UNC\*' THEN '\\' || substr(path, 9)
            ELSE substr(path, 5) END AS plain,
       -- What follows the drive's root, or the share's `server\share\...`.
       CASE WHEN path GLOB '\\[?]\UNC\*' THEN substr(path, 9)
            ELSE substr(path, 8) END AS components
FROM workspaces
WHERE path GLOB '\\[?]\UNC\*' OR path GLOB '\\[?]\[A-Za-z]:\*';

-- A share path needs both its server and its share.
DELETE FROM plain_workspace_paths WHERE plain GLOB '\\*' AND components NOT GLOB '*\*';

-- Kept verbatim where the plain form would mean something else or be refused: a component
-- that is empty, ends with a dot or a space (so `.` and `..` too), holds `<>:"/|?*` or a
-- control character, or names a device (`con`, `nul.txt`, `COM1`...: the part before the
-- first dot, trailing spaces dropped; upper() folds ASCII only, as the Rust rule does).
WITH RECURSIVE parts(id, part, tail) AS (
    SELECT id, NULL, components || '\' FROM plain_workspace_paths WHERE components <> ''
    UNION ALL
    SELECT id, substr(tail, 1, instr(tail, '\') - 1), substr(tail, instr(tail, '\') + 1)
    FROM parts WHERE tail <> ''
)
DELETE FROM plain_workspace_paths WHERE id IN (
    SELECT id FROM parts
    WHERE part IS NOT NULL AND (
        part = ''
        OR part GLOB '*[. ]'
        OR part GLOB '*[<>:"/|?*]*'
        OR part GLOB ('*[' || char(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31) || ']*')
        OR upper(rtrim(CASE WHEN instr(part, '.') > 0 THEN substr(part, 1, instr(part, '.') - 1)
                            ELSE part END, ' '))
           IN ('CON', 'PRN', 'AUX', 'NUL', 'CONIN$', 'CONOUT$',
               'COM1', 'COM2', 'COM3', 'COM4', 'COM5', 'COM6', 'COM7', 'COM8', 'COM9',
               'COM¹', 'COM²', 'COM³',
               'LPT1', 'LPT2', 'LPT3', 'LPT4', 'LPT5', 'LPT6', 'LPT7', 'LPT8', 'LPT9',
               'LPT¹', 'LPT²', 'LPT³')
    )
);

-- A plain path must stay under MAX_PATH (260 with its NUL). length() counts characters where
-- Windows counts UTF-16 units: the same but for characters outside the BMP (emoji), where a
-- path within a few units of the limit may be rewritten although a new build would keep it.
DELETE FROM plain_workspace_paths WHERE length(plain) >= 260;

-- The folder may already be stored in its plain form (paths are UNIQUE): that row stays, and
-- so does this one, as it was.
UPDATE workspaces
SET path = (SELECT plain FROM plain_workspace_paths AS p WHERE p.id = workspaces.id)
WHERE id IN (SELECT id FROM plain_workspace_paths)
  AND NOT EXISTS (
      SELECT 1 FROM plain_workspace_paths AS p
      JOIN workspaces AS other ON other.path = p.plain
      WHERE p.id = workspaces.id
  );

DROP TABLE plain_workspace_paths;
