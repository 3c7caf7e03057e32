//! The mat simulator: plays a [`MatPlan`] over a pseudo-terminal the way a
//! real card-reader mat would, speaking the `firmware_protocol` wire
//! protocol — settled scans, cell changes with their transients, and the
//! wire's own faults (corrupted frames, bursts of noise, an unplug), each
//! switchable.
//!
//! The host opens a stable symlink ([`SimConfig::link`]) that points at the
//! current pseudo-terminal; an unplug and replug makes a new one and
//! re-points the link. The simulator only plays while a host is there: it
//! waits for the host's `Hello` and its first scan before the first step,
//! and again whenever the host closes the port or the mat was unplugged.

use std::collections::BTreeMap;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use firmware_protocol::{
    Blink, CellIndex, CellState, Colour, DecodeError, ErrorKind, Face, Frame, Geometry,
    HostDecoder, HostMessage, MAX_FRAME_LEN, MAX_SCAN_CELLS, MAX_SCAN_STATE_BYTES, MatMessage,
    OLDEST_PROTOCOL_VERSION, PROTOCOL_VERSION, SequenceTracker, TagId, encode,
};
use nix::errno::Errno;
use nix::fcntl::{FcntlArg, FdFlag, OFlag, fcntl};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::termios::{SetArg, cfmakeraw, tcgetattr, tcsetattr};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::plan::{MatPlan, MatStep, Sensed, Transients};
use arbiter_core::table::Cell;

/// The transients the simulator adds on the wire itself (the plan-level
/// ones, lifts and swap steps, are [`Transients`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WireTransients {
    /// Now and then (every 4th to 10th frame, seeded) one byte of an
    /// encoded frame is flipped, so the host's CRC rejects it and the host
    /// sees a gap in the sequence numbers. Never a `Hello`, and never the
    /// scan after a corrupted scan.
    pub corrupt: bool,
    /// Now and then a burst of random bytes, ending with a 0x00, between
    /// two frames.
    pub noise: bool,
    /// Once, around the middle of the steps, the mat is unplugged: the port
    /// closes, the step's changes happen while it is away, and a new
    /// pseudo-terminal appears behind the link. The mat reboots: sequence
    /// numbers start again from 0 and its LEDs are off.
    pub unplug: bool,
}

/// The `--transients` value when none is given.
pub const DEFAULT_TRANSIENTS: &str = "lift,swaps";

/// What is wrong with a `--transients` value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TransientsError {
    /// Two commas in a row, or one at either end.
    #[error("empty item in transients {list:?}")]
    EmptyItem { list: String },
    #[error(
        "unknown transient {item:?}: expected none, all, or a list of \
         lift, swaps, corrupt, noise, unplug"
    )]
    Unknown { item: String },
}

/// Parses a `--transients` value: `none`, `all`, or a comma-separated list
/// of `lift`, `swaps`, `corrupt`, `noise`, `unplug`.
pub fn parse_transients(list: &str) -> Result<(Transients, WireTransients), TransientsError> {
    let mut plan = Transients {
        lift: false,
        swap_steps: false,
    };
    let mut wire = WireTransients::default();
    match list.trim() {
        "none" => return Ok((plan, wire)),
        "all" => {
            let all = parse_transients("lift,swaps,corrupt,noise,unplug")?;
            return Ok(all);
        }
        _ => {}
    }
    for item in list.split(',').map(str::trim) {
        match item {
            "lift" => plan.lift = true,
            "swaps" => plan.swap_steps = true,
            "corrupt" => wire.corrupt = true,
            "noise" => wire.noise = true,
            "unplug" => wire.unplug = true,
            "" => {
                return Err(TransientsError::EmptyItem {
                    list: list.to_string(),
                });
            }
            other => {
                return Err(TransientsError::Unknown {
                    item: other.to_string(),
                });
            }
        }
    }
    Ok((plan, wire))
}

/// How the simulator plays.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// The stable path the host opens: a symlink to the current
    /// pseudo-terminal, removed at the end.
    pub link: PathBuf,
    /// The pause after each settled (or busy) step, while host requests are
    /// answered. Well over the host's settle time.
    pub gap: Duration,
    /// The pause between two changes of one step: well under the host's
    /// settle time.
    pub change_gap: Duration,
    /// How often a `Heartbeat` goes out when nothing else does.
    pub heartbeat: Duration,
    pub wire: WireTransients,
    /// Seeds the wire transients and the busy steps' lifts.
    pub seed: u64,
    /// How long to wait for a host's `Hello` (at the start, after an
    /// unplug, after the host closed the port); `None`: for ever. Running
    /// out is an error of kind `TimedOut`.
    pub connect_timeout: Option<Duration>,
    /// After a `Hello`, how long to wait for the host's first scan request
    /// before playing on anyway.
    pub scan_timeout: Duration,
    /// How long an unplugged mat stays away.
    pub unplug_for: Duration,
    /// The newest protocol version the mat speaks: 1 plays a mat made
    /// before throne pairs, which reports a pair as unreadable (with a
    /// `TwoTags` error) and makes the host fall back to version 1.
    pub protocol: u8,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            link: std::env::temp_dir().join(format!("arbiter-mat-{}", std::process::id())),
            gap: Duration::from_millis(600),
            change_gap: Duration::from_millis(5),
            heartbeat: Duration::from_secs(1),
            wire: WireTransients::default(),
            seed: 1,
            connect_timeout: None,
            scan_timeout: Duration::from_secs(2),
            unplug_for: Duration::from_millis(300),
            protocol: PROTOCOL_VERSION,
        }
    }
}

/// A lit LED, as the host last set it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lit {
    pub colour: Colour,
    pub blink: Blink,
}

/// The LEDs lit at the end of one script step (after its gap, when the host
/// has had time to answer it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepLeds {
    /// The script step: its index among the plan's `Settled` and `Busy`
    /// steps, which is its index in the script.
    pub step: usize,
    pub busy: bool,
    /// Mat cells `(col, row)`.
    pub lit: BTreeMap<(u8, u8), Lit>,
}

impl StepLeds {
    /// The lit cells in the script's frame (mat cell minus the plan's
    /// offset).
    pub fn script_cells(&self, offset: Cell) -> BTreeMap<Cell, Lit> {
        self.lit
            .iter()
            .map(|(&(c, r), &l)| (Cell::new(i32::from(c), i32::from(r)).minus(offset), l))
            .collect()
    }
}

/// What the simulator did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimReport {
    /// Frames written to the port (corrupted ones included).
    pub frames_sent: u64,
    pub frames_corrupted: u64,
    /// Frames not written: no host listening (unplugged, port closed, no
    /// `Hello` yet), or the port would not take them.
    pub frames_dropped: u64,
    pub noise_bursts: u64,
    /// Full scans sent.
    pub scans: u64,
    pub unplugs: u32,
    /// `Hello`s received from the host.
    pub hellos: u32,
    /// Host frames decoded.
    pub host_frames: u64,
    /// Host bytes that made no frame (bad COBS, CRC, type, length...).
    pub host_errors: u64,
    /// The pseudo-terminals the link pointed at, in order.
    pub ports: Vec<PathBuf>,
    /// One entry per script step.
    pub leds: Vec<StepLeds>,
}

/// The mat's firmware version in its `Hello`.
const FIRMWARE: [u8; 3] = [0, 1, 0];
/// Card pitch: a poker-size card.
const PITCH_MM: (u16, u16) = (63, 88);
/// The longest single wait inside the service loop.
const POLL_SLICE: Duration = Duration::from_millis(50);
/// How often to look for a host while nobody has the port open.
const IDLE_SLICE: Duration = Duration::from_millis(10);
/// How long a write may wait for room in the port before the frame is
/// dropped.
const WRITE_PATIENCE: Duration = Duration::from_millis(500);

/// Plays `plan` on a pseudo-terminal. `announce` is called once with the
/// link path, as soon as a host may open it. Returns when the plan is
/// played out and the port closed, the link removed.
pub fn run(plan: &MatPlan, cfg: &SimConfig, announce: impl FnOnce(&Path)) -> io::Result<SimReport> {
    let mut link = Link::new(cfg.link.clone())?;
    let port = Port::open()?;
    link.point(&port.path)?;
    let mut mat = Mat::new(plan, cfg, port)?;
    announce(&link.path);

    let groups = groups(&plan.steps);
    let unplug_at = if cfg.wire.unplug {
        let n = groups.len();
        (n / 2..n)
            .chain(0..n / 2)
            .find(|&i| !groups[i].busy && !groups[i].changes.is_empty())
            .or((n > 0).then_some(n / 2))
    } else {
        None
    };

    for (i, g) in groups.iter().enumerate() {
        mat.ensure_host()?;
        if unplug_at == Some(i) {
            mat.unplug(&mut link, &g.changes)?;
            mat.ensure_host()?;
        } else if g.busy {
            mat.busy()?;
        } else {
            mat.play(&g.changes)?;
        }
        mat.wait(cfg.gap)?;
        mat.report.leds.push(StepLeds {
            step: i,
            busy: g.busy,
            lit: mat.leds.clone(),
        });
    }
    mat.wait(cfg.gap)?;
    mat.port = None;
    link.remove();
    Ok(mat.report)
}

/// One script step: its changes, then settled or busy.
struct Group {
    changes: Vec<((u8, u8), Option<Sensed>)>,
    busy: bool,
}

fn groups(steps: &[MatStep]) -> Vec<Group> {
    let mut out = Vec::new();
    let mut changes = Vec::new();
    for s in steps {
        match *s {
            MatStep::Change { col, row, top } => changes.push(((col, row), top)),
            MatStep::Settled => out.push(Group {
                changes: std::mem::take(&mut changes),
                busy: false,
            }),
            MatStep::Busy => out.push(Group {
                changes: std::mem::take(&mut changes),
                busy: true,
            }),
        }
    }
    if !changes.is_empty() {
        out.push(Group {
            changes,
            busy: false,
        });
    }
    out
}

/// The stable path, a symlink to the current pseudo-terminal.
struct Link {
    path: PathBuf,
    live: bool,
}

impl Link {
    fn new(path: PathBuf) -> io::Result<Link> {
        if let Ok(m) = std::fs::symlink_metadata(&path)
            && !m.file_type().is_symlink()
        {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{} exists and is not a symlink", path.display()),
            ));
        }
        Ok(Link { path, live: false })
    }

    /// Points the link at `target`, atomically.
    fn point(&mut self, target: &Path) -> io::Result<()> {
        let mut name = self.path.file_name().unwrap_or_default().to_os_string();
        name.push(".new");
        let tmp = self.path.with_file_name(name);
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(target, &tmp)?;
        std::fs::rename(&tmp, &self.path)?;
        self.live = true;
        Ok(())
    }

    fn remove(&mut self) {
        if std::mem::take(&mut self.live) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        self.remove();
    }
}

/// A pseudo-terminal: the master side (ours) and the slave's path (the
/// host's). The slave is not held open, so the master sees a hang-up while
/// no host has the port open.
struct Port {
    master: OwnedFd,
    path: PathBuf,
}

impl Port {
    fn open() -> io::Result<Port> {
        let pty = nix::pty::openpty(None, None)?;
        let mut t = tcgetattr(&pty.slave)?;
        cfmakeraw(&mut t);
        tcsetattr(&pty.slave, SetArg::TCSANOW, &t)?;
        let path = nix::unistd::ttyname(&pty.slave)?;
        fcntl(&pty.master, FcntlArg::F_SETFL(OFlag::O_NONBLOCK))?;
        fcntl(&pty.master, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC))?;
        Ok(Port {
            master: pty.master,
            path,
        })
    }
}

/// The simulated mat.
struct Mat<'a> {
    cfg: &'a SimConfig,
    /// `None` while unplugged.
    port: Option<Port>,
    geometry: Geometry,
    cells: BTreeMap<(u8, u8), Sensed>,
    leds: BTreeMap<(u8, u8), Lit>,
    seq: u16,
    scan_id: u16,
    boot: Instant,
    last_heartbeat: Instant,
    rng: StdRng,
    decoder: HostDecoder,
    host_seq: SequenceTracker,
    /// Someone has the slave open.
    host_present: bool,
    /// The host said `Hello` since it opened the port, in a version this
    /// mat speaks.
    hello: bool,
    /// The session's protocol version: the host's, or this mat's newest
    /// while the host has not greeted it in a version it speaks.
    protocol: u8,
    /// A scan went out since that `Hello`.
    scanned: bool,
    corrupt_in: u32,
    noise_in: u32,
    in_scan: bool,
    /// A scan frame was corrupted: nothing more is, until the next scan
    /// and its heartbeat are out, so the host's rescan always succeeds.
    protect: bool,
    report: SimReport,
}

impl<'a> Mat<'a> {
    fn new(plan: &MatPlan, cfg: &'a SimConfig, port: Port) -> io::Result<Mat<'a>> {
        if plan.cols == 0 || plan.rows == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a mat needs at least one cell",
            ));
        }
        let mut rng = StdRng::seed_from_u64(cfg.seed);
        let now = Instant::now();
        let report = SimReport {
            ports: vec![port.path.clone()],
            ..SimReport::default()
        };
        Ok(Mat {
            cfg,
            port: Some(port),
            geometry: Geometry {
                cols: plan.cols,
                rows: plan.rows,
                pitch_x_mm: PITCH_MM.0,
                pitch_y_mm: PITCH_MM.1,
            },
            cells: plan.start.clone(),
            leds: BTreeMap::new(),
            seq: 0,
            scan_id: 0,
            boot: now,
            last_heartbeat: now,
            corrupt_in: rng.random_range(4..=10),
            noise_in: rng.random_range(5..=15),
            rng,
            decoder: HostDecoder::new(),
            host_seq: SequenceTracker::new(),
            host_present: false,
            hello: false,
            protocol: cfg.protocol,
            scanned: false,
            in_scan: false,
            protect: false,
            report,
        })
    }

    // ----- playing -----

    /// Waits until a host has said `Hello` and asked for its first scan
    /// (or the scan timeout ran out).
    fn ensure_host(&mut self) -> io::Result<()> {
        let deadline = self.cfg.connect_timeout.map(|t| Instant::now() + t);
        loop {
            if !self.wait_for(|m| m.hello, deadline)? {
                let link = self.cfg.link.display();
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("no host said Hello on {link}"),
                ));
            }
            let scan_by = Instant::now() + self.cfg.scan_timeout;
            self.wait_for(|m| m.scanned || !m.hello, Some(scan_by))?;
            if self.hello {
                return Ok(());
            }
        }
    }

    /// One settled step's changes, a short pause apart, then a heartbeat so
    /// a lost last change shows as a sequence gap at once.
    fn play(&mut self, changes: &[((u8, u8), Option<Sensed>)]) -> io::Result<()> {
        for (k, &(cell, top)) in changes.iter().enumerate() {
            if k > 0 {
                self.wait(self.cfg.change_gap)?;
            }
            self.change(cell, top)?;
        }
        if !changes.is_empty() {
            self.heartbeat()?;
        }
        Ok(())
    }

    /// Hands over the table: a card lifted and put back before the host's
    /// settle time runs out.
    fn busy(&mut self) -> io::Result<()> {
        if self.cells.is_empty() {
            return Ok(());
        }
        let k = self.rng.random_range(0..self.cells.len());
        let Some((&cell, &card)) = self.cells.iter().nth(k) else {
            return Ok(());
        };
        self.change(cell, None)?;
        self.wait(self.cfg.change_gap)?;
        self.change(cell, Some(card))?;
        self.heartbeat()
    }

    fn change(&mut self, (col, row): (u8, u8), top: Option<Sensed>) -> io::Result<()> {
        match top {
            Some(s) => self.cells.insert((col, row), s),
            None => self.cells.remove(&(col, row)),
        };
        let cell = CellIndex::new(col, row);
        let state = state_of(top, self.protocol);
        self.send(MatMessage::CellChange { cell, state })?;
        if state == CellState::Unreadable && top.is_some_and(|s| s.partner.is_some()) {
            self.send(MatMessage::Error {
                kind: ErrorKind::TwoTags,
                cell: Some(cell),
                detail: 0,
            })?;
        }
        Ok(())
    }

    /// The mat is pulled out, the step's changes happen while it is away,
    /// and it comes back on a new pseudo-terminal, rebooted.
    fn unplug(
        &mut self,
        link: &mut Link,
        changes: &[((u8, u8), Option<Sensed>)],
    ) -> io::Result<()> {
        // The new pseudo-terminal first, so its path differs from the old.
        let fresh = Port::open()?;
        self.port = None;
        link.remove();
        self.report.unplugs += 1;
        let back = Instant::now() + self.cfg.unplug_for;
        for &(cell, top) in changes {
            match top {
                Some(s) => self.cells.insert(cell, s),
                None => self.cells.remove(&cell),
            };
        }
        std::thread::sleep(back.saturating_duration_since(Instant::now()));
        // A reboot: counters, uptime and LEDs start afresh.
        let now = Instant::now();
        self.seq = 0;
        self.scan_id = 0;
        self.boot = now;
        self.last_heartbeat = now;
        self.leds.clear();
        self.lost_host();
        self.host_present = false;
        self.protect = false;
        link.point(&fresh.path)?;
        self.report.ports.push(fresh.path.clone());
        self.port = Some(fresh);
        Ok(())
    }

    // ----- servicing the host -----

    /// Answers the host for `d`.
    fn wait(&mut self, d: Duration) -> io::Result<()> {
        let until = Instant::now() + d;
        while Instant::now() < until {
            self.service(until)?;
        }
        Ok(())
    }

    /// Answers the host until `done` holds or `deadline` passes; says
    /// whether `done` held.
    fn wait_for(&mut self, done: fn(&Mat) -> bool, deadline: Option<Instant>) -> io::Result<bool> {
        loop {
            if done(self) {
                return Ok(true);
            }
            let now = Instant::now();
            if deadline.is_some_and(|d| now >= d) {
                return Ok(false);
            }
            let slice = now + POLL_SLICE;
            self.service(deadline.map_or(slice, |d| d.min(slice)))?;
        }
    }

    /// One round: a heartbeat when one is due, then host bytes read and
    /// answered, waiting at most until `until`.
    fn service(&mut self, until: Instant) -> io::Result<()> {
        let now = Instant::now();
        let beating = self.hello && self.host_present;
        if beating && now >= self.last_heartbeat + self.cfg.heartbeat {
            self.heartbeat()?;
        }
        // The next heartbeat bounds the wait only while one is sent: with no
        // host, the last one lies in the past and would make every wait
        // zero (a spinning core while the mat waits to be opened).
        let next_beat = if beating {
            self.last_heartbeat + self.cfg.heartbeat
        } else {
            until
        };
        let wait = until
            .min(next_beat)
            .saturating_duration_since(now)
            .min(POLL_SLICE);
        let Some(port) = &self.port else {
            std::thread::sleep(wait);
            return Ok(());
        };
        let ms = u16::try_from(wait.as_micros().div_ceil(1000)).unwrap_or(u16::MAX);
        let mut fds = [PollFd::new(port.master.as_fd(), PollFlags::POLLIN)];
        match poll(&mut fds, PollTimeout::from(ms)) {
            Ok(_) => {}
            Err(Errno::EINTR) => return Ok(()),
            Err(e) => return Err(e.into()),
        }
        let revents = fds[0].revents().unwrap_or(PollFlags::empty());
        let mut hup = revents.intersects(PollFlags::POLLHUP | PollFlags::POLLERR);
        let mut buf = [0u8; 4096];
        let mut got = 0;
        if revents.contains(PollFlags::POLLIN) {
            match nix::unistd::read(&port.master, &mut buf) {
                Ok(0) | Err(Errno::EIO) => hup = true,
                Ok(n) => got = n,
                Err(Errno::EAGAIN | Errno::EINTR) => {}
                Err(e) => return Err(e.into()),
            }
        }
        if !hup {
            self.host_present = true;
        }
        if got > 0 {
            self.receive(&buf[..got])?;
        }
        if hup {
            self.lost_host();
            // Nobody has the port open: poll would return at once.
            std::thread::sleep(wait.min(IDLE_SLICE));
        }
        Ok(())
    }

    /// The host closed the port (or never opened it).
    fn lost_host(&mut self) {
        self.host_present = false;
        self.hello = false;
        self.scanned = false;
        self.decoder.reset();
        self.host_seq.reset();
    }

    fn receive(&mut self, bytes: &[u8]) -> io::Result<()> {
        let results: Vec<_> = self.decoder.feed(bytes).collect();
        let mut lost = false;
        for r in results {
            match r {
                Ok(frame) => {
                    self.report.host_frames += 1;
                    if matches!(frame.message, HostMessage::Hello { .. }) {
                        self.host_seq.reset();
                    }
                    lost |= self.host_seq.observe(frame.seq).needs_rescan();
                    self.answer(frame.message)?;
                }
                Err(DecodeError::UnsupportedProtocol { .. }) => {
                    // Say which version this mat speaks; the host decides.
                    self.report.host_errors += 1;
                    self.send(self.hello_message())?;
                }
                Err(_) => {
                    self.report.host_errors += 1;
                    lost = true;
                }
            }
        }
        if lost && self.hello {
            self.send(MatMessage::Error {
                kind: ErrorKind::HostFrameLost,
                cell: None,
                detail: 0,
            })?;
        }
        Ok(())
    }

    fn answer(&mut self, message: HostMessage) -> io::Result<()> {
        match message {
            HostMessage::Hello { protocol } => {
                self.report.hellos += 1;
                // A host asking for a version this mat does not speak hears
                // its newest, and is ignored until it greets in that one.
                self.hello = (OLDEST_PROTOCOL_VERSION..=self.cfg.protocol).contains(&protocol);
                self.protocol = if self.hello {
                    protocol
                } else {
                    self.cfg.protocol
                };
                self.scanned = false;
                self.send(self.hello_message())
            }
            _ if !self.hello => Ok(()),
            HostMessage::RequestScan => self.scan(),
            HostMessage::SetLeds { leds } => {
                for led in &leds {
                    let key = (led.cell.col, led.cell.row);
                    if !self.geometry.contains(led.cell) {
                        self.send(MatMessage::Error {
                            kind: ErrorKind::BadRequest,
                            cell: Some(led.cell),
                            detail: 0,
                        })?;
                    } else if led.colour == Colour::OFF {
                        self.leds.remove(&key);
                    } else {
                        self.leds.insert(
                            key,
                            Lit {
                                colour: led.colour,
                                blink: led.blink,
                            },
                        );
                    }
                }
                Ok(())
            }
            HostMessage::ClearLeds => {
                self.leds.clear();
                Ok(())
            }
            HostMessage::Ping { nonce } => self.send(MatMessage::Pong { nonce }),
        }
    }

    fn hello_message(&self) -> MatMessage {
        MatMessage::Hello {
            protocol: self.protocol,
            firmware: FIRMWARE,
            geometry: self.geometry,
            leds: true,
        }
    }

    /// A full scan of the cells as they are now, then a heartbeat (so a
    /// lost `ScanEnd` shows as a gap at once).
    fn scan(&mut self) -> io::Result<()> {
        self.scan_id = self.scan_id.wrapping_add(1);
        let scan_id = self.scan_id;
        let total = self.geometry.cells();
        self.in_scan = true;
        let protected = self.protect;
        self.send(MatMessage::ScanBegin {
            scan_id,
            cells: total,
        })?;
        let mut first = 0u16;
        while first < total {
            let mut states = firmware_protocol::CellStates::new();
            let (mut end, mut bytes) = (first, 0);
            while end < total && states.len() < MAX_SCAN_CELLS {
                let state = self.geometry.cell_at(end).map_or(CellState::Empty, |c| {
                    state_of(self.cells.get(&(c.col, c.row)).copied(), self.protocol)
                });
                // Pairs are longer: a chunk ends when the next state would
                // not fit a frame.
                bytes += state.wire_len();
                if bytes > MAX_SCAN_STATE_BYTES {
                    break;
                }
                // Fewer than MAX_SCAN_CELLS so far: cannot fail.
                let _ = states.push(state);
                end += 1;
            }
            self.send(MatMessage::ScanCells {
                scan_id,
                first,
                states,
            })?;
            first = end;
        }
        self.send(MatMessage::ScanEnd { scan_id })?;
        self.in_scan = false;
        self.scanned = true;
        self.report.scans += 1;
        self.heartbeat()?;
        if protected {
            self.protect = false;
        }
        Ok(())
    }

    fn heartbeat(&mut self) -> io::Result<()> {
        // Wrapping, as the protocol says: truncation is the point.
        let uptime_ms = self.boot.elapsed().as_millis() as u32;
        self.send(MatMessage::Heartbeat { uptime_ms })
    }

    // ----- the wire -----

    /// Sends one frame with the next sequence number, adding the wire's
    /// transients when they are on.
    fn send(&mut self, message: MatMessage) -> io::Result<()> {
        let seq = self.seq;
        self.seq = self.seq.wrapping_add(1);
        let spontaneous = matches!(
            message,
            MatMessage::CellChange { .. } | MatMessage::Heartbeat { .. }
        );
        if matches!(message, MatMessage::Heartbeat { .. }) {
            self.last_heartbeat = Instant::now();
        }
        if self.port.is_none() || !self.host_present || (spontaneous && !self.hello) {
            self.report.frames_dropped += 1;
            return Ok(());
        }
        let is_hello = matches!(message, MatMessage::Hello { .. });
        let mut frame = [0u8; MAX_FRAME_LEN];
        let n = encode(&Frame::new(seq, message), &mut frame).map_err(io::Error::other)?;
        let mut out = Vec::with_capacity(n + 64);
        if self.cfg.wire.noise {
            self.noise_in = self.noise_in.saturating_sub(1);
            if self.noise_in == 0 {
                self.noise_in = self.rng.random_range(5..=15);
                let len = self.rng.random_range(4..=48);
                out.extend((0..len).map(|_| self.rng.random::<u8>()));
                out.push(0);
                self.report.noise_bursts += 1;
            }
        }
        let at = out.len();
        out.extend_from_slice(&frame[..n]);
        if self.cfg.wire.corrupt && !is_hello {
            self.corrupt_in = self.corrupt_in.saturating_sub(1);
            if self.corrupt_in == 0 && !self.protect {
                self.corrupt_in = self.rng.random_range(4..=10);
                // Any byte but the delimiter, never turned into a 0x00.
                let i = at + self.rng.random_range(0..n - 1);
                let mut mask = self.rng.random_range(1..=255u8);
                if mask == out[i] {
                    mask ^= 0x01;
                    mask = mask.max(1);
                }
                out[i] ^= mask;
                self.protect |= self.in_scan;
                self.report.frames_corrupted += 1;
            }
        }
        if self.write_all(&out)? {
            self.report.frames_sent += 1;
        } else {
            self.report.frames_dropped += 1;
        }
        Ok(())
    }

    /// Writes `bytes` to the port; says whether all went out.
    fn write_all(&mut self, mut bytes: &[u8]) -> io::Result<bool> {
        let give_up = Instant::now() + WRITE_PATIENCE;
        while !bytes.is_empty() {
            let Some(port) = &self.port else {
                return Ok(false);
            };
            match nix::unistd::write(&port.master, bytes) {
                Ok(n) if n > 0 => bytes = &bytes[n..],
                Ok(_) | Err(Errno::EAGAIN) => {
                    if Instant::now() >= give_up {
                        return Ok(false);
                    }
                    let mut fds = [PollFd::new(port.master.as_fd(), PollFlags::POLLOUT)];
                    match poll(&mut fds, PollTimeout::from(10u8)) {
                        Ok(_) | Err(Errno::EINTR) => {}
                        Err(e) => return Err(e.into()),
                    }
                }
                Err(Errno::EINTR) => {}
                Err(Errno::EIO) => {
                    self.lost_host();
                    return Ok(false);
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(true)
    }
}

/// A cell's state on the wire in a session of `protocol`: before version 2
/// a throne pair is two tags the mat cannot report.
fn state_of(top: Option<Sensed>, protocol: u8) -> CellState {
    match top {
        None => CellState::Empty,
        Some(Sensed {
            tag,
            partner: Some(other),
            ..
        }) => {
            if protocol >= 2 {
                CellState::Pair {
                    tags: [TagId(tag), TagId(other)],
                }
            } else {
                CellState::Unreadable
            }
        }
        Some(s) => CellState::Card {
            tag: TagId(s.tag),
            face: if s.up { Face::Up } else { Face::Down },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::plan;
    use crate::tags::Registry;
    use arbiter_core::observation::Observation;
    use arbiter_core::script::Script;
    use arbiter_core::table::{Table, Token};
    use firmware_protocol::{LedEntries, LedEntry, MatDecoder};
    use std::io::{Read, Write};
    use std::sync::mpsc;

    /// How long the test host waits for quiet before it takes the table
    /// as settled.
    const SETTLE: Duration = Duration::from_millis(40);

    /// A minimal host: reconstructs the settled tables, rescanning on any
    /// sequence gap, and lights the face-up cells of each.
    struct TestHost {
        link: PathBuf,
        registry: Registry,
        offset: Cell,
        port: Option<Box<dyn serialport::SerialPort>>,
        decoder: MatDecoder,
        tracker: SequenceTracker,
        out_seq: u16,
        geometry: Option<Geometry>,
        cells: BTreeMap<(u8, u8), CellState>,
        scan: Option<(u16, Vec<Option<CellState>>)>,
        /// A scan was asked for and has not arrived whole.
        pending: Option<Instant>,
        last_change: Instant,
        /// The cells changed (or the mat came back) since the last settle.
        dirty: bool,
        garbage_first: bool,
        tables: Vec<Table>,
        opened: Vec<PathBuf>,
        gaps: u32,
        bad_frames: u32,
    }

    impl TestHost {
        fn new(link: PathBuf, offset: Cell) -> TestHost {
            TestHost {
                link,
                registry: Registry::simulated(),
                offset,
                port: None,
                decoder: MatDecoder::new(),
                tracker: SequenceTracker::new(),
                out_seq: 0,
                geometry: None,
                cells: BTreeMap::new(),
                scan: None,
                pending: None,
                last_change: Instant::now(),
                dirty: false,
                garbage_first: false,
                tables: Vec::new(),
                opened: Vec::new(),
                gaps: 0,
                bad_frames: 0,
            }
        }

        fn send(&mut self, message: HostMessage) {
            let mut buf = [0u8; MAX_FRAME_LEN];
            let n =
                firmware_protocol::encode(&Frame::new(self.out_seq, message), &mut buf).unwrap();
            self.out_seq = self.out_seq.wrapping_add(1);
            self.write(&buf[..n]);
        }

        /// Writes all of `bytes`, patient with a busy port; a port that
        /// fails is closed.
        fn write(&mut self, mut bytes: &[u8]) {
            let give_up = Instant::now() + Duration::from_secs(1);
            while let Some(p) = &mut self.port
                && !bytes.is_empty()
            {
                match p.write(bytes) {
                    Ok(n) => bytes = &bytes[n..],
                    Err(e) if e.kind() == io::ErrorKind::TimedOut && Instant::now() < give_up => {}
                    Err(_) => self.port = None,
                }
            }
        }

        fn request_scan(&mut self) {
            self.scan = None;
            self.pending = Some(Instant::now());
            self.send(HostMessage::RequestScan);
        }

        /// Runs until the port closes and `sim_done` says the simulator has
        /// finished.
        fn run(&mut self, sim_done: impl Fn() -> bool) {
            let give_up = Instant::now() + Duration::from_secs(20);
            let mut buf = [0u8; 1024];
            while Instant::now() < give_up {
                if self.port.is_none() {
                    if sim_done() {
                        return;
                    }
                    self.connect();
                    continue;
                }
                let read = self.port.as_mut().map(|p| p.read(&mut buf));
                match read {
                    Some(Ok(n)) if n > 0 => {
                        let frames: Vec<_> = self.decoder.feed(&buf[..n]).collect();
                        for f in frames {
                            match f {
                                Ok(frame) => self.frame(frame),
                                Err(_) => self.bad_frames += 1,
                            }
                        }
                    }
                    Some(Err(e)) if e.kind() == io::ErrorKind::TimedOut => {}
                    _ => {
                        self.port = None;
                        continue;
                    }
                }
                if self
                    .pending
                    .is_some_and(|t| t.elapsed() > Duration::from_millis(300))
                {
                    self.request_scan();
                }
                if self.dirty && self.pending.is_none() && self.last_change.elapsed() >= SETTLE {
                    self.settle();
                }
            }
            panic!("the test host ran out of time");
        }

        fn connect(&mut self) {
            let Ok(target) = std::fs::read_link(&self.link) else {
                std::thread::sleep(Duration::from_millis(10));
                return;
            };
            let Ok(port) = serialport::new(self.link.to_string_lossy(), 115_200)
                .timeout(Duration::from_millis(10))
                .open()
            else {
                std::thread::sleep(Duration::from_millis(10));
                return;
            };
            self.opened.push(target);
            self.port = Some(port);
            self.decoder.reset();
            self.tracker.reset();
            self.geometry = None;
            if self.garbage_first {
                // Garbage the mat must skip: random-ish bytes, a frame of
                // the wrong direction, then a clean delimiter.
                let mut junk = vec![0x13, 0x37, 0x00, 0xff, 0xfe, 0x42];
                let mut wrong = [0u8; MAX_FRAME_LEN];
                let n = firmware_protocol::encode(
                    &Frame::new(9, MatMessage::Heartbeat { uptime_ms: 1 }),
                    &mut wrong,
                )
                .unwrap();
                junk.extend_from_slice(&wrong[..n]);
                junk.push(0);
                self.write(&junk);
            }
            self.send(HostMessage::Hello {
                protocol: PROTOCOL_VERSION,
            });
        }

        fn frame(&mut self, frame: Frame<MatMessage>) {
            if let MatMessage::Hello { geometry, .. } = frame.message {
                self.tracker.reset();
                self.tracker.observe(frame.seq);
                self.geometry = Some(geometry);
                self.dirty = true;
                self.request_scan();
                return;
            }
            if self.geometry.is_none() {
                return;
            }
            if self.tracker.observe(frame.seq).needs_rescan() {
                self.gaps += 1;
                self.request_scan();
            }
            match frame.message {
                MatMessage::ScanBegin { scan_id, cells } => {
                    self.scan = Some((scan_id, vec![None; usize::from(cells)]));
                }
                MatMessage::ScanCells {
                    scan_id,
                    first,
                    states,
                } => {
                    if let Some((id, cells)) = &mut self.scan
                        && *id == scan_id
                    {
                        for (k, s) in states.iter().enumerate() {
                            if let Some(slot) = cells.get_mut(usize::from(first) + k) {
                                *slot = Some(*s);
                            }
                        }
                    }
                }
                MatMessage::ScanEnd { scan_id } => {
                    let Some((id, cells)) = self.scan.take() else {
                        return;
                    };
                    let geometry = self.geometry.unwrap();
                    if id != scan_id || cells.iter().any(Option::is_none) {
                        return;
                    }
                    self.cells = cells
                        .into_iter()
                        .enumerate()
                        .filter_map(|(i, s)| {
                            let c = geometry.cell_at(i as u16)?;
                            Some(((c.col, c.row), s?))
                        })
                        .filter(|(_, s)| *s != CellState::Empty)
                        .collect();
                    self.pending = None;
                    self.dirty = true;
                    self.last_change = Instant::now();
                }
                MatMessage::CellChange { cell, state } => {
                    let key = (cell.col, cell.row);
                    if state == CellState::Empty {
                        self.cells.remove(&key);
                    } else {
                        self.cells.insert(key, state);
                    }
                    self.dirty = true;
                    self.last_change = Instant::now();
                }
                _ => {}
            }
        }

        /// The table has been quiet long enough: record it and light it.
        fn settle(&mut self) {
            self.dirty = false;
            let table = table_of(&self.cells, &self.registry, self.offset);
            let lit: Vec<LedEntry> = self
                .cells
                .iter()
                .filter(|(_, s)| matches!(s, CellState::Card { face: Face::Up, .. }))
                .map(|(&(c, r), _)| LedEntry {
                    cell: CellIndex::new(c, r),
                    colour: Colour::rgb(0, 255, 0),
                    blink: Blink::Slow,
                })
                .collect();
            if self.tables.last() != Some(&table) {
                self.tables.push(table);
            }
            self.send(HostMessage::ClearLeds);
            for chunk in lit.chunks(firmware_protocol::MAX_LED_ENTRIES) {
                let leds = LedEntries::from_slice(chunk).unwrap();
                self.send(HostMessage::SetLeds { leds });
            }
        }
    }

    fn table_of(cells: &BTreeMap<(u8, u8), CellState>, registry: &Registry, offset: Cell) -> Table {
        cells
            .iter()
            .filter_map(|(&(c, r), s)| {
                let tok = match *s {
                    CellState::Empty => return None,
                    CellState::Unreadable => Token::Unreadable,
                    CellState::Card {
                        face: Face::Down, ..
                    } => Token::Down,
                    CellState::Card {
                        tag,
                        face: Face::Up,
                    } => registry.card(tag.0).map_or(Token::Unreadable, Token::Up),
                    CellState::Pair { tags: [a, b] } => {
                        match (registry.card(a.0), registry.card(b.0)) {
                            (Some(a), Some(b)) => Token::pair(a, b),
                            _ => Token::Unreadable,
                        }
                    }
                };
                Some((Cell::new(i32::from(c), i32::from(r)).minus(offset), tok))
            })
            .collect()
    }

    fn scenario() -> Script {
        let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        Script::load(&root.join("fixtures/scenarios/enprise/basics.toml")).unwrap()
    }

    fn script_tables(script: &Script) -> Vec<Table> {
        script
            .steps
            .iter()
            .filter_map(|s| match &s.observation {
                Observation::Table(t) => Some(t.clone()),
                _ => None,
            })
            .collect()
    }

    /// The start, then each table that differs from the one before.
    fn distinct(start: &Table, tables: &[Table]) -> Vec<Table> {
        let mut out = vec![start.clone()];
        for t in tables {
            if out.last() != Some(t) {
                out.push(t.clone());
            }
        }
        out
    }

    fn test_config(name: &str, wire: WireTransients) -> SimConfig {
        SimConfig {
            link: std::env::temp_dir()
                .join(format!("arbiter-mat-test-{}-{name}", std::process::id())),
            gap: Duration::from_millis(150),
            wire,
            seed: 11,
            connect_timeout: Some(Duration::from_secs(5)),
            ..SimConfig::default()
        }
    }

    /// Runs the simulator on a thread and the test host here.
    fn play(
        script: &Script,
        cfg: SimConfig,
        garbage_first: bool,
    ) -> (MatPlan, SimReport, TestHost, Duration) {
        let t0 = Instant::now();
        let transients = Transients {
            lift: true,
            swap_steps: true,
        };
        let plan = plan(script, transients, 5).unwrap();
        let (tx, rx) = mpsc::channel();
        let sim = {
            let plan = plan.clone();
            std::thread::spawn(move || run(&plan, &cfg, |p| tx.send(p.to_path_buf()).unwrap()))
        };
        let link = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        let mut host = TestHost::new(link.clone(), plan.offset);
        host.garbage_first = garbage_first;
        host.run(|| sim.is_finished());
        let report = sim.join().unwrap().unwrap();
        assert!(
            std::fs::symlink_metadata(&link).is_err(),
            "the link is removed at the end"
        );
        (plan, report, host, t0.elapsed())
    }

    fn check_tables(script: &Script, host: &TestHost) {
        let start = script
            .setup
            .start_table()
            .map(|(table, _)| table.clone())
            .unwrap_or_default();
        let want = distinct(&start, &script_tables(script));
        let got = distinct(&start, &host.tables);
        assert_eq!(got, want);
    }

    /// The LEDs at the end of each settled step are the ones the host lit
    /// for that step's table: its face-up cards, readable or not.
    fn check_leds(script: &Script, plan: &MatPlan, report: &SimReport) {
        let tables = script_tables(script);
        let settled: Vec<&StepLeds> = report.leds.iter().filter(|s| !s.busy).collect();
        assert_eq!(settled.len(), tables.len());
        for (s, t) in settled.iter().zip(&tables) {
            let lit: Vec<Cell> = s.script_cells(plan.offset).into_keys().collect();
            let up: Vec<Cell> = t
                .iter()
                .filter(|(_, tok)| *tok != Token::Down)
                .map(|(c, _)| c)
                .collect();
            assert_eq!(lit, up, "LEDs after step {}", s.step);
            assert!(s.lit.values().all(|l| l.blink == Blink::Slow));
        }
    }

    #[test]
    fn a_host_reconstructs_every_settled_table_through_corruption_and_noise() {
        let script = scenario();
        let wire = WireTransients {
            corrupt: true,
            noise: true,
            unplug: false,
        };
        let (plan, report, host, took) = play(&script, test_config("noisy", wire), true);
        check_tables(&script, &host);
        check_leds(&script, &plan, &report);
        assert!(report.frames_corrupted > 0, "{report:?}");
        assert!(report.noise_bursts > 0, "{report:?}");
        assert!(host.gaps > 0 && host.bad_frames > 0);
        assert!(report.host_errors > 0, "the host's garbage is counted");
        assert!(report.scans > 1, "gaps were answered with rescans");
        assert_eq!(report.hellos, 1);
        assert!(took < Duration::from_secs(10), "{took:?}");
    }

    #[test]
    fn an_unplugged_mat_comes_back_behind_the_same_link() {
        let script = scenario();
        let wire = WireTransients {
            corrupt: false,
            noise: false,
            unplug: true,
        };
        let (plan, report, host, took) = play(&script, test_config("unplug", wire), false);
        check_tables(&script, &host);
        check_leds(&script, &plan, &report);
        assert_eq!(report.unplugs, 1);
        assert_eq!(report.hellos, 2);
        assert_eq!(host.opened, report.ports);
        assert_eq!(host.opened.len(), 2);
        assert_ne!(host.opened[0], host.opened[1], "a replug is a new port");
        assert_eq!(host.gaps, 0);
        assert!(took < Duration::from_secs(10), "{took:?}");
    }

    #[test]
    fn no_host_is_a_timeout_and_leaves_no_link() {
        let script = scenario();
        let plan = plan(
            &script,
            Transients {
                lift: false,
                swap_steps: false,
            },
            1,
        )
        .unwrap();
        let mut cfg = test_config("nobody", WireTransients::default());
        cfg.connect_timeout = Some(Duration::from_millis(200));
        let mut announced = None;
        let err = run(&plan, &cfg, |p| announced = Some(p.to_path_buf())).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert_eq!(announced.as_deref(), Some(cfg.link.as_path()));
        assert!(std::fs::symlink_metadata(&cfg.link).is_err());
    }

    #[test]
    fn transients_parse() {
        let (p, w) = parse_transients(DEFAULT_TRANSIENTS).unwrap();
        assert!(p.lift && p.swap_steps);
        assert_eq!(w, WireTransients::default());
        let (p, w) = parse_transients("none").unwrap();
        assert!(!p.lift && !p.swap_steps && w == WireTransients::default());
        let (p, w) = parse_transients("all").unwrap();
        assert!(p.lift && p.swap_steps && w.corrupt && w.noise && w.unplug);
        let (p, w) = parse_transients("corrupt, unplug").unwrap();
        assert!(!p.lift && !p.swap_steps && w.corrupt && !w.noise && w.unplug);
        assert!(
            parse_transients("lift,wobble")
                .unwrap_err()
                .to_string()
                .contains("\"wobble\": expected none, all")
        );
        assert!(matches!(
            parse_transients("lift,,noise"),
            Err(TransientsError::EmptyItem { .. })
        ));
    }
}
