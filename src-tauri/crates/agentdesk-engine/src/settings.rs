//! What the user sets in Settings → Engines: per program (`codex`, `claude`, `opencode`...)
//! the executable's path and, where the engine has one, its home folder. Keyed by the
//! program's name, so a new engine needs no new field.
//!
//! Stored as JSON (settings key `engines`). The shape before the registry,
//! `{codexBin, claudeBin, codexHome}`, is still read.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// One program's settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgramSettings {
    /// The executable the user chose (`None`: found by discovery).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bin: Option<PathBuf>,
    /// The engine's home for profiles that set none (Codex: `CODEX_HOME`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home: Option<PathBuf>,
}

impl ProgramSettings {
    fn is_empty(&self) -> bool {
        self.bin.is_none() && self.home.is_none()
    }
}

/// Every program's settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "StoredSettings", rename_all = "camelCase")]
pub struct EngineSettings {
    programs: BTreeMap<String, ProgramSettings>,
    /// Stop an engine whose memory passes this many MB (`None`: the default,
    /// [`crate::limits::DEFAULT_MEMORY_LIMIT_MB`]; `0`: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    memory_limit_mb: Option<u32>,
}

impl EngineSettings {
    /// The memory limit as set (`None`: the default).
    pub fn memory_limit_mb(&self) -> Option<u32> {
        self.memory_limit_mb
    }

    pub fn set_memory_limit_mb(&mut self, mb: Option<u32>) {
        self.memory_limit_mb = mb;
    }

    /// The engines' limits with this memory limit in them.
    pub fn limits(&self, base: crate::limits::RunLimits) -> crate::limits::RunLimits {
        let mb = self
            .memory_limit_mb
            .unwrap_or(crate::limits::DEFAULT_MEMORY_LIMIT_MB);
        crate::limits::RunLimits {
            memory_limit: (mb > 0).then(|| u64::from(mb) * 1024 * 1024),
            ..base
        }
    }

    /// A program's settings (empty when nothing is set).
    pub fn program(&self, name: &str) -> ProgramSettings {
        self.programs.get(name).cloned().unwrap_or_default()
    }

    pub fn set_bin(&mut self, name: &str, bin: Option<PathBuf>) {
        self.update(name, |p| p.bin = bin);
    }

    pub fn set_home(&mut self, name: &str, home: Option<PathBuf>) {
        self.update(name, |p| p.home = home);
    }

    /// With `name`'s executable set (tests, scripts).
    pub fn with_bin(mut self, name: &str, bin: impl Into<PathBuf>) -> Self {
        self.set_bin(name, Some(bin.into()));
        self
    }

    fn update(&mut self, name: &str, f: impl FnOnce(&mut ProgramSettings)) {
        let entry = self.programs.entry(name.to_owned()).or_default();
        f(entry);
        if entry.is_empty() {
            self.programs.remove(name);
        }
    }
}

/// The stored JSON: the programs map, or the fields of the shape before it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredSettings {
    #[serde(default)]
    programs: BTreeMap<String, ProgramSettings>,
    #[serde(default)]
    codex_bin: Option<PathBuf>,
    #[serde(default)]
    claude_bin: Option<PathBuf>,
    #[serde(default)]
    codex_home: Option<PathBuf>,
    #[serde(default)]
    memory_limit_mb: Option<u32>,
}

impl From<StoredSettings> for EngineSettings {
    fn from(s: StoredSettings) -> Self {
        let mut settings = EngineSettings {
            programs: s.programs,
            memory_limit_mb: s.memory_limit_mb,
        };
        // The old fields only fill what the map does not say.
        let old = [
            ("codex", s.codex_bin, s.codex_home),
            ("claude", s.claude_bin, None),
        ];
        for (name, bin, home) in old {
            let current = settings.program(name);
            if current.bin.is_none() && bin.is_some() {
                settings.set_bin(name, bin);
            }
            if current.home.is_none() && home.is_some() {
                settings.set_home(name, home);
            }
        }
        settings
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_shape_before_the_registry_still_loads() {
        let old = serde_json::json!({"codexBin": "/opt/codex", "claudeBin": "/opt/claude", "codexHome": "/h"});
        let s: EngineSettings = serde_json::from_value(old).unwrap();
        assert_eq!(s.program("codex").bin, Some(PathBuf::from("/opt/codex")));
        assert_eq!(s.program("codex").home, Some(PathBuf::from("/h")));
        assert_eq!(s.program("claude").bin, Some(PathBuf::from("/opt/claude")));
        assert_eq!(s.program("opencode"), ProgramSettings::default());
    }

    #[test]
    fn round_trips_by_program_name_and_forgets_cleared_programs() {
        let mut s = EngineSettings::default().with_bin("opencode", "/bin/opencode");
        s.set_home("codex", Some("/c".into()));
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"programs": {"codex": {"home": "/c"}, "opencode": {"bin": "/bin/opencode"}}})
        );
        let back: EngineSettings = serde_json::from_value(json).unwrap();
        assert_eq!(back, s);
        s.set_bin("opencode", None);
        assert_eq!(s.program("opencode"), ProgramSettings::default());
        assert!(!serde_json::to_string(&s).unwrap().contains("opencode"));
    }
}
