#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::*;

async fn recv(rx: &mut mpsc::Receiver<Inbound>) -> Option<Inbound> {
    tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .expect("timed out waiting for inbound")
}

fn transport_over(input: Vec<u8>, max: usize) -> Transport {
    let (mut far, near) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        far.write_all(&input).await.unwrap();
        far.shutdown().await.unwrap();
        // keep `far` alive until the reader drained the pipe
        let mut sink = Vec::new();
        let _ = far.read_to_end(&mut sink).await;
    });
    let (r, w) = tokio::io::split(near);
    Transport::new(
        r,
        w,
        &TransportConfig {
            max_line_bytes: max,
            inbound_capacity: 4,
        },
    )
}

#[tokio::test]
async fn frames_lf_crlf_blank_and_unterminated_last_line() {
    let mut t = transport_over(b"{\"a\":1}\r\n\n  \r\n{\"b\":2}\n{\"c\":3}".to_vec(), 1024);
    assert_eq!(
        recv(&mut t.inbound).await,
        Some(Inbound::Message(json!({"a":1})))
    );
    assert_eq!(
        recv(&mut t.inbound).await,
        Some(Inbound::Message(json!({"b":2})))
    );
    assert_eq!(
        recv(&mut t.inbound).await,
        Some(Inbound::Message(json!({"c":3})))
    );
    assert_eq!(recv(&mut t.inbound).await, None);
}

#[tokio::test]
async fn bad_lines_become_diagnostics_and_reading_goes_on() {
    let mut input = b"not json at all\n".to_vec();
    input.extend_from_slice(b"{\"x\":\"\xff\xfe\"}\n");
    input.extend(std::iter::repeat_n(b'a', 5000));
    input.extend_from_slice(b"\n{\"ok\":true}\n");
    let mut t = transport_over(input, 1024);
    let kinds: Vec<Inbound> = [
        recv(&mut t.inbound).await,
        recv(&mut t.inbound).await,
        recv(&mut t.inbound).await,
        recv(&mut t.inbound).await,
    ]
    .into_iter()
    .map(Option::unwrap)
    .collect();
    match &kinds[0] {
        Inbound::Diagnostic(d) => {
            assert_eq!(d.kind, DiagnosticKind::InvalidJson);
            assert_eq!(d.excerpt.as_deref(), Some("not json at all"));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(&kinds[1], Inbound::Diagnostic(d) if d.kind == DiagnosticKind::InvalidUtf8));
    match &kinds[2] {
        Inbound::Diagnostic(d) => {
            assert_eq!(
                d.kind,
                DiagnosticKind::OversizedLine {
                    len: 5000,
                    max: 1024
                }
            );
            assert!(d.excerpt.as_ref().unwrap().len() <= EXCERPT_BYTES + 4);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(kinds[3], Inbound::Message(json!({"ok": true})));
    assert_eq!(recv(&mut t.inbound).await, None);
}

#[tokio::test]
async fn line_exactly_at_cap_is_accepted_one_over_is_not() {
    let body = format!("\"{}\"", "x".repeat(98)); // 100 bytes of JSON
    let input = format!("{body}\n{body} \n");
    let mut t = transport_over(input.into_bytes(), 100);
    assert!(matches!(
        recv(&mut t.inbound).await,
        Some(Inbound::Message(_))
    ));
    assert!(matches!(
        recv(&mut t.inbound).await,
        Some(Inbound::Diagnostic(Diagnostic {
            kind: DiagnosticKind::OversizedLine { len: 101, .. },
            ..
        }))
    ));
}

#[tokio::test]
async fn ten_megabyte_line_is_accepted_under_default_cap() {
    let big = "y".repeat(10 * 1024 * 1024);
    let input = format!("{{\"big\":\"{big}\"}}\n{{\"after\":1}}\n");
    let mut t = transport_over(input.into_bytes(), DEFAULT_MAX_LINE_BYTES);
    match recv(&mut t.inbound).await {
        Some(Inbound::Message(v)) => assert_eq!(v["big"].as_str().unwrap().len(), big.len()),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        recv(&mut t.inbound).await,
        Some(Inbound::Message(json!({"after":1})))
    );
}

#[tokio::test]
async fn writer_never_interleaves_lines_and_close_gives_eof() {
    let (near, mut far) = tokio::io::duplex(256);
    let (writer, task) = LineWriter::spawn(near);
    let mut handles = Vec::new();
    for t in 0..8 {
        let w = writer.clone();
        handles.push(tokio::spawn(async move {
            for i in 0..50 {
                w.send_json(&json!({"t": t, "i": i, "pad": "z".repeat(300)}))
                    .unwrap();
                tokio::task::yield_now().await;
            }
        }));
    }
    for h in handles {
        h.await.unwrap();
    }
    writer.close();
    let mut out = String::new();
    tokio::time::timeout(Duration::from_secs(5), far.read_to_string(&mut out))
        .await
        .unwrap()
        .unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 400);
    for line in lines {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["pad"].as_str().unwrap().len(), 300);
    }
    task.await.unwrap();
    assert!(writer.is_closed());
    assert!(matches!(
        writer.send_line("{}"),
        Err(EngineError::Closed(_))
    ));
}

#[tokio::test]
async fn framer_keeps_memory_bounded_on_endless_line() {
    // 3 MiB without a newline against a 1 KiB cap: only the excerpt is kept.
    let data = vec![b'q'; 3 * 1024 * 1024];
    let mut framer = LineFramer::new(&data[..], 1024);
    match framer.next_frame().await.unwrap() {
        Some(Frame::Oversized { len, head }) => {
            assert_eq!(len, data.len());
            assert!(head.len() <= EXCERPT_BYTES);
            assert!(head.capacity() <= EXCERPT_BYTES.max(1024));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(framer.next_frame().await.unwrap(), None);
}

// Checked at compile time: the core accepts images up to 20 MiB and Claude echoes them as
// base64 in a user message (plus a few KB of JSON); a 60 MB line must not fit.
const _: () = {
    let image_b64 = (20 * 1024 * 1024usize).div_ceil(3) * 4;
    assert!(image_b64 + 4096 <= DEFAULT_MAX_LINE_BYTES);
    assert!(60_000_000 > DEFAULT_MAX_LINE_BYTES);
};

#[tokio::test]
async fn a_60_mb_line_is_skipped_under_the_default_cap_and_named_by_its_size() {
    // Streamed through a small pipe: the framer never sees more than its read buffer at once.
    let (mut far, near) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let chunk = vec![b'z'; 1 << 20];
        far.write_all(b"{\"type\":\"user\",\"data\":\"")
            .await
            .unwrap();
        let mut left = 60_000_000 - 23 - 2;
        while left > 0 {
            let n = left.min(chunk.len());
            far.write_all(&chunk[..n]).await.unwrap();
            left -= n;
        }
        far.write_all(b"\"}\n{\"after\":1}\n").await.unwrap();
        far.shutdown().await.unwrap();
        let mut sink = Vec::new();
        let _ = far.read_to_end(&mut sink).await;
    });
    let (r, w) = tokio::io::split(near);
    let mut t = Transport::new(r, w, &TransportConfig::default());
    match tokio::time::timeout(Duration::from_secs(60), t.inbound.recv())
        .await
        .unwrap()
    {
        Some(Inbound::Diagnostic(d)) => {
            assert_eq!(
                d.kind,
                DiagnosticKind::OversizedLine {
                    len: 60_000_000,
                    max: DEFAULT_MAX_LINE_BYTES
                }
            );
            assert_eq!(
                d.detail,
                "line of 60000000 bytes (57.2 MiB) over the 32.0 MiB limit skipped"
            );
            assert!(d.excerpt.unwrap().starts_with("{\"type\":\"user\""));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        recv(&mut t.inbound).await,
        Some(Inbound::Message(json!({"after":1})))
    );
}
