//! A file the message mentions (`@path`, picked from the composer's file finder), for the
//! engines that do not read mentions themselves. Claude Code expands `@path` in the prompt
//! into a Read of that file (verified with 2.1.328: the model request carries the file);
//! Codex 0.169's `mention` input is for connectors and sends nothing of a file, and ACP
//! agents differ: for those the file's text goes with the prompt.

use std::path::Path;

/// Larger mentioned files are named, not inlined (the agent reads them itself).
pub const MAX_INLINE: u64 = 256 * 1024;

/// The mentioned file as prompt text: its contents in a fence, or why they are not there.
pub async fn inline(name: &str, path: &Path) -> String {
    let size = match tokio::fs::metadata(path).await {
        Ok(m) => m.len(),
        Err(e) => return format!("(@{name} could not be read: {e})"),
    };
    if size > MAX_INLINE {
        return format!(
            "(@{name} is {size} bytes, too large to attach: read it from the workspace)"
        );
    }
    let text = match tokio::fs::read(path).await.map(String::from_utf8) {
        Ok(Ok(text)) => text,
        Ok(Err(_)) => {
            return format!("(@{name} is a binary file: read it from the workspace if needed)")
        }
        Err(e) => return format!("(@{name} could not be read: {e})"),
    };
    // A fence longer than any backtick run inside, so the file cannot close it.
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!(
        "Contents of @{name}:\n{fence}\n{}\n{fence}",
        text.trim_end_matches('\n')
    )
}

/// The media type of an image file, by its extension (PNG when it says nothing else).
pub fn image_media_type(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => "image/png",
    }
}

/// An image as a `data:` URL, for an engine that cannot read this machine's files (one on
/// another host).
pub async fn image_data_url(path: &Path) -> Result<String, crate::error::EngineError> {
    use base64::Engine as _;
    let bytes = tokio::fs::read(path).await.map_err(|e| {
        crate::error::EngineError::transport(format!("reading image {}", path.display()), e)
    })?;
    Ok(format!(
        "data:{};base64,{}",
        image_media_type(path),
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn text_is_fenced_and_the_rest_is_said() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        std::fs::write(&p, "hi ```` there\n").unwrap();
        let t = inline("a.md", &p).await;
        assert_eq!(t, "Contents of @a.md:\n`````\nhi ```` there\n`````");
        std::fs::write(&p, [0xff, 0xfe, 0x00]).unwrap();
        assert!(inline("a.md", &p).await.contains("binary"));
        std::fs::write(&p, vec![b'a'; (MAX_INLINE + 1) as usize]).unwrap();
        assert!(inline("a.md", &p).await.contains("too large"));
        assert!(inline("gone.md", &dir.path().join("gone.md"))
            .await
            .contains("could not be read"));
    }
}
