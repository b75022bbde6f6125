//! What every engine does with a profile's `engineOptions` (the typed options themselves are
//! in `agentdesk_protocol::engine_options`, read leniently): the checks shared by the
//! descriptors, the common keys, and the profile's environment for the engine child.

use serde_json::Value;

pub(crate) use agentdesk_protocol::engine_options::u32_key;
pub use agentdesk_protocol::engine_options::SSH_FORWARD_AGENT;

/// `(field, message)` problems of a profile's `engineOptions`, relative to it.
pub(crate) type OptionProblems = Vec<(String, String)>;

/// The keys every engine reads (`inactivityTimeoutSecs`), plus the object shape itself:
/// absent options read as an empty object; `Err` (with its problem) when they are not an
/// object, so the engine checks nothing else.
pub(crate) fn check_common(
    opts: &Value,
) -> Result<(&serde_json::Map<String, Value>, OptionProblems), OptionProblems> {
    static EMPTY: std::sync::OnceLock<serde_json::Map<String, Value>> = std::sync::OnceLock::new();
    let map = match opts {
        Value::Object(map) => map,
        Value::Null => EMPTY.get_or_init(serde_json::Map::new),
        _ => {
            return Err(vec![(
                String::new(),
                "engine options must be a JSON object".to_owned(),
            )])
        }
    };
    let mut problems = Vec::new();
    check_count(map, "inactivityTimeoutSecs", &mut problems);
    if map.get(SSH_FORWARD_AGENT).is_some_and(|v| !v.is_boolean()) {
        problems.push((
            SSH_FORWARD_AGENT.to_owned(),
            "must be true or false (forward your SSH agent to the engines of a remote workspace)"
                .to_owned(),
        ));
    }
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

/// `reasoningEffort`: one word as the engines spell their levels (`low`, `xhigh`, `max`);
/// which ones a model takes is the engine's to say when the run starts.
pub(crate) fn check_effort(map: &serde_json::Map<String, Value>, out: &mut OptionProblems) {
    let Some(v) = map.get("reasoningEffort") else {
        return;
    };
    let ok = v.is_null()
        || v.as_str().is_some_and(|s| {
            s.trim().is_empty()
                || (s.len() <= 20 && s.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
        });
    if !ok {
        out.push((
            "reasoningEffort".to_owned(),
            "reasoningEffort must be one of the model's effort levels (e.g. low, medium, high)"
                .to_owned(),
        ));
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
