//! Claude Code CLI wire types: newline-delimited JSON ("stream-json") on stdin/stdout plus the
//! control protocol the Agent SDKs speak (pinned to claude 2.1.328; real transcripts under
//! `tests/fixtures/claude/`).
//!
//! Conventions, all of them forced by the wire:
//! - Names follow the CLI: the SDK's `SDKMessage` union is [`SdkMessage`], the control envelope
//!   is [`ControlRequest`] / [`ControlResponse`] / [`ControlCancelRequest`]. Field names are
//!   snake_case except where the CLI uses camelCase (`permissionMode`, `updatedInput`, ...).
//! - Every union is tagged (`type`, `subtype`, `behavior`) and has an `Unknown(Value)` arm
//!   that keeps the raw JSON: a newer CLI must never crash a session. The pattern is an
//!   untagged wrapper `{ Known(tagged enum), Unknown(Value) }`, so a known tag whose body does not
//!   fit also lands in `Unknown` instead of failing.
//! - Structs carry the fields we read plus `extra` (everything else, flattened), so a message
//!   re-serialises to what was received (tests check this over every transcript line).
//! - The same envelope types serve both directions: the host sends `user` messages and
//!   `control_request`s too.

/// The claude version whose wire this module follows.
pub const PINNED_CLAUDE_VERSION: &str = "2.1.328";

/// Generates a string enum whose unknown values survive as `Other(String)`.
macro_rules! string_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $wire:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
            /// A value this version does not know, kept verbatim.
            Other(String),
        }

        impl $name {
            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$variant => $wire,)+
                    Self::Other(s) => s.as_str(),
                }
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                match s {
                    $($wire => Self::$variant,)+
                    other => Self::Other(other.to_owned()),
                }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                Ok(Self::from(s.as_ref()))
            }
        }
    };
}

/// Generates a public tagged union `$name { Variant(Type), ..., Unknown(Value) }` with serde
/// impls: the tag (`type`, `subtype`, `behavior`) selects the variant; an unknown tag, or a
/// known tag whose body does not fit, becomes `Unknown` with the raw JSON (never an error).
/// `from_value` skips the extra `Value` round when the caller already holds one (the transport
/// hands us `Value`s).
macro_rules! tagged_union {
    ($(#[$meta:meta])* $name:ident, tag = $tag:literal {
        $($(#[$vmeta:meta])* $variant:ident($ty:ty) = $wire:literal),+ $(,)?
    }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        // Variants are named like the wire tags (`text_delta` → `TextDelta`).
        #[allow(clippy::enum_variant_names)]
        pub enum $name {
            $($(#[$vmeta])* $variant($ty),)+
            /// Anything this version does not know (or that did not fit), verbatim.
            Unknown(serde_json::Value),
        }

        const _: () = {
            #[derive(serde::Deserialize)]
            #[serde(tag = $tag)]
            #[allow(clippy::enum_variant_names)]
            enum Owned {
                $(#[serde(rename = $wire)] $variant($ty),)+
            }

            #[derive(serde::Serialize)]
            #[serde(tag = $tag)]
            #[allow(clippy::enum_variant_names)]
            enum Borrowed<'a> {
                $(#[serde(rename = $wire)] $variant(&'a $ty),)+
            }

            impl $name {
                /// Parse without failing: unknown or ill-fitting input is kept as `Unknown`.
                pub fn from_value(value: serde_json::Value) -> Self {
                    match <Owned as serde::Deserialize>::deserialize(&value) {
                        $(Ok(Owned::$variant(v)) => Self::$variant(v),)+
                        Err(_) => Self::Unknown(value),
                    }
                }

                /// The wire tag of a known variant, or the raw tag of an unknown one.
                pub fn tag(&self) -> Option<&str> {
                    match self {
                        $(Self::$variant(_) => Some($wire),)+
                        Self::Unknown(v) => v.get($tag).and_then(serde_json::Value::as_str),
                    }
                }
            }

            impl serde::Serialize for $name {
                fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    match self {
                        $(Self::$variant(v) => serde::Serialize::serialize(&Borrowed::$variant(v), s),)+
                        Self::Unknown(v) => serde::Serialize::serialize(v, s),
                    }
                }
            }

            impl<'de> serde::Deserialize<'de> for $name {
                fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                    let value = <serde_json::Value as serde::Deserialize>::deserialize(d)?;
                    Ok(Self::from_value(value))
                }
            }
        };
    };
}

mod control;
mod messages;
mod transcript;

pub use control::*;
pub use messages::*;
pub use transcript::*;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
