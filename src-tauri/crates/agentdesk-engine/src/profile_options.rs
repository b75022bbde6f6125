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

/// `(field, message)` problems of a profile's `engineOptions`, relative to it.
pub(crate) type OptionProblems = Vec<(String, String)>;

/// The keys every engine reads (`inactivityTimeoutSecs`), plus the object shape itself:
/// `Err` when the options are not an object (with its problem unless they are absent), so
/// the engine checks nothing else.
pub(crate) fn check_common(
    opts: &Value,
) -> Result<(&serde_json::Map<String, Value>, OptionProblems), OptionProblems> {
    let Some(map) = opts.as_object() else {
        if opts.is_null() {
            return Err(Vec::new());
        }
        return Err(vec![(
            String::new(),
            "engine options must be a JSON object".to_owned(),
        )]);
    };
    let mut problems = Vec::new();
    check_count(map, "inactivityTimeoutSecs", &mut problems);
    Ok((map, problems))
}

/// A count or a number of seconds: a whole number that fits the engines' u32.
pub(crate) fn check_count(
    map: &serde_json::Map<String, Value>,
    key: &str,
    out: &mut OptionProblems,
) {
    if let Some(v) = map.get(key) {
        if v.as_u64().filter(|n| u32::try_from(*n).is_ok()).is_none() {
            out.push((
                key.to_owned(),
                format!("{key} must be a whole number from 0 to {}", u32::MAX),
            ));
        }
    }
}

pub(crate) fn check_bool(
    map: &serde_json::Map<String, Value>,
    key: &str,
    out: &mut OptionProblems,
) {
    if map.get(key).is_some_and(|v| !v.is_boolean()) {
        out.push((key.to_owned(), format!("{key} must be true or false")));
    }
}

/// The profile's inactivity watchdog, `engineOptions.inactivityTimeoutSecs` (0 turns it off);
/// `None`: the engine's default (10 min).
pub fn inactivity_timeout(opts: &Value) -> Option<std::time::Duration> {
    u32_key(opts, "inactivityTimeoutSecs").map(|s| std::time::Duration::from_secs(u64::from(s)))
}

/// Secrets the engines could read from the app's environment (their own logins, see
/// `child_env`). With a custom endpoint they would go to a third party, so they are removed
/// unless the profile names one as its key.
const PROVIDER_SECRETS: &[&str] = &[
    "OPENAI_API_KEY",
    "CODEX_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
];

/// The profile's environment for its engine child: its variables, and the provider secrets
/// to remove when it talks to a custom endpoint. Registers the profile's secret values for
/// redaction from every engine diagnostic from now on.
pub(crate) fn profile_env(
    spec: &agentdesk_protocol::ui::ProfileSpec,
) -> (Vec<(String, String)>, Vec<String>) {
    let env = spec
        .env
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let env_remove = if spec.base_url.is_some() {
        PROVIDER_SECRETS
            .iter()
            .filter(|s| spec.api_key_env.as_deref() != Some(**s) && !spec.env.contains_key(**s))
            .map(|s| (*s).to_string())
            .collect()
    } else {
        Vec::new()
    };
    for value in spec.secret_values() {
        crate::diagnostic::register_secret(value);
    }
    (env, env_remove)
}

/// `(key, value as JSON text)` of the `keys` present (and not null) in `opts`.
pub(crate) fn present_keys(opts: &Value, keys: &[&str]) -> Vec<(String, String)> {
    keys.iter()
        .filter_map(|k| {
            let v = opts.get(*k).filter(|v| !v.is_null())?;
            Some(((*k).to_owned(), v.to_string()))
        })
        .collect()
}
