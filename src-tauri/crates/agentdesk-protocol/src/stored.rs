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
    crate::ui::AttachmentKind,
    crate::ui::Engine,
    crate::ui::PermissionMode,
    crate::acp::options::AcpPreset,
    crate::events::FailureCode,
    crate::ui::SessionOrigin,
);

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde::Serialize;
    use strum::VariantArray;

    use crate::acp::options::AcpPreset;
    use crate::ui::{
        ApprovalKindName, ApprovalState, AttachmentKind, DecidedBy, Engine, ItemStatus,
        PermissionMode, RunStatus, SessionOrigin,
    };

    /// Every stored name is the serde name (the store writes `as_str`, the UI reads serde), and
    /// parses back; an unknown name is `None`.
    fn names_agree<T>(as_str: fn(T) -> &'static str, parse: fn(&str) -> Option<T>)
    where
        T: VariantArray + Serialize + Copy + PartialEq + std::fmt::Debug,
    {
        for &v in T::VARIANTS {
            assert_eq!(serde_json::to_value(v).unwrap(), as_str(v), "{v:?}");
            assert_eq!(parse(as_str(v)), Some(v));
        }
        assert_eq!(parse("no_such_name"), None);
    }

    #[test]
    fn every_stored_name_is_its_serde_name() {
        names_agree(ApprovalKindName::as_str, ApprovalKindName::parse);
        names_agree(ApprovalState::as_str, ApprovalState::parse);
        names_agree(DecidedBy::as_str, DecidedBy::parse);
        names_agree(RunStatus::as_str, RunStatus::parse);
        names_agree(ItemStatus::as_str, ItemStatus::parse);
        names_agree(AttachmentKind::as_str, AttachmentKind::parse);
        names_agree(Engine::as_str, Engine::parse);
        names_agree(PermissionMode::as_str, PermissionMode::parse);
        names_agree(SessionOrigin::as_str, SessionOrigin::parse);
        names_agree(AcpPreset::as_str, AcpPreset::parse);
        assert_eq!(AttachmentKind::Image.as_str(), "image");
        assert_eq!(PermissionMode::AutoEdit.as_str(), "auto_edit");
        assert_eq!(Engine::ALL, [Engine::Codex, Engine::Claude, Engine::Acp]);
        assert_eq!(AcpPreset::ALL, [AcpPreset::Opencode, AcpPreset::Gemini]);
    }
}
