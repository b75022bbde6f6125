//! The stored names of the protocol's enums: derived by strum (`IntoStaticStr`,
//! `EnumString`, `serialize_all = "snake_case"`, like their serde names), exposed once as
//! `as_str` / `parse` for the store.

/// `as_str` / `parse` for enums deriving strum's `IntoStaticStr` and `EnumString`.
macro_rules! stored_names {
    ($($t:ty),+ $(,)?) => {$(
        impl $t {
            /// The stored (and serde) name.
            pub fn as_str(self) -> &'static str {
                self.into()
            }

            /// `None` for a name this build does not know.
            pub fn parse(s: &str) -> Option<Self> {
                s.parse().ok()
            }
        }
    )+};
}

stored_names!(
    crate::ui::RunStatus,
    crate::ui::ItemStatus,
    crate::ui::ApprovalKindName,
    crate::events::ApprovalState,
    crate::ui::DecidedBy,
);
