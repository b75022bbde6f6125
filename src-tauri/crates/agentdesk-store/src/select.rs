//! The reads every table does the same way: its columns, a filter bound to one key, each
//! row checked as it becomes the domain type (names and JSON are validated there).

use sqlx::sqlite::SqliteRow;
use sqlx::Sqlite;

use crate::{Result, Store, StoreError};

/// A domain type stored as one table's rows.
pub(crate) trait Table: TryFrom<Self::Row, Error = StoreError> {
    /// The row as SQLite gives it back.
    type Row: for<'r> sqlx::FromRow<'r, SqliteRow> + Send + Unpin;
    const TABLE: &'static str;
    /// What is selected, in the order `INSERT`s name them too.
    const COLUMNS: &'static str;
}

fn sql<T: Table>(filter: &str) -> String {
    format!("SELECT {} FROM {} {filter}", T::COLUMNS, T::TABLE)
}

impl Store {
    /// Every row that `filter` (`WHERE … ORDER BY …`, one `?`) keeps for `key`.
    pub(crate) async fn select<T: Table, K>(&self, filter: &str, key: K) -> Result<Vec<T>>
    where
        K: for<'q> sqlx::Encode<'q, Sqlite> + sqlx::Type<Sqlite> + Send,
    {
        let rows: Vec<T::Row> = sqlx::query_as(&sql::<T>(filter))
            .bind(key)
            .fetch_all(&self.pool)
            .await?;
        rows.into_iter().map(T::try_from).collect()
    }

    /// The row `filter` (one `?`) finds for `key`, if any.
    pub(crate) async fn select_one<T: Table, K>(&self, filter: &str, key: K) -> Result<Option<T>>
    where
        K: for<'q> sqlx::Encode<'q, Sqlite> + sqlx::Type<Sqlite> + Send,
    {
        let row: Option<T::Row> = sqlx::query_as(&sql::<T>(filter))
            .bind(key)
            .fetch_optional(&self.pool)
            .await?;
        row.map(T::try_from).transpose()
    }

    /// Every row `filter` (no `?`) keeps.
    pub(crate) async fn select_all<T: Table>(&self, filter: &str) -> Result<Vec<T>> {
        let rows: Vec<T::Row> = sqlx::query_as(&sql::<T>(filter))
            .fetch_all(&self.pool)
            .await?;
        rows.into_iter().map(T::try_from).collect()
    }
}
