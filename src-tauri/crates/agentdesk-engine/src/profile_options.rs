//! Reading a profile's `engineOptions` (one JSON object for all engines, camelCase keys) into
//! each adapter's typed options (`codex::CodexOptions`, `claude::ClaudeOptions`). Lenient on purpose, like the stored shape always was
//! read: a key of the wrong type is ignored as if it were missing, and keys of other engines
//! are none of the adapter's business.

use serde_json::Value;

pub(crate) fn u32_key(opts: &Value, key: &str) -> Option<u32> {
    opts.get(key)
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
}

pub(crate) fn string_key(opts: &Value, key: &str) -> Option<String> {
    opts.get(key).and_then(Value::as_str).map(str::to_owned)
}

pub(crate) fn bool_key(opts: &Value, key: &str) -> bool {
    opts.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// An array of strings (non-strings in it skipped); `None` when the key is absent or not an
/// array.
pub(crate) fn strings_key(opts: &Value, key: &str) -> Option<Vec<String>> {
    opts.get(key).and_then(Value::as_array).map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    })
}

/// An object of `key: value` pairs, values as strings (a non-string value in its JSON text).
pub(crate) fn string_map_key(opts: &Value, key: &str) -> Vec<(String, String)> {
    opts.get(key)
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let v = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
                    (k.clone(), v)
                })
                .collect()
        })
        .unwrap_or_default()
}
