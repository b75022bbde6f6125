//! The committed codex schema (`schema/codex-0.169.0/`) must be exactly what the pinned binary
//! generates. Set `CODEX_BIN` to the pinned codex; an upgrade then fails here, loudly, until
//! the schema (and the wire types in `src/codex/`) are brought up to date.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn files(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

#[test]
fn committed_codex_schema_matches_pinned_binary() {
    let Some(bin) = std::env::var_os("CODEX_BIN").filter(|b| !b.is_empty()) else {
        eprintln!("\n!!!!!!!! SKIP (CODEX_BIN not set): codex schema drift NOT checked !!!!!!!!\n");
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "CODEX_BIN must be set in CI"
        );
        return;
    };
    let version = Command::new(&bin)
        .arg("--version")
        .output()
        .expect("run codex --version");
    let version = String::from_utf8_lossy(&version.stdout).trim().to_owned();
    assert_eq!(
        version,
        format!(
            "codex-cli {}",
            agentdesk_protocol::codex::PINNED_CODEX_VERSION
        ),
        "CODEX_BIN is not the pinned version"
    );

    let committed = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("schema")
        .join(format!(
            "codex-{}",
            agentdesk_protocol::codex::PINNED_CODEX_VERSION
        ));
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("codex-schema-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let status = Command::new(&bin)
        .args(["app-server", "generate-json-schema", "--out"])
        .arg(&out)
        .status()
        .expect("run codex app-server generate-json-schema");
    assert!(status.success(), "generate-json-schema failed: {status}");

    let (want, got) = (files(&committed), files(&out));
    let _ = std::fs::remove_dir_all(&out);
    let missing: Vec<_> = want.keys().filter(|k| !got.contains_key(*k)).collect();
    let added: Vec<_> = got.keys().filter(|k| !want.contains_key(*k)).collect();
    let changed: Vec<_> = want
        .iter()
        .filter(|(k, v)| got.get(*k).is_some_and(|g| g != *v))
        .map(|(k, _)| k)
        .collect();
    assert!(
        missing.is_empty() && added.is_empty() && changed.is_empty(),
        "\n\nCODEX SCHEMA DRIFT against {}:\n  removed: {missing:?}\n  added: {added:?}\n  changed: {changed:?}\n\
         Regenerate with `codex app-server generate-json-schema --out {}` and review src/codex/.\n",
        committed.display(),
        committed.display()
    );
}
