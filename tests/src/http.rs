//! A minimal HTTP/1.1 server over tokio for the fake model APIs (OpenAI Responses and Chat
//! Completions, Anthropic Messages; their shared skeleton is [`crate::script`]). Binds
//! 127.0.0.1:0 only. Keep-alive, `Content-Length` and chunked request bodies, and chunked
//! streaming responses (for SSE). Only what the engines' HTTP clients need; no TLS, no
//! pipelining beyond sequential keep-alive.
//!
//! A handler turns each [`HttpRequest`] into an [`HttpResponse`]; a streaming body is an mpsc
//! receiver of byte chunks, so a handler can pace a stream (slow streams for interrupt tests)
//! and learn that the client went away (the send fails).

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};

/// Largest request body accepted (codex sends whole conversations, images as data URLs).
const MAX_BODY: usize = 64 * 1024 * 1024;
/// Largest header section accepted.
const MAX_HEAD: usize = 64 * 1024;

#[derive(Debug, Clone)]
pub struct HttpRequest {
    pub method: String,
    pub path: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl HttpRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        header_value(&self.headers, name)
    }
}

/// A header's value from lower-cased `headers` (shared with the fakes' recorded requests,
/// which keep the headers but not the request).
pub fn header_value<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    let name = name.to_ascii_lowercase();
    headers
        .iter()
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.as_str())
}

pub enum Body {
    Full(Vec<u8>),
    /// Sent with `Transfer-Encoding: chunked`, one HTTP chunk per item, until the sender drops.
    Stream(mpsc::Receiver<Vec<u8>>),
}

pub struct HttpResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Body,
}

impl HttpResponse {
    pub fn full(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body: Body::Full(body.into()),
        }
    }

    pub fn json(status: u16, value: &serde_json::Value) -> Self {
        Self::full(status, "application/json", value.to_string())
    }

    /// An SSE response fed by the returned sender.
    pub fn sse() -> (Self, SseSender) {
        let (tx, rx) = mpsc::channel(64);
        let resp = Self {
            status: 200,
            headers: vec![
                ("content-type".into(), "text/event-stream".into()),
                ("cache-control".into(), "no-cache".into()),
            ],
            body: Body::Stream(rx),
        };
        (resp, SseSender { tx })
    }
}

/// Writes SSE frames (`event: T\ndata: JSON\n\n`) into a streaming response.
#[derive(Clone)]
pub struct SseSender {
    tx: mpsc::Sender<Vec<u8>>,
}

impl SseSender {
    /// `false` once the client has gone away.
    pub async fn event(&self, event: &str, data: &serde_json::Value) -> bool {
        self.tx.send(sse_frame(event, data)).await.is_ok()
    }

    pub async fn raw(&self, bytes: Vec<u8>) -> bool {
        self.tx.send(bytes).await.is_ok()
    }

    /// Resolves when the client has disconnected (the connection task dropped the receiver).
    pub async fn closed(&self) {
        self.tx.closed().await
    }
}

pub fn sse_frame(event: &str, data: &serde_json::Value) -> Vec<u8> {
    format!("event: {event}\ndata: {data}\n\n").into_bytes()
}

/// One SSE frame as the OpenAI Chat Completions API writes it: no `event:` line.
pub fn data_frame(data: &str) -> Vec<u8> {
    format!("data: {data}\n\n").into_bytes()
}

pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;
pub type Handler = Arc<dyn Fn(HttpRequest) -> BoxFuture<HttpResponse> + Send + Sync>;

/// A running server; stops when dropped.
pub struct HttpServer {
    addr: SocketAddr,
    stop: watch::Sender<bool>,
}

impl HttpServer {
    pub async fn start(handler: Handler) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let (stop, stop_rx) = watch::channel(false);
        tokio::spawn(accept_loop(listener, handler, stop_rx));
        Ok(Self { addr, stop })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

async fn accept_loop(listener: TcpListener, handler: Handler, mut stop: watch::Receiver<bool>) {
    loop {
        tokio::select! {
            _ = stop.changed() => return,
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                let handler = handler.clone();
                let stop = stop.clone();
                tokio::spawn(async move {
                    let _ = serve_connection(stream, handler, stop).await;
                });
            }
        }
    }
}

async fn serve_connection(
    stream: TcpStream,
    handler: Handler,
    mut stop: watch::Receiver<bool>,
) -> std::io::Result<()> {
    let _ = stream.set_nodelay(true);
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    loop {
        let req = tokio::select! {
            _ = stop.changed() => return Ok(()),
            req = read_request(&mut read) => req?,
        };
        let Some(req) = req else { return Ok(()) };
        let close = req
            .header("connection")
            .is_some_and(|c| c.eq_ignore_ascii_case("close"));
        let resp = handler(req).await;
        let mut head = format!("HTTP/1.1 {} {}\r\n", resp.status, reason(resp.status));
        for (k, v) in &resp.headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        match resp.body {
            Body::Full(body) => {
                head.push_str(&format!("content-length: {}\r\n\r\n", body.len()));
                write.write_all(head.as_bytes()).await?;
                write.write_all(&body).await?;
            }
            Body::Stream(mut rx) => {
                head.push_str("transfer-encoding: chunked\r\n\r\n");
                write.write_all(head.as_bytes()).await?;
                write.flush().await?;
                loop {
                    // Watch the read half too: a client that hangs up mid-stream must be
                    // noticed even while the producer is idle (slow/hanging streams).
                    let mut probe = [0u8; 1];
                    let chunk = tokio::select! {
                        _ = stop.changed() => return Ok(()),
                        chunk = rx.recv() => chunk,
                        n = read.read(&mut probe) => match n {
                            Ok(0) | Err(_) => return Ok(()),
                            // Pipelined bytes during a stream: not supported, treat as hang-up.
                            Ok(_) => return Ok(()),
                        },
                    };
                    let Some(chunk) = chunk else { break };
                    if chunk.is_empty() {
                        continue;
                    }
                    write
                        .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
                        .await?;
                    write.write_all(&chunk).await?;
                    write.write_all(b"\r\n").await?;
                    write.flush().await?;
                }
                write.write_all(b"0\r\n\r\n").await?;
            }
        }
        write.flush().await?;
        if close {
            return Ok(());
        }
    }
}

async fn read_line<R: AsyncBufReadExt + Unpin>(
    r: &mut R,
    budget: &mut usize,
) -> std::io::Result<Option<String>> {
    let mut line = Vec::new();
    let n = r.read_until(b'\n', &mut line).await?;
    if n == 0 {
        return Ok(None);
    }
    *budget = budget
        .checked_sub(n)
        .ok_or_else(|| invalid("header section too large"))?;
    while line.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
        line.pop();
    }
    Ok(Some(String::from_utf8_lossy(&line).into_owned()))
}

fn invalid(msg: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, msg.to_owned())
}

/// `Ok(None)` on a clean end of connection before a request starts.
async fn read_request<R: AsyncBufReadExt + Unpin>(
    r: &mut R,
) -> std::io::Result<Option<HttpRequest>> {
    let mut budget = MAX_HEAD;
    let Some(request_line) = read_line(r, &mut budget).await? else {
        return Ok(None);
    };
    let mut parts = request_line.split_whitespace();
    let method = parts
        .next()
        .ok_or_else(|| invalid("empty request line"))?
        .to_owned();
    let path = parts.next().ok_or_else(|| invalid("no path"))?.to_owned();
    let mut headers = Vec::new();
    loop {
        let line = read_line(r, &mut budget)
            .await?
            .ok_or_else(|| invalid("eof in headers"))?;
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let mut body = Vec::new();
    if header("transfer-encoding").is_some_and(|t| t.to_ascii_lowercase().contains("chunked")) {
        loop {
            let mut b = MAX_HEAD;
            let size_line = read_line(r, &mut b)
                .await?
                .ok_or_else(|| invalid("eof in chunk"))?;
            let size_hex = size_line.split(';').next().unwrap_or("").trim();
            let size =
                usize::from_str_radix(size_hex, 16).map_err(|_| invalid("bad chunk size"))?;
            if size == 0 {
                // Trailers, then the empty line.
                while !read_line(r, &mut b).await?.unwrap_or_default().is_empty() {}
                break;
            }
            if body.len() + size > MAX_BODY {
                return Err(invalid("body too large"));
            }
            let start = body.len();
            body.resize(start + size, 0);
            r.read_exact(&mut body[start..]).await?;
            let mut crlf = [0u8; 2];
            r.read_exact(&mut crlf).await?;
        }
    } else if let Some(len) = header("content-length") {
        let len: usize = len.parse().map_err(|_| invalid("bad content-length"))?;
        if len > MAX_BODY {
            return Err(invalid("body too large"));
        }
        body.resize(len, 0);
        r.read_exact(&mut body).await?;
    }
    Ok(Some(HttpRequest {
        method,
        path,
        headers,
        body,
    }))
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// Waits for `cond` up to `timeout`, polling; `false` on timeout. For test assertions.
pub async fn wait_until(timeout: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        if cond() {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A raw `connection: close` POST and the whole raw answer, for the fakes' own unit tests
/// (they check the bytes on the wire, so no HTTP client library in between).
#[cfg(test)]
pub(crate) async fn post(addr: SocketAddr, path: &str, body: &str) -> String {
    let req = format!(
        "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    out
}

/// Reads from `s` until what came so far contains `marker` (the fakes' unit tests on a raw
/// connection); panics if the server closes first.
#[cfg(test)]
pub(crate) async fn read_until(s: &mut TcpStream, marker: &str) -> String {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&got).contains(marker) {
        let n = s.read(&mut buf).await.unwrap();
        let so_far = String::from_utf8_lossy(&got);
        assert!(n > 0, "closed before {marker:?}: {so_far}");
        got.extend_from_slice(&buf[..n]);
    }
    String::from_utf8_lossy(&got).into_owned()
}
