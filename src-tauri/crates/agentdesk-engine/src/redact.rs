//! Redaction of obvious secrets in what engines print (stderr, unparseable output), applied
//! where diagnostics are created ([`crate::diagnostic::Diagnostic::new`], the stderr reader
//! in `process`), so nothing stored, exported, shown or logged carries them.
//!
//! Recognised: API keys by shape (`sk-…`, `sk-ant-…`, GitHub `ghp_`/`gho_`/`ghu_`/`ghs_`/
//! `ghr_`/`github_pat_`, AWS `AKIA…`/`ASIA…`, Slack `xox?-`), `Bearer <token>`, the value of an
//! `Authorization:` header, the value of `NAME=value` / `"name": "value"` when the name says
//! secret (`*_KEY`, `*_TOKEN`, `*_SECRET`, `*PASSWORD`, …), and literal values the caller
//! knows to be secret (a profile's secret variables). Heuristic by nature: it catches the
//! usual leaks, not every conceivable one.

use std::sync::RwLock;

use agentdesk_protocol::sync;

/// What a secret is replaced with.
pub const REDACTED: &str = "[REDACTED]";

/// Literal secrets shorter than this are not replaced: a value like `1` or `yes` would blank
/// out unrelated text.
const MIN_LITERAL: usize = 6;

/// Secret values known to the whole process (a profile's secret variables, registered when a
/// run's options are built): redacted from every diagnostic, whichever child printed them.
static KNOWN_SECRETS: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Redact `value` from every later diagnostic of this process. Short values are ignored
/// (see `MIN_LITERAL`); registering twice is harmless.
pub fn register_secret(value: &str) {
    if value.len() < MIN_LITERAL {
        return;
    }
    let mut known = sync::write(&KNOWN_SECRETS);
    if !known.iter().any(|k| k == value) {
        known.push(value.to_owned());
    }
}

/// True when a variable or field name says its value is secret.
pub fn looks_like_secret_name(name: &str) -> bool {
    let n = name.to_ascii_uppercase().replace('-', "_");
    let n = n.trim_matches('_');
    [
        "KEY",
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "APIKEY",
        "API_KEY",
        "ACCESS_TOKEN",
        "AUTH_TOKEN",
        "CREDENTIALS",
        "PRIVATE_KEY",
        "COOKIE",
    ]
    .iter()
    .any(|s| n == *s || n.ends_with(&format!("_{s}")))
        || n.ends_with("APIKEY")
        || n.ends_with("PASSWORD")
        || n.ends_with("SECRET")
}

/// `text` with obvious secrets and every literal in `secrets` replaced by [`REDACTED`].
pub fn redact(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_owned();
    {
        let known = sync::read(&KNOWN_SECRETS);
        for secret in secrets
            .iter()
            .chain(known.iter())
            .filter(|s| s.len() >= MIN_LITERAL)
        {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), REDACTED);
            }
        }
    }
    let out = apply(&out, &named_values(&out));
    let out = apply(&out, &bearer_tokens(&out));
    apply(&out, &key_shaped_tokens(&out))
}

fn is_tok(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

fn is_name(b: u8) -> bool {
    is_tok(b) || b == b'.'
}

/// A value ends at whitespace, a quote, an escape or a list/structure delimiter.
fn ends_value(b: u8) -> bool {
    b.is_ascii_whitespace()
        || matches!(
            b,
            b'"' | b'\'' | b'\\' | b',' | b';' | b'&' | b')' | b'}' | b']' | b'<' | b'>'
        )
}

/// Replace the byte ranges (sorted, non-overlapping ones kept) by [`REDACTED`]. Every range
/// starts and ends next to an ASCII byte, so the cuts are on char boundaries.
fn apply(text: &str, ranges: &[(usize, usize)]) -> String {
    if ranges.is_empty() {
        return text.to_owned();
    }
    let mut sorted = ranges.to_vec();
    sorted.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (start, end) in sorted {
        if start < at || end <= start || end > text.len() {
            continue;
        }
        let (Some(keep), Some(value)) = (text.get(at..start), text.get(start..end)) else {
            continue;
        };
        out.push_str(keep);
        out.push_str(if value == REDACTED { value } else { REDACTED });
        at = end;
    }
    out.push_str(text.get(at..).unwrap_or(""));
    out
}

/// Values after `NAME=` / `NAME:` (optionally quoted names and values) whose name says
/// secret, and the whole value of an `Authorization:` header.
fn named_values(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut ranges = Vec::new();
    for (i, &c) in b.iter().enumerate() {
        if c != b'=' && c != b':' {
            continue;
        }
        // The name, possibly quoted ("api_key": …, \"token\": …).
        let mut j = i;
        if j > 0 && matches!(b[j - 1], b'"' | b'\'') {
            j -= 1;
        }
        let mut k = j;
        while k > 0 && is_name(b[k - 1]) {
            k -= 1;
        }
        let Some(name) = text.get(k..j) else { continue };
        if name.is_empty() {
            continue;
        }
        let header = name.eq_ignore_ascii_case("authorization")
            || name.eq_ignore_ascii_case("proxy-authorization");
        if !header && !looks_like_secret_name(name) {
            continue;
        }
        let mut v = i + 1;
        if c == b'=' && b.get(v) == Some(&b'=') {
            continue; // `==`: a comparison, not an assignment.
        }
        while v < b.len() && b[v] == b' ' {
            v += 1;
        }
        if v < b.len() && b[v] == b'\\' {
            v += 1;
        }
        if v < b.len() && matches!(b[v], b'"' | b'\'') {
            v += 1;
        }
        let end = if header {
            // `Authorization: Basic abc`: the scheme and the credentials.
            (v..b.len())
                .find(|&e| matches!(b[e], b'\n' | b'\r' | b'"' | b'\'' | b'\\'))
                .unwrap_or(b.len())
        } else {
            (v..b.len()).find(|&e| ends_value(b[e])).unwrap_or(b.len())
        };
        // Already redacted (a second pass, a literal replaced first): leave it.
        if end > v && !text.get(v..).is_some_and(|t| t.starts_with(REDACTED)) {
            ranges.push((v, end));
        }
    }
    ranges
}

/// The token after `Bearer ` (any case).
fn bearer_tokens(text: &str) -> Vec<(usize, usize)> {
    let lower = text.to_ascii_lowercase();
    let b = text.as_bytes();
    let mut ranges = Vec::new();
    let mut from = 0;
    while let Some(found) = lower.get(from..).and_then(|s| s.find("bearer")) {
        let at = from + found;
        from = at + 6;
        if at > 0 && is_tok(b[at - 1]) {
            continue;
        }
        let mut v = at + 6;
        if v >= b.len() || !(b[v] == b' ' || b[v] == b'\t') {
            continue;
        }
        while v < b.len() && (b[v] == b' ' || b[v] == b'\t') {
            v += 1;
        }
        let end = (v..b.len()).find(|&e| ends_value(b[e])).unwrap_or(b.len());
        // Already redacted (a second pass, a literal replaced first): leave it.
        if end > v && !text.get(v..).is_some_and(|t| t.starts_with(REDACTED)) {
            ranges.push((v, end));
        }
    }
    ranges
}

/// Whole tokens shaped like a provider's key.
fn key_shaped_tokens(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut ranges = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !is_tok(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_tok(b[i]) {
            i += 1;
        }
        if let Some(token) = text.get(start..i) {
            if is_key_shaped(token) {
                ranges.push((start, i));
            }
        }
    }
    ranges
}

fn is_key_shaped(t: &str) -> bool {
    let long_with = |prefix: &str, min: usize| t.starts_with(prefix) && t.len() >= min;
    long_with("sk-", 20)
        || ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]
            .iter()
            .any(|p| long_with(p, 24))
        || long_with("github_pat_", 30)
        || ["xoxb-", "xoxp-", "xoxa-", "xoxs-"]
            .iter()
            .any(|p| long_with(p, 20))
        || ((t.starts_with("AKIA") || t.starts_with("ASIA"))
            && t.len() == 20
            && t.bytes()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn r(s: &str) -> String {
        redact(s, &[])
    }

    #[test]
    fn key_shaped_tokens_are_replaced() {
        for (input, want) in [
            (
                "auth failed for sk-ant-api03-AbCdEfGhIjKlMnOpQrSt_uv",
                "auth failed for [REDACTED]",
            ),
            ("key sk-proj-1234567890abcdefghij.", "key [REDACTED]."),
            (
                "token=ghp_0123456789abcdefghijABCDEFGHIJ",
                "token=[REDACTED]",
            ),
            (
                "push with gho_0123456789abcdefghijABCD failed",
                "push with [REDACTED] failed",
            ),
            (
                "(github_pat_11ABCDEFG0123456789_abcdefghijklmnop)",
                "([REDACTED])",
            ),
            ("aws AKIAIOSFODNN7EXAMPLE used", "aws [REDACTED] used"),
        ] {
            assert_eq!(r(input), want, "{input}");
        }
    }

    #[test]
    fn named_values_and_headers_are_replaced() {
        for (input, want) in [
            (
                "env OPENAI_API_KEY=abc123 RUST_LOG=debug",
                "env OPENAI_API_KEY=[REDACTED] RUST_LOG=debug",
            ),
            ("GITHUB_TOKEN=x1;next", "GITHUB_TOKEN=[REDACTED];next"),
            (
                "AWS_SECRET_ACCESS_KEY=wJalr/K7MDENG",
                "AWS_SECRET_ACCESS_KEY=[REDACTED]",
            ),
            ("DB_PASSWORD='hunter2' ok", "DB_PASSWORD='[REDACTED]' ok"),
            (
                r#"{"api_key": "abc", "model": "m"}"#,
                r#"{"api_key": "[REDACTED]", "model": "m"}"#,
            ),
            (
                "Authorization: Basic dXNlcjpwYXNz\nnext line",
                "Authorization: [REDACTED]\nnext line",
            ),
            (
                "curl -H 'authorization: token abc def' x",
                "curl -H 'authorization: [REDACTED]' x",
            ),
            (
                "sent header Bearer eyJhbGciOi.x-y_z then",
                "sent header Bearer [REDACTED] then",
            ),
            (r#""bearer abc""#, r#""bearer [REDACTED]""#),
        ] {
            assert_eq!(r(input), want, "{input}");
        }
    }

    #[test]
    fn ordinary_text_is_untouched() {
        for input in [
            "error: could not connect to 127.0.0.1:8080 (connection refused)",
            "Compiling skeleton v0.1.0; see https://example.com/a?b=c",
            "the task-key-generator ran; monkey=3; a == b",
            "sk-short and ghp_short and AKIA123",
            "Erreur : désolé — ünïcode=ok",
            "",
        ] {
            assert_eq!(r(input), input);
        }
    }

    #[test]
    fn redacting_twice_changes_nothing() {
        for input in [
            "GITHUB_TOKEN=abc Bearer xyz sk-ant-api03-AAAAAAAAAAAAAAAAAAAA",
            r#"{"password": "x"}"#,
            "Authorization: Basic abc",
        ] {
            let once = r(input);
            assert_eq!(r(&once), once);
        }
    }

    #[test]
    fn literal_secrets_are_replaced_wherever_they_appear() {
        let secrets = vec!["s3cr3t-value".to_owned(), "1".to_owned()];
        assert_eq!(
            redact("db url postgres://u:s3cr3t-value@h/1 failed", &secrets),
            "db url postgres://u:[REDACTED]@h/1 failed"
        );
    }

    #[test]
    fn registered_secrets_are_replaced_everywhere() {
        register_secret("registered-odd-value-42");
        register_secret("x");
        assert_eq!(r("dsn=registered-odd-value-42 x"), "dsn=[REDACTED] x");
    }

    #[test]
    fn secret_names() {
        for yes in [
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "DB_PASSWORD",
            "api_key",
            "apiKey",
            "client-secret",
            "TOKEN",
        ] {
            assert!(looks_like_secret_name(yes), "{yes}");
        }
        for no in [
            "PATH",
            "RUST_LOG",
            "MONKEY",
            "KEYBOARD",
            "AWS_REGION",
            "model",
        ] {
            assert!(!looks_like_secret_name(no), "{no}");
        }
    }
}
