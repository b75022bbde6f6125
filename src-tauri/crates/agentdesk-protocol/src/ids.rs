//! The ids of the things Agent Desk stores, one type each, so a run id cannot be passed
//! where a session id is expected (the store and core APIs take several side by side).
//!
//! Each is a plain string underneath and everywhere outside Rust: serde writes the bare string
//! (`#[serde(transparent)]`), SQLite stores TEXT (with the `sqlx` feature the types bind and
//! decode as TEXT directly), and TypeScript sees `string`, so neither the database nor the
//! bindings changed when these types came in. Any string is accepted when reading: ids
//! written by older builds (or by tests) are not validated, only carried.

use std::fmt;

use serde::{Deserialize, Serialize};

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        #[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(transparent))]
        pub struct $name(String);

        impl $name {
            /// A fresh id: a hyphenated uuid v7, the format every build has written, so
            /// ids sort by creation time (lists break ties on them).
            // No `Default`: a default that is a new random id each time would surprise.
            #[allow(clippy::new_without_default)]
            pub fn new() -> Self {
                Self(uuid::Uuid::now_v7().to_string())
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }

            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        /// An id read from outside (a CLI argument, a URL, a test): taken as it is.
        impl From<String> for $name {
            fn from(s: String) -> Self {
                Self(s)
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                Self(s.to_owned())
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        /// Exported as TypeScript's `string` inline (not as a named alias), so the generated
        /// bindings are what they were when these fields were `String`.
        impl ts_rs::TS for $name {
            type WithoutGenerics = Self;
            type OptionInnerType = Self;
            fn name(_: &ts_rs::Config) -> String {
                "string".to_owned()
            }
            fn inline(_: &ts_rs::Config) -> String {
                "string".to_owned()
            }
        }
    };
}

id_type!(
    /// A workspace (one folder).
    WorkspaceId
);
id_type!(
    /// A session: one conversation with one engine.
    SessionId
);
id_type!(
    /// A run: one user turn of a session.
    RunId
);
id_type!(
    /// A durable approval (or question) record.
    ApprovalId
);
id_type!(
    /// A stored profile.
    ProfileId
);

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use ts_rs::TS;

    #[test]
    fn serde_is_the_bare_string_both_ways() {
        let id = SessionId::from("0190c1d2-aaaa-7bbb-8ccc-123456789abc");
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, r#""0190c1d2-aaaa-7bbb-8ccc-123456789abc""#);
        assert_eq!(serde_json::from_str::<SessionId>(&json).unwrap(), id);
        // Inside a struct and an Option, exactly what a `String` field wrote.
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct Row {
            run_id: RunId,
            profile_id: Option<ProfileId>,
        }
        let v = serde_json::json!({"run_id": "r-1", "profile_id": null});
        let row: Row = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(row.run_id.as_str(), "r-1");
        assert_eq!(serde_json::to_value(&row).unwrap(), v);
        // Any string is carried, uuid or not (ids of older builds and tests).
        assert_eq!(serde_json::from_str::<RunId>(r#""s1""#).unwrap(), "s1");
    }

    #[test]
    fn new_ids_are_hyphenated_uuid_v7_and_sort_by_creation() {
        let a = ApprovalId::new();
        let b = ApprovalId::new();
        let parsed = uuid::Uuid::parse_str(a.as_str()).unwrap();
        assert_eq!(parsed.get_version_num(), 7);
        assert_eq!(a.as_str(), parsed.hyphenated().to_string());
        assert_ne!(a, b);
        assert!(a < b, "{a} then {b}");
    }

    #[test]
    fn typescript_sees_a_plain_string() {
        let cfg = ts_rs::Config::new();
        assert_eq!(WorkspaceId::name(&cfg), "string");
        assert_eq!(<Option<ProfileId>>::name(&cfg), "string | null");
        assert_eq!(<Vec<RunId>>::inline(&cfg), "Array<string>");
        assert_eq!(SessionId::from("x").to_string(), "x");
    }
}
