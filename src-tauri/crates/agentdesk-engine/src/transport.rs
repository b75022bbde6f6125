//! Newline-delimited JSON over a pair of byte streams (a child's stdout/stdin, or a tokio
//! duplex in tests).
//!
//! - Reading: one task frames lines with a hard size cap, accepts `\n` and `\r\n`, decodes each
//!   line (a [`Decode`]r: plain JSON by default, typed per engine) and sends [`Inbound`] events
//!   on a bounded channel. Bad lines (too long, not UTF-8, not JSON) become
//!   [`Inbound::Diagnostic`] and reading goes on; only EOF or an I/O error ends the stream (the
//!   channel then closes).
//! - The hot path is built for long streamed answers (hundreds of thousands of small lines):
//!   lines are decoded straight out of the read buffer (a line is copied only when it spans two
//!   reads, into one reused buffer), and everything decoded from one read travels as one batch,
//!   so the channel costs one hop per read, not per line. [`InboundRx`] hands the batch back
//!   one event at a time.
//! - Writing: one task owns the write half and is fed by an unbounded mpsc, so whole lines
//!   never interleave no matter how many [`LineWriter`] clones exist.
//!
//! Nothing here knows about JSON-RPC: the Claude control protocol uses the transport directly.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::batched::Batched;
use tokio::task::JoinHandle;

use crate::diagnostic::{Diagnostic, DiagnosticKind, DiagnosticSource, EXCERPT_BYTES};
use crate::error::EngineError;
use crate::limits::human_bytes;

/// Default line cap: 32 MiB.
///
/// Why this size: legitimate single messages get big — a finished agent message is never
/// truncated (a 400 KB answer is normal), `item/completed` carries a command's whole
/// aggregated output, and Claude echoes the user's message with its images inline as base64:
/// the core accepts images up to 20 MiB (`AttachmentLimits::image`), i.e. ~26.7 MiB of
/// base64 plus the JSON around it. 32 MiB fits that. It was 64 MiB, which let a hostile
/// 60 MB line through whole (parsed, translated and stored: 3.9 GB RSS); anything over the
/// cap is now skipped in streaming fashion without ever being held whole.
pub const DEFAULT_MAX_LINE_BYTES: usize = 32 * 1024 * 1024;

/// Read buffer; large reads keep syscalls low for multi-megabyte lines.
const READ_BUFFER_BYTES: usize = 64 * 1024;

/// Transport settings.
#[derive(Debug, Clone)]
pub struct TransportConfig {
    /// Longest accepted line in bytes (without the newline). Longer lines become an
    /// [`DiagnosticKind::OversizedLine`] diagnostic.
    pub max_line_bytes: usize,
    /// Capacity of the inbound channel, in batches (one batch = what one read of at most
    /// [`READ_BUFFER_BYTES`] decoded to, plus at most one line that began in an earlier read).
    /// Bounded so a stalled consumer slows the child down (pipe backpressure) instead of
    /// growing memory without limit.
    pub inbound_capacity: usize,
}

impl Default for TransportConfig {
    fn default() -> Self {
        Self {
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            // 32 reads of 64 KiB: ~2 MB of small lines in flight, as many as 256 single lines
            // used to be, with one channel hop per read instead of per line.
            inbound_capacity: 32,
        }
    }
}

/// One event from the read side: `T` is what the [`Decode`]r makes of a line (a JSON
/// [`Value`] unless the engine decodes its own types).
#[derive(Debug, Clone, PartialEq)]
pub enum Inbound<T = Value> {
    /// A line that decoded (for [`JsonLines`]: any JSON value; shapes are the next layer's
    /// business).
    Message(T),
    /// A line that could not be used, or a read error.
    Diagnostic(Diagnostic),
}

/// How the reader task turns one line (UTF-8, without its newline, never blank) into a
/// message. Runs on the reader task, so decoding overlaps with whatever consumes the messages.
pub trait Decode: Send + 'static {
    type Item: Send + 'static;
    /// `Err` = not JSON (the line becomes an [`DiagnosticKind::InvalidJson`] diagnostic).
    fn decode(&mut self, line: &str) -> Result<Self::Item, serde_json::Error>;
}

/// The default decoder: any JSON value.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonLines;

impl Decode for JsonLines {
    type Item = Value;
    fn decode(&mut self, line: &str) -> Result<Value, serde_json::Error> {
        serde_json::from_str(line)
    }
}

/// The receiving end of a transport: events one at a time, out of the batches the reader sends.
pub type InboundRx<T = Value> = Batched<Inbound<T>, mpsc::Receiver<Vec<Inbound<T>>>>;

/// A framed line, or the fact that a line exceeded the cap.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Frame {
    Line(Vec<u8>),
    /// `head` holds the first [`EXCERPT_BYTES`] bytes; the rest was discarded while reading.
    Oversized {
        len: usize,
        head: Vec<u8>,
    },
}

/// A line borrowed from the framer's buffers (see [`LineFramer::next_lines`]).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum FrameRef<'a> {
    Line(&'a [u8]),
    Oversized { len: usize, head: &'a [u8] },
}

/// Splits a byte stream into lines without ever buffering more than `max` bytes of one line.
pub(crate) struct LineFramer<R> {
    reader: BufReader<R>,
    max: usize,
    /// The beginning of a line that continues in the next read ([`Self::next_lines`] only);
    /// reused from line to line.
    carry: Vec<u8>,
    /// Bytes of that line seen so far (more than `carry` holds once it went over `max`).
    carry_len: usize,
}

/// A carry buffer bigger than this is given back after its line: one huge line must not pin
/// its size for the rest of the run.
const CARRY_KEEP_BYTES: usize = 1 << 20;

impl<R: AsyncRead + Unpin> LineFramer<R> {
    pub(crate) fn new(reader: R, max: usize) -> Self {
        Self {
            reader: BufReader::with_capacity(READ_BUFFER_BYTES, reader),
            max,
            carry: Vec::new(),
            carry_len: 0,
        }
    }

    /// One read: calls `each` for every line it completes (CR/LF stripped; borrowed straight
    /// from the read buffer unless the line spans reads), in order. `Ok(false)` at EOF (after
    /// the last line without a newline, if any). Lines over `max` come as
    /// [`FrameRef::Oversized`] with a head of at most [`EXCERPT_BYTES`]; memory stays bounded.
    /// Do not mix with [`Self::next_frame`] on one framer.
    pub(crate) async fn next_lines(
        &mut self,
        mut each: impl FnMut(FrameRef<'_>),
    ) -> io::Result<bool> {
        let available = self.reader.fill_buf().await?;
        if available.is_empty() {
            if self.carry_len > 0 {
                each(carried(&self.carry, self.carry_len, self.max));
                reset_carry(&mut self.carry, &mut self.carry_len);
            }
            return Ok(false);
        }
        let mut rest = available;
        if self.carry_len > 0 {
            match memchr::memchr(b'\n', rest) {
                Some(i) => {
                    extend_carry(&mut self.carry, &mut self.carry_len, &rest[..i], self.max);
                    each(carried(&self.carry, self.carry_len, self.max));
                    reset_carry(&mut self.carry, &mut self.carry_len);
                    rest = &rest[i + 1..];
                }
                None => {
                    extend_carry(&mut self.carry, &mut self.carry_len, rest, self.max);
                    rest = &[];
                }
            }
        }
        let mut start = 0;
        for i in memchr::memchr_iter(b'\n', rest) {
            let line = &rest[start..i];
            each(frame_ref(line, line.len(), self.max));
            start = i + 1;
        }
        if start < rest.len() {
            // The beginning of a line the next read completes.
            extend_carry(
                &mut self.carry,
                &mut self.carry_len,
                &rest[start..],
                self.max,
            );
        }
        let n = available.len();
        self.reader.consume(n);
        Ok(true)
    }

    /// The next line (CR/LF stripped), `Ok(None)` at EOF. A last line without a newline counts.
    pub(crate) async fn next_frame(&mut self) -> io::Result<Option<Frame>> {
        let mut buf: Vec<u8> = Vec::new();
        let mut total = 0usize;
        let mut oversized = false;
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                if total == 0 {
                    return Ok(None);
                }
                return Ok(Some(finish(buf, total, oversized)));
            }
            let (chunk, consumed, done) = match available.iter().position(|b| *b == b'\n') {
                Some(i) => (&available[..i], i + 1, true),
                None => (available, available.len(), false),
            };
            total += chunk.len();
            if !oversized {
                if buf.len() + chunk.len() > self.max {
                    // Keep only a recognisable head and stop accumulating: memory stays bounded
                    // however long the line turns out to be.
                    oversized = true;
                    let want = EXCERPT_BYTES.saturating_sub(buf.len()).min(chunk.len());
                    buf.extend_from_slice(&chunk[..want]);
                    buf.truncate(EXCERPT_BYTES);
                    buf.shrink_to_fit();
                } else {
                    buf.extend_from_slice(chunk);
                }
            }
            self.reader.consume(consumed);
            if done {
                return Ok(Some(finish(buf, total, oversized)));
            }
        }
    }
}

fn reset_carry(carry: &mut Vec<u8>, len: &mut usize) {
    *len = 0;
    carry.clear();
    if carry.capacity() > CARRY_KEEP_BYTES {
        *carry = Vec::new();
    }
}

/// Append a piece of a line that spans reads; past `max` only the excerpt head is kept.
fn extend_carry(carry: &mut Vec<u8>, len: &mut usize, piece: &[u8], max: usize) {
    if *len + piece.len() <= max {
        carry.extend_from_slice(piece);
    } else if carry.len() < EXCERPT_BYTES {
        let want = (EXCERPT_BYTES - carry.len()).min(piece.len());
        carry.extend_from_slice(&piece[..want]);
    }
    if *len <= max && *len + piece.len() > max {
        // Just went over: give back what was held beyond the excerpt.
        carry.truncate(EXCERPT_BYTES);
        carry.shrink_to(EXCERPT_BYTES);
    }
    *len += piece.len();
}

fn carried(carry: &[u8], len: usize, max: usize) -> FrameRef<'_> {
    frame_ref(carry, len, max)
}

/// `bytes` is the whole line, or (oversized) at least its excerpt head.
fn frame_ref(bytes: &[u8], len: usize, max: usize) -> FrameRef<'_> {
    if len > max {
        return FrameRef::Oversized {
            len,
            head: &bytes[..bytes.len().min(EXCERPT_BYTES)],
        };
    }
    FrameRef::Line(bytes.strip_suffix(b"\r").unwrap_or(bytes))
}

fn finish(mut buf: Vec<u8>, total: usize, oversized: bool) -> Frame {
    if oversized {
        return Frame::Oversized {
            len: total,
            head: buf,
        };
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Frame::Line(buf)
}

/// Turn one framed stdout line into an inbound event; `None` for blank lines.
pub(crate) fn decode_frame<D: Decode>(
    frame: FrameRef<'_>,
    max: usize,
    decoder: &mut D,
) -> Option<Inbound<D::Item>> {
    let bytes = match frame {
        FrameRef::Oversized { len, head } => {
            return Some(Inbound::Diagnostic(
                Diagnostic::new(
                    DiagnosticSource::Stdout,
                    DiagnosticKind::OversizedLine { len, max },
                    format!(
                        "line of {len} bytes ({}) over the {} limit skipped",
                        human_bytes(len),
                        human_bytes(max)
                    ),
                )
                .with_excerpt(head),
            ));
        }
        FrameRef::Line(bytes) => bytes,
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => {
            return Some(Inbound::Diagnostic(
                Diagnostic::new(
                    DiagnosticSource::Stdout,
                    DiagnosticKind::InvalidUtf8,
                    format!("line is not UTF-8: {err}"),
                )
                .with_excerpt(bytes),
            ));
        }
    };
    match decoder.decode(text) {
        Ok(item) => Some(Inbound::Message(item)),
        Err(err) => Some(Inbound::Diagnostic(
            Diagnostic::new(
                DiagnosticSource::Stdout,
                DiagnosticKind::InvalidJson,
                format!("line is not JSON: {err}"),
            )
            .with_excerpt(bytes),
        )),
    }
}

/// Aborts the wrapped task when dropped, so owning structs never leak background tasks.
#[derive(Debug)]
pub struct AbortOnDrop(JoinHandle<()>);

impl AbortOnDrop {
    pub fn new(handle: JoinHandle<()>) -> Self {
        Self(handle)
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

enum WriteCmd {
    Line(Vec<u8>),
    Close,
}

/// Cheap, clonable handle to the single writer task.
///
/// Sends are synchronous (`UnboundedSender`) so they can be used from `Drop` (answering a
/// dropped [`crate::rpc::InboundRequest`]). The queue is unbounded on purpose: everything in
/// it is produced by this app (requests, answers, user messages), never by the engine, so its
/// size is bounded by user actions.
#[derive(Clone, Debug)]
pub struct LineWriter {
    tx: mpsc::UnboundedSender<WriteCmd>,
    closed: Arc<AtomicBool>,
}

impl std::fmt::Debug for WriteCmd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Line(l) => write!(f, "Line({} bytes)", l.len()),
            Self::Close => f.write_str("Close"),
        }
    }
}

impl LineWriter {
    /// Start the writer task over `writer`. Must be called inside a tokio runtime.
    pub fn spawn<W: AsyncWrite + Unpin + Send + 'static>(writer: W) -> (Self, JoinHandle<()>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let closed = Arc::new(AtomicBool::new(false));
        let task = tokio::spawn(write_loop(writer, rx, Arc::clone(&closed)));
        (Self { tx, closed }, task)
    }

    /// Serialise `message` as one line and queue it.
    pub fn send_json<T: Serialize + ?Sized>(&self, message: &T) -> Result<(), EngineError> {
        let mut bytes = serde_json::to_vec(message).map_err(|source| EngineError::Encode {
            context: "outbound message".to_owned(),
            source,
        })?;
        bytes.push(b'\n');
        self.send_bytes(bytes)
    }

    /// Queue an already-serialised line (a newline is appended if missing). The caller
    /// guarantees it contains no other newline.
    pub fn send_line(&self, line: impl Into<String>) -> Result<(), EngineError> {
        let mut bytes = line.into().into_bytes();
        if bytes.last() != Some(&b'\n') {
            bytes.push(b'\n');
        }
        self.send_bytes(bytes)
    }

    fn send_bytes(&self, bytes: Vec<u8>) -> Result<(), EngineError> {
        if self.is_closed() {
            return Err(EngineError::Closed("engine stdin is closed".to_owned()));
        }
        self.tx
            .send(WriteCmd::Line(bytes))
            .map_err(|_| EngineError::Closed("engine stdin is closed".to_owned()))
    }

    /// Flush what is queued, then close the stream (for a child: EOF on its stdin).
    /// Later sends fail with [`EngineError::Closed`].
    pub fn close(&self) {
        // Ignored error: the task is already gone, which is what we want.
        let _ = self.tx.send(WriteCmd::Close);
    }

    /// True once the writer task has stopped (closed, write error, or never started).
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire) || self.tx.is_closed()
    }
}

async fn write_loop<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut rx: mpsc::UnboundedReceiver<WriteCmd>,
    closed: Arc<AtomicBool>,
) {
    'outer: while let Some(cmd) = rx.recv().await {
        let mut next = Some(cmd);
        // Write everything already queued before one flush: fewer syscalls under bursts.
        while let Some(cmd) = next.take() {
            match cmd {
                WriteCmd::Line(bytes) => {
                    if let Err(err) = writer.write_all(&bytes).await {
                        tracing::debug!(error = %err, "engine stdin write failed");
                        break 'outer;
                    }
                }
                WriteCmd::Close => {
                    let _ = writer.flush().await;
                    break 'outer;
                }
            }
            next = rx.try_recv().ok();
        }
        if let Err(err) = writer.flush().await {
            tracing::debug!(error = %err, "engine stdin flush failed");
            break;
        }
    }
    closed.store(true, Ordering::Release);
    rx.close();
    // Shutdown then drop: for a ChildStdin this is the EOF the engine waits for.
    let _ = writer.shutdown().await;
}

async fn read_loop<R: AsyncRead + Unpin, D: Decode>(
    reader: R,
    max: usize,
    mut decoder: D,
    tx: mpsc::Sender<Vec<Inbound<D::Item>>>,
) {
    let mut framer = LineFramer::new(reader, max);
    loop {
        let mut batch = Vec::new();
        let more = framer
            .next_lines(|frame| {
                if let Some(event) = decode_frame(frame, max, &mut decoder) {
                    batch.push(event);
                }
            })
            .await;
        let more = match more {
            Ok(more) => more,
            Err(err) => {
                batch.push(Inbound::Diagnostic(Diagnostic::new(
                    DiagnosticSource::Stdout,
                    DiagnosticKind::ReadError,
                    format!("reading engine stdout failed: {err}"),
                )));
                false
            }
        };
        if !batch.is_empty() && tx.send(batch).await.is_err() {
            break; // nobody listens any more
        }
        if !more {
            break;
        }
    }
}

/// The two halves of a running JSON-line connection.
#[derive(Debug)]
pub struct Transport<T = Value> {
    /// Queue lines to the peer.
    pub writer: LineWriter,
    /// Decoded lines and diagnostics from the peer; closes at EOF.
    pub inbound: InboundRx<T>,
    reader_task: AbortOnDrop,
}

impl Transport {
    /// Start the reader and writer tasks; lines decode to JSON [`Value`]s. Must be called
    /// inside a tokio runtime.
    pub fn new<R, W>(reader: R, writer: W, config: &TransportConfig) -> Self
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        Self::with_decoder(reader, writer, config, JsonLines)
    }
}

impl<T: Send + 'static> Transport<T> {
    /// Start the reader and writer tasks with the engine's own line decoder. Must be called
    /// inside a tokio runtime.
    pub fn with_decoder<R, W, D>(reader: R, writer: W, config: &TransportConfig, decoder: D) -> Self
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
        D: Decode<Item = T>,
    {
        let (tx, rx) = mpsc::channel(config.inbound_capacity.max(1));
        let reader_task = AbortOnDrop::new(tokio::spawn(read_loop(
            reader,
            config.max_line_bytes,
            decoder,
            tx,
        )));
        // The writer task ends by itself when every LineWriter is gone or on close().
        let (writer, _writer_task) = LineWriter::spawn(writer);
        Self {
            writer,
            inbound: Batched::new(rx),
            reader_task,
        }
    }

    /// Split into parts; keep the guard alive as long as you read (dropping it stops the reader).
    pub fn into_parts(self) -> (LineWriter, InboundRx<T>, AbortOnDrop) {
        (self.writer, self.inbound, self.reader_task)
    }
}

#[cfg(test)]
#[path = "transport_tests.rs"]
mod tests;
