-- Names of a profile's env vars whose values are secrets (never displayed, exported or
-- logged). Existing profiles have none.
ALTER TABLE profiles ADD COLUMN secret_env TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(secret_env));
