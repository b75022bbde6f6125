//! Key/value settings, each value a JSON document.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::{now_ms, Result, Store};

impl Store {
    pub async fn get_setting<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>> {
        let v: Option<String> = sqlx::query_scalar("SELECT value FROM settings WHERE key = ?")
            .bind(key)
            .fetch_optional(&self.pool)
            .await?;
        v.map(|s| serde_json::from_str(&s))
            .transpose()
            .map_err(Into::into)
    }

    pub async fn set_setting<T: Serialize>(&self, key: &str, value: &T) -> Result<()> {
        let json = serde_json::to_string(value)?;
        sqlx::query(
            "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        )
        .bind(key)
        .bind(json)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Rewrite the database without its free pages (what deleted sessions left) and empty the
    /// WAL into it. Writers wait (the busy timeout) while it runs: the caller makes sure no
    /// run is recording.
    pub async fn compact(&self) -> Result<()> {
        if self.read_only {
            return Err(self.read_only_error());
        }
        let mut conn = self.pool.acquire().await?;
        // VACUUM rewrites through the WAL: empty it before and after, so the file is the
        // database alone at the end.
        sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(&mut *conn)
            .await?;
        sqlx::query("VACUUM").execute(&mut *conn).await?;
        sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(&mut *conn)
            .await?;
        Ok(())
    }
}
