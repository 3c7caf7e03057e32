//! The card-reader mat, host side: the serial link, the handshake, the
//! mat's cells kept in step with its frames, and an observation once the
//! mat has been still for the settle time.
//!
//! [`MatHost`] is the protocol state machine, free of I/O and clocks (time
//! comes in as an argument), so it is tested and benchmarked directly;
//! [`spawn`] runs it on a thread over a serial port, reconnecting with
//! backoff when the port goes away.

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::{Duration, Instant};

use firmware_protocol::{
    Blink, CellIndex, CellState, Colour as LedRgb, ErrorKind, Face, Frame, Geometry, HostMessage,
    LedEntries, LedEntry, MAX_FRAME_LEN, MAX_LED_ENTRIES, MatDecoder, MatMessage, PROTOCOL_VERSION,
    SequenceTracker, TagId, encode, speaks,
};

use crate::tags::Registry;
use arbiter_core::live::{Health, Live, LiveEvent, Reporter};

use crate::lights::{Led, MatLights};
use arbiter_core::observation::Observation;
use arbiter_core::table::{Cell, Table, Token};

/// How the host drives a mat.
#[derive(Clone, Debug)]
pub struct MatConfig {
    pub port: PathBuf,
    /// How long the mat must be still before its table counts (300 ms).
    pub settle: Duration,
    /// Reopen the port when it goes away (off: the input ends).
    pub reconnect: bool,
    pub registry: Registry,
    /// How long to wait for the mat's Hello before giving up on a port.
    pub hello_timeout: Duration,
}

impl MatConfig {
    pub fn new(port: PathBuf, registry: Registry) -> MatConfig {
        MatConfig {
            port,
            settle: Duration::from_millis(300),
            reconnect: true,
            registry,
            hello_timeout: Duration::from_secs(3),
        }
    }
}

/// What the state machine asks of the link and the loop.
#[derive(Debug, PartialEq)]
pub enum HostAction {
    /// Send these framed bytes to the mat.
    Send(Vec<u8>),
    /// Report to the referee / view.
    Report(LiveEvent),
}

/// The mat as the host knows it.
pub struct MatHost {
    registry: Registry,
    settle: Duration,
    decoder: MatDecoder,
    tracker: SequenceTracker,
    seq: u16,
    /// The protocol version the host greets with: its newest, until a mat
    /// answers with an older one (PROTOCOL.md, section 6).
    protocol: u8,
    geometry: Option<Geometry>,
    cells: Vec<CellState>,
    /// A scan being received: its id, the states so far, how many came.
    scan: Option<(u16, Vec<CellState>, usize)>,
    /// A rescan was asked for and has not ended yet: changes wait for it.
    rescanning: bool,
    /// When the last RequestScan went out, to ask again if its answer is lost.
    requested_at: Option<Instant>,
    /// The cells hold a full scan's worth of truth.
    ready: bool,
    /// Something changed since the last observation.
    dirty: bool,
    /// Busy has been reported since the last observation.
    busy: bool,
    last_change: Instant,
    /// The mat's LEDs may not show what the host last set (it said Hello
    /// again, or lost a host frame): send them again.
    leds_stale: bool,
    /// When the last good frame came: a mat silent for long is lost.
    last_frame: Instant,
    /// Frames that failed to decode, since the link opened.
    pub bad_frames: u64,
    /// Sequence gaps seen (each answered with a rescan).
    pub gaps: u64,
}

impl MatHost {
    pub fn new(registry: Registry, settle: Duration, now: Instant) -> MatHost {
        MatHost {
            registry,
            settle,
            decoder: MatDecoder::new(),
            tracker: SequenceTracker::new(),
            seq: 0,
            protocol: PROTOCOL_VERSION,
            geometry: None,
            cells: Vec::new(),
            scan: None,
            rescanning: false,
            requested_at: None,
            ready: false,
            dirty: false,
            busy: false,
            last_change: now,
            leds_stale: false,
            last_frame: now,
            bad_frames: 0,
            gaps: 0,
        }
    }

    pub fn geometry(&self) -> Option<Geometry> {
        self.geometry
    }

    fn frame(&mut self, msg: HostMessage) -> HostAction {
        let mut buf = [0u8; MAX_FRAME_LEN];
        let seq = self.seq;
        self.seq = self.seq.wrapping_add(1);
        let n = encode(&Frame::new(seq, msg), &mut buf).expect("host frames fit the largest frame");
        HostAction::Send(buf[..n].to_vec())
    }

    /// The link opened: greet the mat.
    pub fn connected(&mut self) -> Vec<HostAction> {
        self.decoder.reset();
        self.tracker.reset();
        self.ready = false;
        self.scan = None;
        self.rescanning = false;
        self.geometry = None;
        // The mat on this link may not be the one that answered before.
        self.protocol = PROTOCOL_VERSION;
        // A lone delimiter first ends whatever half-frame the mat's decoder
        // may hold from before.
        let HostAction::Send(hello) = self.frame(HostMessage::Hello {
            protocol: self.protocol,
        }) else {
            unreachable!("frames are sent")
        };
        vec![HostAction::Send([&[0u8][..], &hello].concat())]
    }

    /// Whether the mat has said Hello on this link, in the version asked.
    pub fn greeted(&self) -> bool {
        self.geometry.is_some()
    }

    /// The protocol version of this link's session (the one the host
    /// greets with until the mat has answered).
    pub fn protocol(&self) -> u8 {
        self.protocol
    }

    /// Bytes from the mat.
    pub fn on_bytes(&mut self, bytes: &[u8], now: Instant) -> Vec<HostAction> {
        let mut out = Vec::new();
        let mut frames = Vec::new();
        for r in self.decoder.feed(bytes) {
            frames.push(r);
        }
        for r in frames {
            match r {
                Ok(frame) => self.on_frame(frame, now, &mut out),
                // A bad frame is skipped; the decoder has already moved on
                // to the next delimiter. The gap it leaves shows in the
                // next frame's sequence number.
                Err(_) => self.bad_frames += 1,
            }
        }
        out
    }

    fn on_frame(&mut self, frame: Frame<MatMessage>, now: Instant, out: &mut Vec<HostAction>) {
        self.last_frame = now;
        let hello = matches!(frame.message, MatMessage::Hello { .. });
        let status = self.tracker.observe(frame.seq);
        if status.needs_rescan() && !hello && self.greeted() {
            // A frame was lost: whatever it said is unknown. A scan still
            // coming is spoiled and its end will ask again; any other frame
            // means the mat is past its scan, so ask now (PROTOCOL.md: a
            // host asks again only once a scan has ended).
            self.gaps += 1;
            let scan_frame = matches!(
                frame.message,
                MatMessage::ScanBegin { .. }
                    | MatMessage::ScanCells { .. }
                    | MatMessage::ScanEnd { .. }
            );
            if self.rescanning && scan_frame {
                self.scan = None;
            } else {
                self.rescanning = false;
                self.request_scan(now, out);
            }
        }
        match frame.message {
            MatMessage::Hello {
                protocol, geometry, ..
            } => {
                if protocol != self.protocol {
                    if !speaks(protocol) {
                        out.push(HostAction::Report(LiveEvent::Health(Health::Reconnecting(
                            format!(
                                "the mat speaks protocol {protocol}, this host 1 to {PROTOCOL_VERSION}"
                            ),
                        ))));
                        return;
                    }
                    // A mat of another version answers in its own and then
                    // waits for a Hello in it: greet it so, and start over
                    // when it answers.
                    self.protocol = protocol;
                    self.geometry = None;
                    self.ready = false;
                    self.scan = None;
                    self.rescanning = false;
                    out.push(self.frame(HostMessage::Hello { protocol }));
                    return;
                }
                if self.geometry != Some(geometry) {
                    self.cells = vec![CellState::Empty; usize::from(geometry.cells())];
                }
                self.geometry = Some(geometry);
                self.leds_stale = true;
                self.rescanning = false;
                self.request_scan(now, out);
            }
            MatMessage::ScanBegin { scan_id, cells } => {
                self.scan = Some((scan_id, vec![CellState::Empty; usize::from(cells)], 0));
            }
            MatMessage::ScanCells {
                scan_id,
                first,
                states,
            } => {
                if let Some((id, buf, got)) = &mut self.scan
                    && *id == scan_id
                {
                    for (k, s) in states.iter().enumerate() {
                        if let Some(slot) = buf.get_mut(usize::from(first) + k) {
                            *slot = *s;
                            *got += 1;
                        }
                    }
                }
            }
            MatMessage::ScanEnd { scan_id } => match self.scan.take() {
                Some((id, buf, got))
                    if id == scan_id && got == buf.len() && buf.len() == self.cells.len() =>
                {
                    self.cells = buf;
                    self.ready = true;
                    self.rescanning = false;
                    self.touch(now);
                }
                // Part of the scan was lost: ask again.
                _ if self.rescanning => {
                    self.rescanning = false;
                    self.request_scan(now, out);
                }
                _ => {}
            },
            MatMessage::CellChange { cell, state } => {
                if let Some(i) = self.index(cell) {
                    self.cells[i] = state;
                    if self.ready && !self.rescanning {
                        if !self.busy {
                            self.busy = true;
                            out.push(HostAction::Report(LiveEvent::Observation(
                                Observation::Busy,
                            )));
                        }
                        self.touch(now);
                    }
                }
            }
            MatMessage::Error { kind, cell, .. } => {
                match (kind, cell.and_then(|c| self.index(c))) {
                    (ErrorKind::TwoTags, Some(i)) => {
                        self.cells[i] = CellState::Unreadable;
                        self.touch(now);
                    }
                    // The mat dropped changes of its own: only a scan is sure.
                    (ErrorKind::BufferOverrun, _) => self.request_scan(now, out),
                    (ErrorKind::HostFrameLost, _) => self.leds_stale = true,
                    (kind, _) => out.push(HostAction::Report(LiveEvent::Note(format!(
                        "the mat reports {kind:?}"
                    )))),
                }
            }
            MatMessage::Heartbeat { .. } | MatMessage::Pong { .. } => {}
        }
    }

    fn index(&self, cell: CellIndex) -> Option<usize> {
        self.geometry?
            .index_of(cell)
            .map(usize::from)
            .filter(|&i| i < self.cells.len())
    }

    fn touch(&mut self, now: Instant) {
        self.dirty = true;
        self.last_change = now;
    }

    fn request_scan(&mut self, now: Instant, out: &mut Vec<HostAction>) {
        if !self.rescanning {
            self.rescanning = true;
            self.requested_at = Some(now);
            out.push(self.frame(HostMessage::RequestScan));
        }
    }

    /// Timers (PROTOCOL.md, Timing): a scan not complete a second after it
    /// was asked for is asked for again; a mat silent for three seconds is
    /// greeted again, every half second, until it answers.
    pub fn on_timer(&mut self, now: Instant) -> Vec<HostAction> {
        let mut out = Vec::new();
        if self.rescanning
            && self
                .requested_at
                .is_some_and(|t| now.duration_since(t) > Duration::from_secs(1))
        {
            self.rescanning = false;
            self.scan = None;
            self.request_scan(now, &mut out);
        }
        if now.duration_since(self.last_frame) > Duration::from_secs(3) {
            self.last_frame = now - Duration::from_millis(2500);
            out.extend(self.connected());
        }
        out
    }

    /// Whether the mat's LEDs must be set again (and forget that they must).
    pub fn take_leds_stale(&mut self) -> bool {
        std::mem::take(&mut self.leds_stale)
    }

    /// Time passes: once the mat has been still for the settle time, its
    /// table is an observation.
    pub fn on_tick(&mut self, now: Instant) -> Option<Observation> {
        if !(self.ready && self.dirty && !self.rescanning)
            || now.duration_since(self.last_change) < self.settle
        {
            return None;
        }
        self.dirty = false;
        self.busy = false;
        Some(Observation::Table(self.table()))
    }

    /// When `on_tick` next has work, if it has any.
    pub fn next_tick(&self) -> Option<Instant> {
        (self.ready && self.dirty && !self.rescanning).then(|| self.last_change + self.settle)
    }

    /// The mat's cells as a table: face-down cards are vacant squares
    /// whatever they are; a face-up card the registry does not know cannot
    /// be read.
    pub fn table(&self) -> Table {
        let Some(g) = self.geometry else {
            return Table::new();
        };
        self.cells
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                let c = g.cell_at(i as u16)?;
                let cell = Cell::new(i32::from(c.col), i32::from(c.row));
                let token = match *s {
                    CellState::Empty => return None,
                    CellState::Card {
                        face: Face::Down, ..
                    } => Token::Down,
                    CellState::Card {
                        tag: TagId(t),
                        face: Face::Up,
                    } => self.registry.card(t).map_or(Token::Unreadable, Token::Up),
                    CellState::Pair {
                        tags: [TagId(a), TagId(b)],
                    } => match (self.registry.card(a), self.registry.card(b)) {
                        (Some(a), Some(b)) => Token::pair(a, b),
                        _ => Token::Unreadable,
                    },
                    CellState::Unreadable => Token::Unreadable,
                };
                Some((cell, token))
            })
            .collect()
    }

    /// The raw cards on the mat, before the registry reads them: cell, tag,
    /// face up (for registering a deck); a pair's two cards share a cell.
    pub fn cards(&self) -> Vec<(Cell, u64, bool)> {
        let Some(g) = self.geometry else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, s) in self.cells.iter().enumerate() {
            let Some(c) = g.cell_at(i as u16) else {
                continue;
            };
            let cell = Cell::new(i32::from(c.col), i32::from(c.row));
            match *s {
                CellState::Card {
                    tag: TagId(t),
                    face,
                } => out.push((cell, t, face == Face::Up)),
                CellState::Pair { tags } => out.extend(tags.map(|TagId(t)| (cell, t, true))),
                CellState::Empty | CellState::Unreadable => {}
            }
        }
        out
    }

    /// The frames that light `leds` (and put out every other LED).
    pub fn leds(&mut self, leds: &[Led]) -> Vec<HostAction> {
        let mut out = vec![self.frame(HostMessage::ClearLeds)];
        let g = self.geometry;
        let entries: Vec<LedEntry> = leds
            .iter()
            .filter_map(|l| {
                let cell = CellIndex::new(
                    u8::try_from(l.cell.col).ok()?,
                    u8::try_from(l.cell.row).ok()?,
                );
                g.filter(|g| g.contains(cell))?;
                let (r, gr, b) = l.colour.rgb();
                Some(LedEntry {
                    cell,
                    colour: LedRgb::rgb(r, gr, b),
                    blink: if l.blink { Blink::Slow } else { Blink::Steady },
                })
            })
            .collect();
        for chunk in entries.chunks(MAX_LED_ENTRIES) {
            let leds = LedEntries::from_slice(chunk).expect("a chunk fits");
            out.push(self.frame(HostMessage::SetLeds { leds }));
        }
        out
    }
}

/// A mat running on its thread: what it reports, and its lights (an
/// output for the game's session).
pub struct Mat {
    pub live: Live,
    pub lights: MatLights,
}

/// Runs the mat on a thread: opens the port, greets, scans, reports, and
/// reconnects with backoff when the port goes away (unless told not to).
pub fn spawn(cfg: MatConfig) -> Result<Mat, OpenError> {
    // The port is opened here, not on the thread: one that cannot be
    // opened at the start is a mistyped name or an unplugged mat, told to
    // the player at once, not retried for ever. Reconnecting is for a mat
    // lost during a game.
    let port = open_port(&cfg.port).map_err(|why| OpenError {
        port: cfg.port.display().to_string(),
        why,
        present: serial_ports(),
    })?;
    let (tx, rx) = mpsc::channel();
    let (led_tx, led_rx) = mpsc::channel::<Vec<Led>>();
    let name = format!("mat {}", cfg.port.display());
    let reporter = Reporter::new(tx, name.clone());
    std::thread::spawn(move || run(cfg, reporter, led_rx, port));
    Ok(Mat {
        live: Live { name, events: rx },
        lights: MatLights::new(led_tx),
    })
}

/// A mat's port that could not be opened at the start.
#[derive(Debug, thiserror::Error)]
#[error("{port}: cannot open: {why}; {}", present_ports(present))]
pub struct OpenError {
    pub port: String,
    /// Not a `source`: the message already says it, once.
    pub why: serialport::Error,
    /// The serial ports this machine shows, to choose from.
    pub present: Vec<String>,
}

fn present_ports(present: &[String]) -> String {
    if present.is_empty() {
        "this machine shows no serial port (is the mat plugged in?)".into()
    } else {
        format!("the serial ports here are {}", present.join(", "))
    }
}

/// The serial ports this machine shows (USB adapters, built-in ports).
pub fn serial_ports() -> Vec<String> {
    let mut names: Vec<String> = serialport::available_ports()
        .map(|ps| ps.into_iter().map(|p| p.port_name).collect())
        .unwrap_or_default();
    names.sort();
    names
}

type Port = Box<dyn serialport::SerialPort>;

fn open_port(path: &std::path::Path) -> Result<Port, serialport::Error> {
    serialport::new(path.to_string_lossy(), 115_200)
        .timeout(Duration::from_millis(10))
        // Not exclusive: a restarted host must be able to open it again.
        .exclusive(false)
        .open()
}

/// Why a mat driven on the caller's thread stopped.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error(transparent)]
    Open(OpenError),
    #[error("{0}: no answer from the mat")]
    NoAnswer(String),
    #[error("the port closed")]
    Closed,
    #[error("write failed: {0}")]
    Write(io::Error),
    #[error("read failed: {0}")]
    Read(io::Error),
}

/// A mat driven on the caller's thread, for tools that talk to it step by
/// step (`arbiter mat register`).
pub struct MatLink {
    port: Box<dyn serialport::SerialPort>,
    pub host: MatHost,
}

impl MatLink {
    /// Opens the port and waits for the mat's first full scan.
    pub fn open(cfg: &MatConfig) -> Result<MatLink, LinkError> {
        let port = open_port(&cfg.port).map_err(|why| {
            LinkError::Open(OpenError {
                port: cfg.port.display().to_string(),
                why,
                present: serial_ports(),
            })
        })?;
        let mut link = MatLink {
            port,
            host: MatHost::new(cfg.registry.clone(), cfg.settle, Instant::now()),
        };
        let hello = link.host.connected();
        link.send(hello)?;
        let deadline = Instant::now() + cfg.hello_timeout;
        while link.settled(deadline)?.is_none() {
            if Instant::now() > deadline {
                return Err(LinkError::NoAnswer(cfg.port.display().to_string()));
            }
        }
        Ok(link)
    }

    fn send(&mut self, actions: Vec<HostAction>) -> Result<(), LinkError> {
        for a in actions {
            if let HostAction::Send(b) = a {
                self.port.write_all(&b).map_err(LinkError::Write)?;
            }
        }
        Ok(())
    }

    /// Reads until the mat settles (`Some(table)`) or `until` passes.
    pub fn settled(&mut self, until: Instant) -> Result<Option<Table>, LinkError> {
        let mut buf = [0u8; 512];
        loop {
            match self.port.read(&mut buf) {
                Ok(0) => return Err(LinkError::Closed),
                Ok(n) => {
                    let actions = self.host.on_bytes(&buf[..n], Instant::now());
                    self.send(actions)?;
                }
                Err(e)
                    if e.kind() == io::ErrorKind::TimedOut
                        || e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(LinkError::Read(e)),
            }
            let timers = self.host.on_timer(Instant::now());
            self.send(timers)?;
            if let Some(Observation::Table(t)) = self.host.on_tick(Instant::now()) {
                return Ok(Some(t));
            }
            if Instant::now() > until {
                return Ok(None);
            }
        }
    }
}

/// Why a session on the port ended.
enum SessionEnd {
    /// The port closed or failed; the reason, for the status line.
    Lost(String),
    /// Nobody listens any more.
    Unwanted,
}

/// The first wait before reopening a lost port, and the longest: each
/// failed attempt doubles it.
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
const MAX_BACKOFF: Duration = Duration::from_secs(8);

fn run(cfg: MatConfig, tx: Reporter, leds: Receiver<Vec<Led>>, first: Port) {
    let mut backoff = FIRST_BACKOFF;
    let mut attempt = 0u32;
    // The lights to show: a mat that comes back has forgotten them.
    let mut lit: Vec<Led> = Vec::new();
    let mut port = Some(first);
    loop {
        let started = Instant::now();
        let opened = match port.take() {
            Some(p) => Ok(p),
            None => open_port(&cfg.port),
        };
        let end = match opened {
            Ok(p) => session(p, &cfg, &tx, &leds, &mut lit),
            Err(e) => SessionEnd::Lost(format!("cannot open: {e}")),
        };
        match end {
            SessionEnd::Unwanted => return,
            SessionEnd::Lost(why) => {
                if !cfg.reconnect {
                    let _ = tx.send(LiveEvent::Note(format!("{}: {why}", cfg.port.display())));
                    let _ = tx.send(LiveEvent::Ended);
                    return;
                }
                // A session that ran a while earns a quick retry.
                if started.elapsed() > Duration::from_secs(5) {
                    backoff = FIRST_BACKOFF;
                    attempt = 0;
                }
                attempt += 1;
                let why = format!(
                    "{why}; trying again in {:.1} s (attempt {attempt})",
                    backoff.as_secs_f32()
                );
                if tx
                    .send(LiveEvent::Health(Health::Reconnecting(why)))
                    .is_err()
                {
                    return;
                }
                std::thread::sleep(backoff);
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
        }
    }
}

fn session(
    mut port: Port,
    cfg: &MatConfig,
    tx: &Reporter,
    leds: &Receiver<Vec<Led>>,
    lit: &mut Vec<Led>,
) -> SessionEnd {
    tracing::info!(port = %cfg.port.display(), "port open, greeting the mat");
    let opened = Instant::now();
    let mut host = MatHost::new(cfg.registry.clone(), cfg.settle, opened);
    let mut last_hello = opened;
    // `Ok(false)`: nobody listens any more.
    let send = |port: &mut Box<dyn serialport::SerialPort>,
                actions: Vec<HostAction>|
     -> Result<bool, LinkError> {
        for a in actions {
            match a {
                HostAction::Send(bytes) => port.write_all(&bytes).map_err(LinkError::Write)?,
                HostAction::Report(ev) => {
                    if tx.send(ev).is_err() {
                        return Ok(false);
                    }
                }
            }
        }
        Ok(true)
    };
    match send(&mut port, host.connected()) {
        Ok(true) => {}
        Ok(false) => return SessionEnd::Unwanted,
        Err(e) => return SessionEnd::Lost(e.to_string()),
    }
    let mut buf = [0u8; 512];
    let mut reported_bad = 0;
    loop {
        if host.greeted() && host.take_leds_stale() && !lit.is_empty() {
            let actions = host.leds(lit);
            if let Err(e) = send(&mut port, actions) {
                return SessionEnd::Lost(e.to_string());
            }
        }
        let now = Instant::now();
        if !host.greeted() {
            if now.duration_since(opened) > cfg.hello_timeout {
                return SessionEnd::Lost("no answer from the mat".into());
            }
            if now.duration_since(last_hello) > Duration::from_millis(500) {
                last_hello = now;
                let hello = host.connected();
                if let Err(e) = send(&mut port, hello) {
                    return SessionEnd::Lost(e.to_string());
                }
            }
        }
        match port.read(&mut buf) {
            // A pseudo-terminal whose other end has closed reads as empty.
            Ok(0) => return SessionEnd::Lost(LinkError::Closed.to_string()),
            Ok(n) => {
                let actions = host.on_bytes(&buf[..n], Instant::now());
                match send(&mut port, actions) {
                    Ok(true) => {}
                    Ok(false) => return SessionEnd::Unwanted,
                    Err(e) => return SessionEnd::Lost(e.to_string()),
                }
            }
            Err(e)
                if e.kind() == io::ErrorKind::TimedOut
                    || e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return SessionEnd::Lost(LinkError::Read(e).to_string()),
        }
        let timers = host.on_timer(Instant::now());
        if let Err(e) = send(&mut port, timers) {
            return SessionEnd::Lost(e.to_string());
        }
        if host.bad_frames > reported_bad {
            reported_bad = host.bad_frames;
            if tx
                .send(LiveEvent::Note(format!(
                    "{reported_bad} bad frames skipped"
                )))
                .is_err()
            {
                return SessionEnd::Unwanted;
            }
        }
        if let Some(obs) = host.on_tick(Instant::now())
            && tx.send(LiveEvent::Observation(obs)).is_err()
        {
            return SessionEnd::Unwanted;
        }
        loop {
            match leds.try_recv() {
                Ok(new) => {
                    *lit = new;
                    if host.greeted() {
                        let actions = host.leds(lit);
                        if let Err(e) = send(&mut port, actions) {
                            return SessionEnd::Lost(e.to_string());
                        }
                    }
                }
                Err(TryRecvError::Empty) => break,
                // The view went away; lights no longer matter.
                Err(TryRecvError::Disconnected) => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use firmware_protocol::{CellStates, HostDecoder};

    fn mat_frame(seq: u16, m: MatMessage) -> Vec<u8> {
        let mut buf = [0u8; MAX_FRAME_LEN];
        let n = encode(&Frame::new(seq, m), &mut buf).unwrap();
        buf[..n].to_vec()
    }

    const G: Geometry = Geometry {
        cols: 3,
        rows: 2,
        pitch_x_mm: 63,
        pitch_y_mm: 88,
    };

    fn hello() -> MatMessage {
        MatMessage::Hello {
            protocol: PROTOCOL_VERSION,
            firmware: [1, 0, 0],
            geometry: G,
            leds: true,
        }
    }

    fn scan(seq: &mut u16, id: u16, cells: &[CellState]) -> Vec<u8> {
        let mut out = mat_frame(
            *seq,
            MatMessage::ScanBegin {
                scan_id: id,
                cells: cells.len() as u16,
            },
        );
        *seq += 1;
        out.extend(mat_frame(
            *seq,
            MatMessage::ScanCells {
                scan_id: id,
                first: 0,
                states: CellStates::from_slice(cells).unwrap(),
            },
        ));
        *seq += 1;
        out.extend(mat_frame(*seq, MatMessage::ScanEnd { scan_id: id }));
        *seq += 1;
        out
    }

    fn sent_requests(actions: &[HostAction]) -> Vec<HostMessage> {
        let mut d = HostDecoder::new();
        actions
            .iter()
            .filter_map(|a| match a {
                HostAction::Send(b) => Some(b.clone()),
                _ => None,
            })
            .flat_map(|b| {
                d.feed(&b)
                    .filter_map(Result::ok)
                    .map(|f| f.message)
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    fn wn() -> CellState {
        let tag = crate::tags::sim_tag(
            arbiter_core::table::Card::new(
                arbiter_core::table::Colour::White,
                arbiter_core::table::Piece::Knight,
            ),
            0,
        );
        CellState::Card {
            tag: TagId(tag),
            face: Face::Up,
        }
    }

    #[test]
    fn handshake_scan_settle_and_a_change() {
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut host = MatHost::new(Registry::simulated(), Duration::from_millis(300), t0);
        assert_eq!(
            sent_requests(&host.connected()),
            vec![HostMessage::Hello {
                protocol: PROTOCOL_VERSION
            }]
        );
        let a = host.on_bytes(&mat_frame(0, hello()), ms(1));
        assert_eq!(sent_requests(&a), vec![HostMessage::RequestScan]);
        let mut seq = 1;
        let mut cells = vec![CellState::Empty; 6];
        cells[0] = wn();
        host.on_bytes(&scan(&mut seq, 7, &cells), ms(2));
        assert_eq!(host.on_tick(ms(100)), None, "not settled yet");
        let Some(Observation::Table(t)) = host.on_tick(ms(310)) else {
            panic!("settled")
        };
        assert_eq!(
            t.get(Cell::new(0, 0)),
            Some(Token::Up(arbiter_core::table::Card::new(
                arbiter_core::table::Colour::White,
                arbiter_core::table::Piece::Knight
            )))
        );
        // A card lands face-down at (2,1): busy first, then the table.
        let change = MatMessage::CellChange {
            cell: CellIndex::new(2, 1),
            state: CellState::Card {
                tag: TagId(0x5b00_0000_0001),
                face: Face::Down,
            },
        };
        let a = host.on_bytes(&mat_frame(seq, change), ms(400));
        assert_eq!(
            a,
            vec![HostAction::Report(LiveEvent::Observation(
                Observation::Busy
            ))]
        );
        let Some(Observation::Table(t)) = host.on_tick(ms(701)) else {
            panic!("settled again")
        };
        assert_eq!(
            t.get(Cell::new(2, 1)),
            Some(Token::Down),
            "an unknown tag face-down is a vacant square"
        );
    }

    #[test]
    fn a_lost_frame_brings_a_rescan_and_nothing_is_judged_meanwhile() {
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut host = MatHost::new(Registry::simulated(), Duration::from_millis(50), t0);
        host.connected();
        host.on_bytes(&mat_frame(0, hello()), ms(1));
        let mut seq = 1;
        host.on_bytes(&scan(&mut seq, 1, &[CellState::Empty; 6]), ms(2));
        host.on_tick(ms(60));
        // Frame `seq` is lost; the next one reveals the gap.
        let change = MatMessage::CellChange {
            cell: CellIndex::new(0, 0),
            state: wn(),
        };
        let a = host.on_bytes(&mat_frame(seq + 1, change), ms(100));
        assert_eq!(sent_requests(&a), vec![HostMessage::RequestScan]);
        assert_eq!(host.gaps, 1);
        assert_eq!(
            host.on_tick(ms(500)),
            None,
            "no table while the rescan is out"
        );
        let mut s2 = seq + 2;
        let mut cells = vec![CellState::Empty; 6];
        cells[0] = wn();
        cells[1] = wn();
        host.on_bytes(&scan(&mut s2, 2, &cells), ms(510));
        let Some(Observation::Table(t)) = host.on_tick(ms(600)) else {
            panic!()
        };
        assert_eq!(t.len(), 2, "the rescan is the truth");
    }

    #[test]
    fn garbage_and_corruption_are_counted_and_skipped() {
        let t0 = Instant::now();
        let mut host = MatHost::new(Registry::simulated(), Duration::from_millis(50), t0);
        host.connected();
        let mut bytes = vec![1, 2, 3, 0, 0xff, 0x13, 0];
        let mut good = mat_frame(0, hello());
        bytes.append(&mut good.clone());
        good[2] ^= 0x40;
        bytes.extend(good);
        host.on_bytes(&bytes, t0);
        assert!(host.greeted());
        assert!(host.bad_frames >= 2, "{}", host.bad_frames);
    }

    #[test]
    fn two_tags_in_a_cell_and_unknown_face_up_tags_are_unreadable() {
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut host = MatHost::new(Registry::simulated(), Duration::from_millis(10), t0);
        host.connected();
        host.on_bytes(&mat_frame(0, hello()), ms(1));
        let mut seq = 1;
        let mut cells = vec![CellState::Empty; 6];
        cells[1] = CellState::Card {
            tag: TagId(0xdead),
            face: Face::Up,
        };
        host.on_bytes(&scan(&mut seq, 1, &cells), ms(2));
        host.on_bytes(
            &mat_frame(
                seq,
                MatMessage::Error {
                    kind: ErrorKind::TwoTags,
                    cell: Some(CellIndex::new(2, 0)),
                    detail: 0,
                },
            ),
            ms(3),
        );
        let Some(Observation::Table(t)) = host.on_tick(ms(50)) else {
            panic!()
        };
        assert_eq!(t.unreadable_cells(), vec![Cell::new(1, 0), Cell::new(2, 0)]);
    }

    #[test]
    fn a_version_1_mat_is_greeted_again_in_its_version() {
        let t0 = Instant::now();
        let mut host = MatHost::new(Registry::simulated(), Duration::from_millis(10), t0);
        host.connected();
        let old = MatMessage::Hello {
            protocol: 1,
            firmware: [1, 0, 0],
            geometry: G,
            leds: true,
        };
        let a = host.on_bytes(&mat_frame(0, old.clone()), t0);
        assert_eq!(sent_requests(&a), vec![HostMessage::Hello { protocol: 1 }]);
        assert!(!host.greeted(), "the mat waits for a Hello in its version");
        let a = host.on_bytes(&mat_frame(1, old), t0);
        assert_eq!(sent_requests(&a), vec![HostMessage::RequestScan]);
        assert_eq!(host.protocol(), 1);
        assert!(host.greeted());
    }

    #[test]
    fn a_pair_of_known_tags_is_a_throne_pair_and_unknown_ones_are_unreadable() {
        use crate::tags::sim_tag;
        use arbiter_core::table::{Card, Colour, Piece};
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut host = MatHost::new(Registry::simulated(), Duration::from_millis(10), t0);
        host.connected();
        host.on_bytes(&mat_frame(0, hello()), ms(1));
        let (un, uk) = (
            Card::new(Colour::Blue, Piece::Knight),
            Card::new(Colour::Blue, Piece::King),
        );
        let mut seq = 1;
        let mut cells = vec![CellState::Empty; 6];
        // The knight's tag first: the mat does not order them.
        cells[4] = CellState::Pair {
            tags: [TagId(sim_tag(un, 0)), TagId(sim_tag(uk, 0))],
        };
        cells[5] = CellState::Pair {
            tags: [TagId(sim_tag(uk, 1)), TagId(0xdead)],
        };
        host.on_bytes(&scan(&mut seq, 1, &cells), ms(2));
        let Some(Observation::Table(t)) = host.on_tick(ms(50)) else {
            panic!()
        };
        assert_eq!(t.get(Cell::new(1, 1)), Some(Token::Pair(uk, un)));
        assert_eq!(t.get(Cell::new(2, 1)), Some(Token::Unreadable));
        assert_eq!(host.cards().len(), 4);
    }

    proptest::proptest! {
        /// Any byte stream: no panic, every bad frame counted, and a good
        /// frame after it still heard.
        #[test]
        fn garbage_streams_never_hurt(garbage in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..2000)) {
            let t0 = Instant::now();
            let mut host = MatHost::new(Registry::simulated(), Duration::from_millis(10), t0);
            host.connected();
            host.on_bytes(&garbage, t0);
            let _ = host.on_tick(t0 + Duration::from_secs(1));
            // A delimiter ends whatever the garbage left half-read.
            let mut bytes = vec![0u8];
            bytes.extend(mat_frame(0, hello()));
            host.on_bytes(&bytes, t0);
            proptest::prop_assert!(host.greeted());
            proptest::prop_assert_eq!(host.geometry(), Some(G));
        }
    }

    #[test]
    fn leds_are_cleared_then_set_in_chunks() {
        let t0 = Instant::now();
        let mut host = MatHost::new(Registry::simulated(), Duration::from_millis(10), t0);
        host.connected();
        host.on_bytes(&mat_frame(0, hello()), t0);
        let lit = vec![
            Led {
                cell: Cell::new(2, 1),
                colour: crate::lights::LedColour::Amber,
                blink: true,
            },
            Led {
                cell: Cell::new(9, 9),
                colour: crate::lights::LedColour::Red,
                blink: false,
            },
        ];
        let sent = sent_requests(&host.leds(&lit));
        assert_eq!(sent[0], HostMessage::ClearLeds);
        let HostMessage::SetLeds { leds } = &sent[1] else {
            panic!("{sent:?}")
        };
        assert_eq!(leds.len(), 1, "a cell off the mat is not sent");
        assert_eq!(leds[0].cell, CellIndex::new(2, 1));
        assert_eq!(leds[0].blink, Blink::Slow);
    }
}
