//! The skeleton the three fake model servers share (`fake_responses` for Codex,
//! `fake_messages` for Claude, `fake_chat` for opencode): a [`FakeServer`] on 127.0.0.1 whose
//! [`Scripted`] state hands out the [`Reply`]s a test queued, records every request and counts
//! abandoned streams. An [`Api`] adds only what its wire format makes different: its routes
//! and error bodies, and the SSE frames a reply's steps become.

use std::collections::VecDeque;
use std::fmt::Debug;
use std::marker::PhantomData;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{json, Value};

use crate::http::{
    data_frame, header_value, sse_frame, wait_until, Handler, HttpRequest, HttpResponse,
    HttpServer, SseSender,
};

/// One fake's state: replies `R` queued by the test, requests `Q` as received, disconnects and
/// an id sequence (shared with the stream tasks, hence the locks and atomics).
pub struct Scripted<R, Q> {
    queue: Mutex<VecDeque<R>>,
    /// Replies for the request whose newest message contains a needle, taken before the
    /// queue: two agents asking at once (a subagent beside the main one) each get theirs,
    /// whichever asks first.
    routed: Mutex<Vec<(String, R)>>,
    /// Sent with every scripted answer (rate-limit headers, ...).
    headers: Mutex<Vec<(String, String)>>,
    requests: Mutex<Vec<Q>>,
    disconnects: AtomicUsize,
    seq: AtomicUsize,
}

impl<R, Q> Default for Scripted<R, Q> {
    fn default() -> Self {
        Self {
            queue: Mutex::new(VecDeque::new()),
            routed: Mutex::new(Vec::new()),
            headers: Mutex::new(Vec::new()),
            requests: Mutex::new(Vec::new()),
            disconnects: AtomicUsize::new(0),
            seq: AtomicUsize::new(0),
        }
    }
}

/// A test that panicked while holding a lock must not hide the next assertion behind poison.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl<R, Q: Clone> Scripted<R, Q> {
    /// Queue the reply for the next scripted request.
    pub fn push(&self, reply: R) {
        lock(&self.queue).push_back(reply);
    }

    /// Headers every scripted answer from now on carries (the provider's rate-limit headers).
    pub fn set_response_headers(&self, headers: &[(&str, &str)]) {
        *lock(&self.headers) = headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
    }

    fn response_headers(&self) -> Vec<(String, String)> {
        lock(&self.headers).clone()
    }

    /// The next queued reply, if any is left.
    pub fn pop(&self) -> Option<R> {
        lock(&self.queue).pop_front()
    }

    /// `reply` answers the first request whose newest message contains `needle`.
    pub fn push_routed(&self, needle: &str, reply: R) {
        lock(&self.routed).push((needle.to_string(), reply));
    }

    /// The routed reply whose needle `newest` contains (the earliest pushed), taken.
    pub fn take_routed(&self, newest: &str) -> Option<R> {
        let mut routed = lock(&self.routed);
        let i = routed
            .iter()
            .position(|(needle, _)| newest.contains(needle))?;
        Some(routed.remove(i).1)
    }

    pub fn record(&self, request: Q) {
        lock(&self.requests).push(request);
    }

    /// Every request received, in order.
    pub fn requests(&self) -> Vec<Q> {
        lock(&self.requests).clone()
    }

    /// How many recorded requests `keep` accepts (without copying them).
    pub fn count_requests(&self, keep: impl Fn(&Q) -> bool) -> usize {
        lock(&self.requests).iter().filter(|q| keep(q)).count()
    }

    /// A stream the client abandoned before its end.
    pub fn note_disconnect(&self) {
        self.disconnects.fetch_add(1, Ordering::SeqCst);
    }

    pub fn disconnects(&self) -> usize {
        self.disconnects.load(Ordering::SeqCst)
    }

    /// 0, 1, 2, ... (response and request ids).
    pub fn next_seq(&self) -> usize {
        self.seq.fetch_add(1, Ordering::SeqCst)
    }
}

/// One step of a streamed reply: the script of the Chat Completions and Messages fakes, and
/// what [`Reply`]'s shared constructors build (the Responses fake converts it to its own).
#[derive(Debug, Clone)]
pub enum Step {
    /// Assistant text streaming in these pieces.
    Text(Vec<String>),
    /// One text (one message or block) whose pieces go out this far apart: a paced stream.
    PacedText(Vec<String>, Duration),
    /// Reasoning streaming in these pieces (Chat Completions: `delta.reasoning_content`;
    /// Messages: a thinking block, then its signature).
    Reasoning(Vec<String>),
    /// A call of the tool `name`; the JSON `input` streams in three pieces.
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    Sleep(Duration),
    /// Stop here without the end of the stream, keeping it open until the client hangs up
    /// (bounded at 120 s so a forgotten stream cannot keep a test alive).
    Hang,
}

/// A scripted answer: a stream of the API's steps, or an HTTP error with the API's error body.
#[derive(Debug, Clone)]
pub enum Reply<A: Api> {
    /// 200 + SSE: the steps, then the API's end of stream (unless a step hangs).
    Stream(Vec<A::Step>),
    Status(u16, String),
}

impl<A: Api> Reply<A> {
    fn steps(steps: Vec<Step>) -> Self {
        Self::Stream(steps.into_iter().map(A::Step::from).collect())
    }

    pub fn text(pieces: &[&str]) -> Self {
        Self::steps(vec![Step::Text(owned(pieces))])
    }

    pub fn reasoning_then_text(reasoning: &[&str], text: &[&str]) -> Self {
        Self::steps(vec![
            Step::Reasoning(owned(reasoning)),
            Step::Text(owned(text)),
        ])
    }

    /// A sentence, then one call of the tool `name` with `input`.
    pub fn tool(id: &str, name: &str, input: Value) -> Self {
        Self::steps(vec![
            Step::Text(owned(&["I will ", "use a tool."])),
            Step::ToolUse {
                id: id.into(),
                name: name.into(),
                input,
            },
        ])
    }

    /// `n` text pieces, `every` apart, then hang: for interrupt tests.
    pub fn slow_text(n: usize, every: Duration) -> Self {
        let mut steps = slow_steps::<A>(n, every);
        steps.push(Step::Hang);
        Self::steps(steps)
    }

    /// `n` text pieces (each its own message where the API has messages), `every` apart, then
    /// a normal end: for runs that overlap in time.
    pub fn slow_text_then_end(n: usize, every: Duration) -> Self {
        Self::steps(slow_steps::<A>(n, every))
    }

    pub fn status(code: u16, message: &str) -> Self {
        Self::Status(code, message.into())
    }

    /// One message of `n` pieces (`chunk0 chunk1 …`), `every` apart, then a normal end.
    pub fn paced_message(n: usize, every: Duration) -> Self {
        Self::paced_then_tool((0..n).map(A::slow_piece).collect(), every, None)
    }

    /// `text`, its pieces `every` apart, then (when `then` is given) a call of the tool
    /// `then.1` with input `then.2`: one step of a long, paced agent turn.
    pub fn paced_then_tool(
        text: Vec<String>,
        every: Duration,
        then: Option<(&str, &str, Value)>,
    ) -> Self {
        let mut steps = vec![Step::PacedText(text, every)];
        if let Some((id, name, input)) = then {
            steps.push(Step::ToolUse {
                id: id.into(),
                name: name.into(),
                input,
            });
        }
        Self::steps(steps)
    }
}

/// An API whose agent runs commands with a `bash`-like tool of this name.
pub trait BashTool: Api {
    const BASH: &'static str;
}

impl<A: BashTool> Reply<A> {
    /// The model asks to run `command` with the agent's bash tool.
    pub fn bash(id: &str, command: &str) -> Self {
        Self::tool(
            id,
            A::BASH,
            json!({"command": command, "description": "Run a command"}),
        )
    }
}

fn slow_steps<A: Api>(n: usize, every: Duration) -> Vec<Step> {
    (0..n)
        .flat_map(|i| [Step::Text(vec![A::slow_piece(i)]), Step::Sleep(every)])
        .collect()
}

fn owned(pieces: &[&str]) -> Vec<String> {
    pieces.iter().map(|s| s.to_string()).collect()
}

/// Split a string into about `n` pieces on char boundaries (tool input streams in parts).
pub fn pieces(s: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let size = chars.len().div_ceil(n.max(1)).max(1);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

/// One request as the fake received it. `A` gives each API its own readers (see its module),
/// so that a name means what that API's body holds.
#[derive(Debug, Clone)]
pub struct Recorded<A> {
    pub method: String,
    pub path: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The JSON body (`Value::Null` if it was not JSON).
    pub body: Value,
    api: PhantomData<A>,
}

impl<A> Recorded<A> {
    /// A header's value (names are lower-cased).
    pub fn header(&self, name: &str) -> Option<&str> {
        header_value(&self.headers, name)
    }
}

impl<A: Api> Recorded<A> {
    /// One of the agent's model calls (see [`Api::is_model_call`]).
    pub fn is_model_call(&self) -> bool {
        A::is_model_call(self)
    }
}

impl<A> From<HttpRequest> for Recorded<A> {
    fn from(req: HttpRequest) -> Self {
        Self {
            body: serde_json::from_slice(&req.body).unwrap_or(Value::Null),
            method: req.method,
            path: req.path,
            headers: req.headers,
            api: PhantomData,
        }
    }
}

/// What a fake server of API `A` keeps.
pub type State<A> = Scripted<Reply<A>, Recorded<A>>;

impl<A: Api> State<A> {
    /// The next queued reply; an empty script still answers, so a test that queued too few
    /// sees these words in the output instead of a hanging client.
    pub fn next_reply(&self) -> Reply<A> {
        self.pop()
            .unwrap_or_else(|| Reply::text(&["(fake) no script left"]))
    }

    /// The reply routed to a request whose newest message is `newest`, else the next queued.
    pub fn reply_for(&self, newest: &str) -> Reply<A> {
        self.take_routed(newest)
            .unwrap_or_else(|| self.next_reply())
    }
}

/// What one model API adds to the shared [`FakeServer`]: where its wire format differs. A
/// marker type (`Debug` and `Clone` so that [`Reply`] and [`Recorded`] can derive them).
pub trait Api: Debug + Clone + Send + Sync + 'static {
    /// A step of its replies; [`Step`] where the API has nothing of its own.
    type Step: From<Step> + Debug + Clone + Send + Sync + 'static;
    /// What the client's base URL ends with (it appends the rest of the endpoint's path).
    const BASE_PATH: &'static str;
    /// One of the agent's model calls (what `model_requests` lists).
    fn is_model_call(req: &Recorded<Self>) -> bool;
    /// The answer to `req` (already recorded); a scripted one goes through [`play`].
    fn answer(state: &Arc<State<Self>>, req: &Recorded<Self>) -> HttpResponse;
    /// The JSON body of a scripted error status; by default OpenAI's (Chat Completions and
    /// Responses alike).
    fn error_body(code: u16, message: &str) -> Value {
        json!({"error": {"message": message, "type": "fake_error", "code": code.to_string()}})
    }
    /// The frames (and pauses) of a stream of `steps`, with ids made from `n`.
    fn stream(out: &mut Outbox, n: usize, steps: Vec<Self::Step>);
    /// The `i`-th piece of the slow replies (tests look for these words in the output).
    fn slow_piece(i: usize) -> String {
        format!("chunk{i:02} ")
    }
}

/// Answers with `reply`: its error status, or a stream written in the background (so the
/// response head goes out first) that counts a disconnect when the client leaves early.
pub fn play<A: Api>(state: &Arc<State<A>>, reply: Reply<A>, n: usize) -> HttpResponse {
    let mut resp = play_reply(state, reply, n);
    resp.headers.extend(state.response_headers());
    resp
}

fn play_reply<A: Api>(state: &Arc<State<A>>, reply: Reply<A>, n: usize) -> HttpResponse {
    match reply {
        Reply::Status(code, message) => HttpResponse::json(code, &A::error_body(code, &message)),
        Reply::Stream(steps) => {
            let mut out = Outbox::default();
            A::stream(&mut out, n, steps);
            let (resp, tx) = HttpResponse::sse();
            let state = state.clone();
            tokio::spawn(async move {
                if !out.write(&tx).await {
                    state.note_disconnect();
                }
            });
            resp
        }
    }
}

enum Out {
    Frame(Vec<u8>),
    Sleep(Duration),
    Hang,
}

/// What a stream writes, in order: its frames and its pauses. A pause is where the client
/// has read everything before it, and where a test can interrupt.
#[derive(Default)]
pub struct Outbox {
    items: Vec<Out>,
}

impl Outbox {
    /// An `event: TY` frame; both event-named APIs repeat the name as the data's `type`.
    pub fn event(&mut self, ty: &str, mut data: Value) {
        data["type"] = json!(ty);
        self.items.push(Out::Frame(sse_frame(ty, &data)));
    }

    /// A frame without an event name (Chat Completions).
    pub fn data(&mut self, data: &str) {
        self.items.push(Out::Frame(data_frame(data)));
    }

    pub fn sleep(&mut self, every: Duration) {
        self.items.push(Out::Sleep(every));
    }

    /// Nothing after this is written; the stream stays open until the client hangs up.
    pub fn hang(&mut self) {
        self.items.push(Out::Hang);
    }

    /// `false` if the client went away before the end (a hang never ends).
    async fn write(self, tx: &SseSender) -> bool {
        for item in self.items {
            match item {
                Out::Frame(frame) => {
                    if !tx.raw(frame).await {
                        return false;
                    }
                }
                Out::Sleep(every) => {
                    tokio::select! {
                        _ = tokio::time::sleep(every) => {}
                        _ = tx.closed() => return false,
                    }
                }
                Out::Hang => {
                    // Bounded so a forgotten stream cannot keep a test process alive.
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_secs(120)) => {}
                        _ = tx.closed() => {}
                    }
                    return false;
                }
            }
        }
        true
    }
}

/// A fake model server of API `A` on 127.0.0.1; stops when dropped.
pub struct FakeServer<A: Api> {
    server: HttpServer,
    state: Arc<State<A>>,
}

impl<A: Api> FakeServer<A> {
    pub async fn start() -> std::io::Result<Self> {
        let state = Arc::new(State::<A>::default());
        let s = state.clone();
        let handler: Handler = Arc::new(move |req| {
            let s = s.clone();
            Box::pin(async move {
                let rec = Recorded::from(req);
                s.record(rec.clone());
                A::answer(&s, &rec)
            })
        });
        let server = HttpServer::start(handler).await?;
        Ok(Self { server, state })
    }

    /// `http://127.0.0.1:PORT` and the API's [`Api::BASE_PATH`]: what the client is given.
    pub fn base_url(&self) -> String {
        format!("{}{}", self.server.base_url(), A::BASE_PATH)
    }

    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }

    /// Queue the reply for the next scripted request.
    /// Headers every scripted answer from now on carries (the provider's rate-limit headers).
    pub fn set_response_headers(&self, headers: &[(&str, &str)]) {
        self.state.set_response_headers(headers);
    }

    pub fn push(&self, reply: Reply<A>) {
        self.state.push(reply);
    }

    /// Answer the first model request whose newest message contains `needle` with `reply`,
    /// before anything queued. The Messages fake matches the last of `messages`, the
    /// Responses fake the last `input` item; the Chat fake answers from the queue only.
    pub fn push_routed(&self, needle: &str, reply: Reply<A>) {
        self.state.push_routed(needle, reply);
    }

    /// Every request received, in order.
    pub fn requests(&self) -> Vec<Recorded<A>> {
        self.state.requests()
    }

    /// Only the agent's model calls, in order.
    pub fn model_requests(&self) -> Vec<Recorded<A>> {
        self.requests()
            .into_iter()
            .filter(A::is_model_call)
            .collect()
    }

    /// Streams the client abandoned before the end (interrupts, crashes).
    pub fn disconnects(&self) -> usize {
        self.state.disconnects()
    }

    /// Whether `n` requests of any kind have arrived within `timeout`.
    pub async fn wait_for_requests(&self, n: usize, timeout: Duration) -> bool {
        wait_until(timeout, || self.state.count_requests(|_| true) >= n).await
    }

    /// Whether `n` model calls have arrived within `timeout`.
    pub async fn wait_for_model_requests(&self, n: usize, timeout: Duration) -> bool {
        wait_until(timeout, || self.state.count_requests(A::is_model_call) >= n).await
    }
}

/// Where every fake's unit test starts: a fake of `A` scripted with reasoning then text, a
/// `bash` tool call and a 500 "boom", and the raw answers to `body` posted to `path` four times
/// (the fourth finds the script empty). What all APIs share is checked here; the caller checks
/// its wire format in the answers.
#[cfg(test)]
pub(crate) async fn common_script<A: Api>(path: &str, body: &str) -> (FakeServer<A>, Vec<String>) {
    let fake = FakeServer::<A>::start().await.unwrap();
    fake.push(Reply::reasoning_then_text(&["hmm"], &["Hel", "lo"]));
    fake.push(Reply::tool(
        "call_1",
        "bash",
        json!({"command": "ls -la", "description": "Run a command"}),
    ));
    fake.push(Reply::status(500, "boom"));
    let mut out = Vec::new();
    for _ in 0..4 {
        out.push(crate::http::post(fake.addr(), path, body).await);
    }
    assert!(out[0].starts_with("HTTP/1.1 200"), "{}", out[0]);
    assert!(
        out[0].contains("content-type: text/event-stream"),
        "{}",
        out[0]
    );
    assert!(out[0].contains("transfer-encoding: chunked"), "{}", out[0]);
    assert!(
        out[2].starts_with("HTTP/1.1 500") && out[2].contains("boom"),
        "{}",
        out[2]
    );
    assert!(out[3].contains("(fake) no script left"), "{}", out[3]);
    assert_eq!(fake.model_requests().len(), 4);
    (fake, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_in_order_requests_recorded() {
        let s: Scripted<&str, u32> = Scripted::default();
        s.push("a");
        s.push("b");
        assert_eq!(s.pop(), Some("a"));
        s.record(1);
        s.record(2);
        assert_eq!(s.pop(), Some("b"));
        assert_eq!(s.pop(), None);
        assert_eq!(s.requests(), vec![1, 2]);
        assert_eq!(s.count_requests(|q| *q > 1), 1);
        assert_eq!((s.next_seq(), s.next_seq()), (0, 1));
        s.note_disconnect();
        assert_eq!(s.disconnects(), 1);
    }
}
