#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::*;

async fn recv(rx: &mut InboundRx) -> Option<Inbound> {
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

/// Feeds `input` through a pipe of `pipe` bytes, so reads end at every possible place.
async fn frames_through(input: Vec<u8>, pipe: usize, max: usize) -> Vec<String> {
    let (mut far, near) = tokio::io::duplex(pipe);
    tokio::spawn(async move {
        far.write_all(&input).await.unwrap();
        far.shutdown().await.unwrap();
    });
    let mut framer = LineFramer::new(near, max);
    let mut seen = Vec::new();
    loop {
        let more = framer
            .next_lines(|f| {
                seen.push(match f {
                    FrameRef::Line(l) => String::from_utf8(l.to_vec()).unwrap(),
                    FrameRef::Oversized { len, head } => {
                        assert!(head.len() <= EXCERPT_BYTES);
                        format!("<{len} bytes: {}>", String::from_utf8_lossy(&head[..3]))
                    }
                })
            })
            .await
            .unwrap();
        if !more {
            return seen;
        }
    }
}

#[tokio::test]
async fn batched_framing_is_the_same_wherever_the_reads_end() {
    // Lines of every kind, CRLF split across reads, a line over the cap, a last line
    // without its newline; fed through pipes from 1 byte to larger than the whole input.
    let long = "L".repeat(700);
    let input = format!("{{\"a\":1}}\r\n\nshort\r\n{long}\nmid\n\r\nx{long}{long}\nend");
    let want: Vec<String> = vec![
        "{\"a\":1}".into(),
        "".into(),
        "short".into(),
        long.clone(),
        "mid".into(),
        "".into(),
        "<1401 bytes: xLL>".into(),
        "end".into(),
    ];
    for pipe in [1, 2, 3, 7, 64, 699, 700, 701, 4096] {
        assert_eq!(
            frames_through(input.clone().into_bytes(), pipe, 1000).await,
            want,
            "pipe of {pipe} bytes"
        );
    }
}

#[tokio::test]
async fn batched_framing_keeps_memory_bounded_on_an_endless_line() {
    let (mut far, near) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let chunk = vec![b'q'; 1 << 20];
        for _ in 0..3 {
            far.write_all(&chunk).await.unwrap();
        }
        far.shutdown().await.unwrap();
    });
    let mut framer = LineFramer::new(near, 1024);
    let mut lines = Vec::new();
    while framer
        .next_lines(|f| lines.push(format!("{f:?}").len()))
        .await
        .unwrap()
    {
        // Past the cap only the excerpt is kept, however long the line goes on.
        assert!(framer.carry.capacity() <= 1024 + EXCERPT_BYTES);
    }
    assert_eq!(lines.len(), 1);
}

#[tokio::test]
async fn lines_of_one_read_travel_as_one_batch() {
    // 1,000 small lines already in the pipe: far fewer channel messages than lines, and the
    // consumer still gets every line, in order.
    let mut input = Vec::new();
    for i in 0..1000 {
        input.extend_from_slice(format!("{{\"i\":{i}}}\n").as_bytes());
    }
    let (mut far, near) = tokio::io::duplex(1 << 16);
    far.write_all(&input).await.unwrap();
    far.shutdown().await.unwrap();
    let (r, w) = tokio::io::split(near);
    let mut t = Transport::new(r, w, &TransportConfig::default());
    let (mut batches, mut next) = (0, 0);
    while let Some(batch) = t.inbound.rx.recv().await {
        batches += 1;
        for item in batch {
            assert_eq!(item, Inbound::Message(json!({"i": next})));
            next += 1;
        }
    }
    assert_eq!(next, 1000);
    assert!(batches <= 5, "{batches} channel messages for 1,000 lines");
}

#[tokio::test]
async fn has_buffered_tells_whether_the_current_batch_has_more() {
    let (mut far, near) = tokio::io::duplex(1 << 16);
    far.write_all(b"1\n2\n").await.unwrap();
    let (r, w) = tokio::io::split(near);
    let mut t = Transport::new(r, w, &TransportConfig::default());
    assert_eq!(recv(&mut t.inbound).await, Some(Inbound::Message(json!(1))));
    assert!(t.inbound.has_buffered());
    assert_eq!(recv(&mut t.inbound).await, Some(Inbound::Message(json!(2))));
    assert!(!t.inbound.has_buffered());
    far.shutdown().await.unwrap();
    assert_eq!(recv(&mut t.inbound).await, None);
}
