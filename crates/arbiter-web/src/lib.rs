//! The spectator page: a game shown live to any number of browsers.
//!
//! [`serve`] starts a small web server on its own thread and gives back a
//! [`Spectators`] handle and a [`WebOutput`], one of the game session's
//! outputs. After each step the output builds the state a page draws
//! ([`state`]) and publishes it, with the step's events, to a broadcast
//! channel; each browser's connection reads from it. Publishing never
//! waits for a browser: a browser that falls more than [`CLIENT_BUFFER`]
//! messages behind (stalled, or too slow) is dropped, and the referee goes
//! on as if none were there.
//!
//! What is served (read-only: nothing a browser sends reaches the game):
//! - `/`, `/app.js`, `/style.css`: the page, embedded in the binary;
//! - `/live`: server-sent events, `state` (the whole state, first on
//!   connecting, then after each step);
//! - `/events`: server-sent events, one per game event, as `watch --json`
//!   prints them: every event so far on connecting, then each as it comes;
//! - `/state.json`: the state now;
//! - `/game.pgn`: the game so far (DoubleCross), as `arbiter export`
//!   writes it; 404 for games without a standard record.
//!
//! Every other path is 404: there is no file system behind the server.
//! Connections are capped in all and per address, and closed when their
//! request never comes, they idle, or they stop reading ([`guard`]): a
//! page that watches the game can never stop it.
//! Built on axum (tokio's HTTP stack), the web framework a Rust engineer
//! expects; see docs/architecture.md.

mod guard;
pub mod state;

pub use guard::{HEADER_TIMEOUT, IDLE_TIMEOUT, Limits, WRITE_STALL};

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, RwLock};

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures_util::stream::{self, Stream};
use tokio::sync::broadcast;

use arbiter_core::event::Event;
use arbiter_core::live::Health;
use arbiter_core::observation::Observation;
use arbiter_core::referee::AnyReferee;
use arbiter_core::session::{Judged, Output, OutputError};

use state::Tracker;

/// Messages a browser may fall behind by before it is dropped.
pub const CLIENT_BUFFER: usize = 1024;

/// The address `--serve` takes when given none: loopback, a fixed port.
pub const DEFAULT_ADDR: &str = "127.0.0.1:7979";

const INDEX: &str = include_str!("../page/index.html");
const APP_JS: &str = include_str!("../page/app.js");
const STYLE: &str = include_str!("../page/style.css");

/// A server that could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("--serve {addr}: cannot listen there: {why}")]
    Bind { addr: String, why: String },
    #[error("--serve {0}: not an address such as 127.0.0.1:7979 or 0.0.0.0:8080")]
    Address(String),
}

/// One message to the browsers.
#[derive(Clone, Debug)]
enum Message {
    /// One game event, as a JSON line.
    Event(Arc<str>),
    /// The whole state after a step.
    State(Arc<str>),
}

/// What the server shares with the game's output.
struct Hub {
    /// Every event so far, as JSON lines, and the sender: changed under
    /// one lock, so a browser that connects gets the history and then
    /// every later message, none twice, none missed.
    history: RwLock<(Vec<Arc<str>>, broadcast::Sender<Message>)>,
    state: RwLock<Arc<str>>,
    pgn: RwLock<Option<String>>,
}

impl Hub {
    fn publish(&self, events: &[Event], state: String, pgn: Option<String>) {
        let state: Arc<str> = state.into();
        *self.state.write().expect("the state lock") = state.clone();
        *self.pgn.write().expect("the record lock") = pgn;
        let mut guard = self.history.write().expect("the history lock");
        let (history, tx) = &mut *guard;
        for e in events {
            let line: Arc<str> = e.to_json_line().into();
            history.push(line.clone());
            // No browser listening is no error.
            let _ = tx.send(Message::Event(line));
        }
        let _ = tx.send(Message::State(state));
    }

    /// A new state with no events (the input's health changed).
    fn publish_state(&self, state: String) {
        let state: Arc<str> = state.into();
        *self.state.write().expect("the state lock") = state.clone();
        let guard = self.history.read().expect("the history lock");
        let _ = guard.1.send(Message::State(state));
    }

    /// The events so far, and a receiver for everything after them.
    fn subscribe(&self) -> (Vec<Arc<str>>, broadcast::Receiver<Message>) {
        let guard = self.history.read().expect("the history lock");
        (guard.0.clone(), guard.1.subscribe())
    }
}

/// The game session's output that feeds the page.
pub struct WebOutput {
    hub: Arc<Hub>,
    tracker: Tracker,
    /// The last state published, to publish again when only the input's
    /// trouble changes.
    last: Option<serde_json::Value>,
    /// The input's trouble, if it has one: a camera reconnecting or
    /// stalled ("reconnecting", why). The badge says so.
    trouble: Option<(&'static str, String)>,
}

impl WebOutput {
    fn publish(
        &mut self,
        step: usize,
        events: &[Event],
        seen: Option<&arbiter_core::table::Table>,
        referee: &dyn AnyReferee,
    ) {
        self.tracker.take(step, events, seen, referee);
        self.send(events, referee);
    }

    /// The events, and the state as the tracker now has it, to the browsers.
    fn send(&mut self, events: &[Event], referee: &dyn AnyReferee) {
        let mut state = self.tracker.state(referee);
        state["trouble"] = self.trouble_json();
        self.hub
            .publish(events, state.to_string(), referee.record());
        self.last = Some(state);
    }

    fn trouble_json(&self) -> serde_json::Value {
        match &self.trouble {
            Some((kind, why)) => serde_json::json!({ "kind": kind, "why": why }),
            None => serde_json::Value::Null,
        }
    }
}

impl Output for WebOutput {
    fn started(&mut self, events: &[Event], referee: &dyn AnyReferee) -> Result<(), OutputError> {
        self.tracker.start(events);
        self.send(events, referee);
        Ok(())
    }

    fn judged(&mut self, j: &Judged<'_>) -> Result<(), OutputError> {
        let seen = match j.observation {
            Observation::Table(t) => Some(t),
            _ => None,
        };
        self.publish(j.step, j.events, seen, j.referee);
        Ok(())
    }

    /// A resumed game's history: the page shows the game as it stands.
    fn replayed(&mut self, j: &Judged<'_>) {
        let _ = self.judged(j);
    }

    /// A camera that stalls or reconnects is said on the page's badge, as
    /// on the view's status line; frames again clear it.
    fn health(&mut self, health: &Health) {
        let trouble = match health {
            Health::Reconnecting(why) => Some(("reconnecting", why.clone())),
            Health::Stalled(why) => Some(("stalled", why.clone())),
            Health::Connected | Health::Busy | Health::Unreadable => None,
            Health::Ended => return,
        };
        if trouble == self.trouble {
            return;
        }
        self.trouble = trouble;
        let trouble = self.trouble_json();
        if let Some(state) = self.last.as_mut() {
            state["trouble"] = trouble;
            self.hub.publish_state(state.to_string());
        }
    }

    fn finished(
        &mut self,
        step: usize,
        events: &[Event],
        referee: &dyn AnyReferee,
    ) -> Result<(), OutputError> {
        self.tracker.input_ended();
        self.publish(step, events, None, referee);
        Ok(())
    }
}

/// The running server: where it listens. It serves until the process
/// ends.
pub struct Spectators {
    pub addr: SocketAddr,
}

impl Spectators {
    /// The page's address, as a person types it.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Whether browsers on other machines can reach it.
    pub fn on_the_network(&self) -> bool {
        !self.addr.ip().is_loopback()
    }
}

/// Starts serving the page at `addr` (such as `127.0.0.1:7979`; port 0
/// takes a free one) on a thread of its own.
pub fn serve(addr: &str) -> Result<(Spectators, WebOutput), ServeError> {
    serve_within(addr, Limits::for_this_process())
}

/// [`serve`] with the connection caps given.
pub fn serve_within(addr: &str, limits: Limits) -> Result<(Spectators, WebOutput), ServeError> {
    let parsed: SocketAddr = addr
        .parse()
        .map_err(|_| ServeError::Address(addr.to_string()))?;
    let bind_error = |e: std::io::Error| ServeError::Bind {
        addr: addr.to_string(),
        why: e.to_string(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(bind_error)?;
    let listener = listen(parsed, &runtime).map_err(bind_error)?;
    let local = listener.local_addr().map_err(bind_error)?;
    let (tx, _) = broadcast::channel(CLIENT_BUFFER);
    let hub = Arc::new(Hub {
        history: RwLock::new((Vec::new(), tx)),
        state: RwLock::new(Arc::from("{}")),
        pgn: RwLock::new(None),
    });
    let served = hub.clone();
    std::thread::Builder::new()
        .name("spectators".into())
        .spawn(move || runtime.block_on(guard::serve(listener, router(served), limits)))
        .map_err(bind_error)?;
    Ok((
        Spectators { addr: local },
        WebOutput {
            hub,
            tracker: Tracker::default(),
            last: None,
            trouble: None,
        },
    ))
}

/// Connections the kernel may hold for the page before it accepts them.
///
/// A club's fifty browsers opening the page at once (or the load test's
/// five hundred) arrive faster than one thread accepts them; past the
/// queue the kernel drops them, and a browser sees "connection reset".
/// The standard library listens with a queue of 128; the system caps this
/// at `net.core.somaxconn`.
const ACCEPT_QUEUE: u32 = 1024;

/// Binds `addr` with a long accept queue, on `runtime`'s reactor.
fn listen(
    addr: SocketAddr,
    runtime: &tokio::runtime::Runtime,
) -> std::io::Result<tokio::net::TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    // As the standard library does: a restarted referee takes its port
    // back at once rather than after the old connections' TIME_WAIT.
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    let _reactor = runtime.enter();
    socket.listen(ACCEPT_QUEUE)
}

fn router(hub: Arc<Hub>) -> Router {
    Router::new()
        .route("/", get(index))
        .route(
            "/app.js",
            get(|| async { page(APP_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/style.css",
            get(|| async { page(STYLE, "text/css; charset=utf-8") }),
        )
        .route("/state.json", get(state_json))
        .route("/game.pgn", get(game_pgn))
        .route("/live", get(live))
        .route("/events", get(events))
        .fallback(|| async { (StatusCode::NOT_FOUND, "not found\n") })
        .with_state(hub)
}

/// The page, with the state as it is now inlined: drawn at once.
async fn index(State(hub): State<Arc<Hub>>) -> Response {
    let state = hub.state.read().expect("the state lock").clone();
    // Inside a script element only `</` could end it early.
    let inline = format!(
        "<script id=\"state\" type=\"application/json\">{}</script>",
        state.replace("</", "<\\/")
    );
    let body = INDEX.replace("<!--STATE-->", &inline);
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

fn page(body: &'static str, kind: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

async fn state_json(State(hub): State<Arc<Hub>>) -> Response {
    let state = hub.state.read().expect("the state lock").clone();
    (
        [(header::CONTENT_TYPE, "application/json")],
        state.to_string(),
    )
        .into_response()
}

async fn game_pgn(State(hub): State<Arc<Hub>>) -> Response {
    match hub.pgn.read().expect("the record lock").clone() {
        Some(pgn) => ([(header::CONTENT_TYPE, "application/x-chess-pgn")], pgn).into_response(),
        None => (StatusCode::NOT_FOUND, "this game has no standard record\n").into_response(),
    }
}

/// The state, first as it is now, then after each step.
async fn live(
    State(hub): State<Arc<Hub>>,
) -> Sse<impl Stream<Item = Result<SseEvent, Infallible>>> {
    let (_, rx) = hub.subscribe();
    let now = hub.state.read().expect("the state lock").clone();
    let first = stream::iter([Ok(SseEvent::default().event("state").data(&now))]);
    let rest = follow(rx, |m| match m {
        Message::State(s) => Some(SseEvent::default().event("state").data(&s)),
        Message::Event(_) => None,
    });
    Sse::new(futures_util::StreamExt::chain(first, rest))
        .keep_alive(KeepAlive::new().interval(guard::KEEP_ALIVE))
}

/// Every event so far, then each as it comes.
async fn events(
    State(hub): State<Arc<Hub>>,
) -> Sse<impl Stream<Item = Result<SseEvent, Infallible>>> {
    let (history, rx) = hub.subscribe();
    let first = stream::iter(
        history
            .into_iter()
            .map(|line| Ok(SseEvent::default().data(&line))),
    );
    let rest = follow(rx, |m| match m {
        Message::Event(line) => Some(SseEvent::default().data(&line)),
        Message::State(_) => None,
    });
    Sse::new(futures_util::StreamExt::chain(first, rest))
        .keep_alive(KeepAlive::new().interval(guard::KEEP_ALIVE))
}

/// A browser's stream of what `pick` takes from the broadcast. It ends
/// when the browser has fallen [`CLIENT_BUFFER`] messages behind (it is
/// dropped, and reconnects to the state as it is) or the game's output is
/// gone.
fn follow(
    rx: broadcast::Receiver<Message>,
    pick: fn(Message) -> Option<SseEvent>,
) -> impl Stream<Item = Result<SseEvent, Infallible>> {
    stream::unfold(rx, move |mut rx| async move {
        loop {
            match rx.recv().await {
                Ok(m) => {
                    if let Some(e) = pick(m) {
                        return Some((Ok(e), rx));
                    }
                }
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    tracing::info!(behind = n, "a spectator fell behind and is dropped");
                    return None;
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;

    /// A browser that fell more than [`CLIENT_BUFFER`] messages behind (it
    /// stopped reading) gets no more: its stream ends, and it is dropped.
    /// One that keeps up gets every message.
    #[test]
    fn a_client_that_falls_behind_is_dropped_and_one_that_keeps_up_is_not() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let (tx, _) = broadcast::channel(CLIENT_BUFFER);
        let pick: fn(Message) -> Option<SseEvent> = |m| match m {
            Message::Event(l) => Some(SseEvent::default().data(&l)),
            Message::State(_) => None,
        };
        let slow = follow(tx.subscribe(), pick);
        let mut fast = Box::pin(follow(tx.subscribe(), pick));
        let mut kept = 0;
        for i in 0..CLIENT_BUFFER + 10 {
            tx.send(Message::Event(format!("{{\"n\":{i}}}").into()))
                .unwrap();
            // The fast one reads each as it comes.
            runtime.block_on(async {
                assert!(fast.next().await.is_some());
            });
            kept += 1;
        }
        assert_eq!(kept, CLIENT_BUFFER + 10);
        let mut slow = Box::pin(slow);
        let first = runtime.block_on(async { slow.next().await });
        assert!(first.is_none(), "fallen behind: dropped");
    }
}
