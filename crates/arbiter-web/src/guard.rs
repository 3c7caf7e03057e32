//! What keeps strangers from taking the game down: the server's own
//! accept loop, with limits a page on a club's network needs.
//!
//! - **Caps.** At most [`Limits::total`] connections at once (a quarter of
//!   the process's open-file limit, at most 256), and [`Limits::per_address`]
//!   from one address. A connection beyond a cap is closed at once, before
//!   a byte is read; the log says how many were refused at most once a
//!   minute. The game's own files (journal, log, frames, camera, serial
//!   port) keep the rest of the process's file descriptors.
//! - **Timeouts.** A connection that has had no answer within
//!   [`HEADER_TIMEOUT`] (its request's headers never finished, or it sent
//!   none) is closed; so is one with nothing read or written for
//!   [`IDLE_TIMEOUT`] (the event streams send a keep-alive well within
//!   it), and one whose writes have been blocked for [`WRITE_STALL`] (a
//!   browser that stopped reading its event stream).
//!
//! hyper serves each connection (HTTP/1.1); a watchdog beside it drops the
//! connection when one of the timeouts is passed, which closes its socket.

use std::collections::HashMap;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// A connection must have its answer started within this.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(5);
/// A connection with nothing read or written for this long is closed.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// A connection whose writes stay blocked this long is closed.
pub const WRITE_STALL: Duration = Duration::from_secs(10);
/// The event streams' keep-alive: well inside [`IDLE_TIMEOUT`].
pub const KEEP_ALIVE: Duration = Duration::from_secs(10);
/// How often refusals are said in the log, at most.
const REFUSALS_SAID_EVERY: Duration = Duration::from_secs(60);

/// How many connections the page takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub total: usize,
    pub per_address: usize,
}

impl Limits {
    /// A quarter of the process's open-file limit, at most 256 in all and
    /// 64 from one address (a browser opens five or six).
    pub fn for_this_process() -> Limits {
        let files = open_file_limit().unwrap_or(1024);
        let total = (files / 4).clamp(16, 256);
        Limits {
            total,
            per_address: (total / 4).clamp(8, 64),
        }
    }
}

/// The soft limit on open files, where the system says it (Linux).
fn open_file_limit() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with("Max open files"))?;
    let soft = line.split_whitespace().nth(3)?;
    soft.parse().ok()
}

/// The connections open now, in all and per address.
#[derive(Default)]
struct Open {
    total: usize,
    by_address: HashMap<IpAddr, usize>,
}

struct Slots {
    limits: Limits,
    open: Mutex<Open>,
}

/// A connection's place under the caps, given back when it closes.
struct Slot {
    slots: Arc<Slots>,
    ip: IpAddr,
}

impl Slots {
    fn take(self: &Arc<Self>, ip: IpAddr) -> Option<Slot> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let mine = open.by_address.get(&ip).copied().unwrap_or(0);
        if open.total >= self.limits.total || mine >= self.limits.per_address {
            return None;
        }
        open.total += 1;
        *open.by_address.entry(ip).or_default() += 1;
        Some(Slot {
            slots: self.clone(),
            ip,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.slots.open.lock().unwrap_or_else(|e| e.into_inner());
        open.total -= 1;
        if let Some(n) = open.by_address.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                open.by_address.remove(&self.ip);
            }
        }
    }
}

/// Serves `router` on `listener` until the process ends, within `limits`.
pub async fn serve(listener: TcpListener, router: Router, limits: Limits) {
    let slots = Arc::new(Slots {
        limits,
        open: Mutex::default(),
    });
    let mut refused = 0usize;
    let mut said = Instant::now() - REFUSALS_SAID_EVERY;
    let mut failed_said = Instant::now() - REFUSALS_SAID_EVERY;
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                // Out of file descriptors or the like: wait, never spin,
                // and say so once a minute at most.
                if failed_said.elapsed() >= REFUSALS_SAID_EVERY {
                    tracing::warn!("spectator page: cannot accept a connection: {e}");
                    failed_said = Instant::now();
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Some(slot) = slots.take(peer.ip()) else {
            drop(stream);
            refused += 1;
            if said.elapsed() >= REFUSALS_SAID_EVERY {
                tracing::warn!(
                    "spectator page: {refused} connection(s) refused, over the cap of {} in all or {} from one address",
                    limits.total,
                    limits.per_address
                );
                refused = 0;
                said = Instant::now();
            }
            continue;
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(connection(stream, router.clone(), slot));
    }
}

/// One connection, served until it ends or a watchdog rule closes it.
async fn connection(stream: TcpStream, router: Router, slot: Slot) {
    let watched = Watched::new(stream);
    let clock = watched.clock.clone();
    let service = TowerToHyperService::new(router);
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT)
        .serve_connection(TokioIo::new(watched), service);
    tokio::pin!(conn);
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    loop {
        tokio::select! {
            _ = &mut conn => break,
            _ = tick.tick() => {
                if let Some(why) = clock.overdue() {
                    tracing::debug!("spectator page: closing a connection: {why}");
                    break;
                }
            }
        }
    }
    drop(slot);
}

/// When a connection last moved, shared with its watchdog (milliseconds
/// since it opened; 0 is never).
struct Clock {
    opened: Instant,
    last_progress: AtomicU64,
    first_write: AtomicU64,
    blocked_since: AtomicU64,
}

impl Clock {
    fn now(&self) -> u64 {
        self.opened.elapsed().as_millis() as u64 + 1
    }

    /// Which timeout, if any, the connection has passed.
    fn overdue(&self) -> Option<&'static str> {
        let now = self.now();
        let since = |t: u64| Duration::from_millis(now.saturating_sub(t));
        if self.first_write.load(Ordering::Relaxed) == 0 && self.opened.elapsed() > HEADER_TIMEOUT {
            return Some("no request within the header timeout");
        }
        let blocked = self.blocked_since.load(Ordering::Relaxed);
        if blocked != 0 && since(blocked) > WRITE_STALL {
            return Some("the browser stopped reading");
        }
        if since(self.last_progress.load(Ordering::Relaxed)) > IDLE_TIMEOUT {
            return Some("idle");
        }
        None
    }
}

/// A socket that tells its [`Clock`] when bytes move and when writes block.
struct Watched {
    stream: TcpStream,
    clock: Arc<Clock>,
}

impl Watched {
    fn new(stream: TcpStream) -> Watched {
        let clock = Arc::new(Clock {
            opened: Instant::now(),
            last_progress: AtomicU64::new(1),
            first_write: AtomicU64::new(0),
            blocked_since: AtomicU64::new(0),
        });
        Watched { stream, clock }
    }

    fn moved(&self) {
        self.clock
            .last_progress
            .store(self.clock.now(), Ordering::Relaxed);
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(r, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.moved();
        }
        r
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.stream).poll_write(cx, data);
        self.written(&r);
        r
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.written(&r);
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

impl Watched {
    fn written(&self, r: &Poll<io::Result<usize>>) {
        match r {
            Poll::Ready(Ok(n)) if *n > 0 => {
                let now = self.clock.now();
                self.clock.last_progress.store(now, Ordering::Relaxed);
                self.clock.blocked_since.store(0, Ordering::Relaxed);
                let _ = self.clock.first_write.compare_exchange(
                    0,
                    now,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                );
            }
            Poll::Pending => {
                let _ = self.clock.blocked_since.compare_exchange(
                    0,
                    self.clock.now(),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                );
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_count_per_address_and_in_all_and_give_back_on_close() {
        let slots = Arc::new(Slots {
            limits: Limits {
                total: 3,
                per_address: 2,
            },
            open: Mutex::default(),
        });
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let a1 = slots.take(a).unwrap();
        let _a2 = slots.take(a).unwrap();
        assert!(slots.take(a).is_none(), "two from one address");
        let _b1 = slots.take(b).unwrap();
        assert!(slots.take(b).is_none(), "three in all");
        drop(a1);
        assert!(slots.take(b).is_some(), "a slot given back is taken again");
    }

    #[test]
    fn the_limits_leave_most_of_the_open_file_limit_to_the_game() {
        let l = Limits::for_this_process();
        assert!(l.total <= 256 && l.per_address <= l.total);
        if let Some(files) = open_file_limit() {
            assert!(l.total <= files / 4 || l.total == 16, "{l:?} of {files}");
        }
    }
}
