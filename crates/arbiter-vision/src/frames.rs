//! Frames from a camera or a directory of images, settled into
//! observations.
//!
//! [`Settler`] is the settling state machine, free of threads and clocks
//! (time comes from each frame's capture time), so it is tested directly
//! on hand-made recognitions; [`spawn`] runs a [`FrameSource`] and a
//! recogniser through it on a thread and reports to the referee loops the
//! way the mat does.
//!
//! How a stream of recognitions becomes observations:
//!
//! - A *busy* frame is one the recogniser calls busy (hands over the table)
//!   or one that differs from the frame before it by more than
//!   [`SettleConfig::motion`] (see [`motion`]); a frame that moved is not
//!   read at all. The first busy frame of a spell reports
//!   [`Observation::Busy`]; the spell lasts until the table has settled
//!   again, so a hand that flickers in and out of view is one spell, not
//!   many.
//! - Calm frames gather in a *still window* while they agree with it: the
//!   same occupied cells, and no cell read as one card in one frame and as
//!   another in another (`??` agrees with anything). A frame that disagrees
//!   is held in doubt: if the next frame agrees with the window, the
//!   doubtful frame was a misreading (a card missed or misread for one
//!   frame, as a camera's noise does) and the window goes on without it;
//!   if the next agrees with the doubtful frame, the table changed there,
//!   and a new window starts at the doubtful frame, so a real change
//!   settles no later for the doubt. A window never settles on a doubtful
//!   frame. Disagreement alone is not reported as busy: a recogniser that
//!   misses a card for one frame would otherwise flash busy on a quiet
//!   table; real changes come with motion anyway.
//! - A window that starts after a busy spell starts at the frame before
//!   its first, when that one was not seen with a hand and this one did
//!   not move against it: the table has lain still since that frame (the
//!   first frame after a hand moved against the hand, and was not read).
//! - Once a window spans [`SettleConfig::settle`], its table is settled: a
//!   cell read in any frame of the window takes that reading (the window
//!   holds at most one reading per cell, so it is also the reading of the
//!   majority of readable frames), a cell `??` in every frame stays
//!   [`Token::Unreadable`] for the referee to flag. The table is reported
//!   when it differs from the last one reported, so a hand that passes
//!   without changing anything, or a long still stretch, reports nothing
//!   new; a `??` read later in the same window improves the table and is
//!   reported.

use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::time::{Duration, Instant};

use image::{ImageReader, RgbImage};

use crate::recognise::Recognition;
use arbiter_core::live::{Health, Live, LiveEvent, Reporter};
use arbiter_core::observation::Observation;
use arbiter_core::table::{Cell, Table, Token};

/// One captured frame.
pub struct Frame {
    pub image: RgbImage,
    /// Capture time since the source started.
    pub at: Duration,
    /// Where it came from, for messages (a file name, `camera 0 #1234`).
    pub label: String,
}

/// Why a frame could not be had.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// This frame is lost (unreadable file, a bad capture); the next may be
    /// fine.
    #[error("{0}")]
    Frame(String),
    /// The source is gone (camera unplugged, directory removed).
    #[error("{0}")]
    Source(String),
    /// The source lost its device and is trying to get it back (a network
    /// camera's stream dropped): why, and when it tries next. Frames may
    /// come again.
    #[error("{0}")]
    Reconnecting(String),
}

/// Anything that yields frames in order.
pub trait FrameSource: Send {
    /// Names the source in messages (`frames:DIR`, `camera:0`).
    fn name(&self) -> String;
    /// The next frame; `Ok(None)` when the source has no more.
    fn next_frame(&mut self) -> Result<Option<Frame>, FrameError>;
    /// Frames come as they are captured (a camera), not as fast as they
    /// are asked for: a frame waiting behind a newer one is stale.
    fn live(&self) -> bool {
        false
    }
}

/// A recording: the images of a directory in name order, as if captured at
/// `fps`.
pub struct DirSource {
    dir: PathBuf,
    files: Vec<PathBuf>,
    next: usize,
    fps: f32,
}

impl DirSource {
    /// Lists the directory's images (`png`, `jpg`, `jpeg`, any case); other
    /// files, such as the `.toml` truth files beside fixtures, are not
    /// frames. Name order is byte order, so recordings want zero-padded
    /// numbers.
    pub fn open(dir: &Path, fps: f32) -> Result<DirSource, FrameError> {
        if !(fps.is_finite() && fps > 0.0) {
            return Err(FrameError::Source(format!(
                "{}: frames per second must be positive, not {fps}",
                dir.display()
            )));
        }
        let unreadable = |e: std::io::Error| {
            FrameError::Source(format!(
                "{}: cannot read the folder of frames: {e}",
                dir.display()
            ))
        };
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(unreadable)? {
            let path = entry.map_err(unreadable)?.path();
            if is_image_name(&path) && path.is_file() {
                files.push(path);
            }
        }
        // Said now, before a game is set up for a recording that has none.
        if files.is_empty() {
            return Err(FrameError::Source(format!(
                "{}: no frames: the folder holds no .png, .jpg or .jpeg image",
                dir.display()
            )));
        }
        files.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
        Ok(DirSource {
            dir: dir.to_path_buf(),
            files,
            next: 0,
            fps,
        })
    }

    /// How many images the directory held when opened.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

fn is_image_name(path: &Path) -> bool {
    path.extension().and_then(OsStr::to_str).is_some_and(|e| {
        ["png", "jpg", "jpeg"]
            .iter()
            .any(|x| e.eq_ignore_ascii_case(x))
    })
}

impl FrameSource for DirSource {
    fn name(&self) -> String {
        format!("frames:{}", self.dir.display())
    }

    fn next_frame(&mut self) -> Result<Option<Frame>, FrameError> {
        let Some(path) = self.files.get(self.next) else {
            return Ok(None);
        };
        // A bad file still takes its place in the recording's time, and the
        // next call moves past it.
        let index = self.next;
        self.next += 1;
        let label = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let at = Duration::from_secs_f64(index as f64 / f64::from(self.fps));
        let image = ImageReader::open(path)
            .and_then(ImageReader::with_guessed_format)
            .map_err(|e| {
                if e.kind() == io::ErrorKind::NotFound && !self.dir.is_dir() {
                    FrameError::Source(format!("{}: the directory is gone", self.dir.display()))
                } else {
                    FrameError::Frame(format!("{label}: {e}"))
                }
            })?
            .decode()
            .map_err(|e| FrameError::Frame(format!("{label}: cannot decode: {e}")))?
            .to_rgb8();
        Ok(Some(Frame { image, at, label }))
    }
}

/// How frames settle into observations.
#[derive(Clone, Debug, PartialEq)]
pub struct SettleConfig {
    /// How long the table must be still before it counts: 300 ms, as for
    /// the mat. (500 ms, to give a camera's flickering readings a longer
    /// vote, raised no fewer false flags over the demo game filmed with
    /// each frame's own sensor noise, and added 200 ms to every verdict and
    /// more to the slowest: see `examples/latency.rs`.)
    pub settle: Duration,
    /// A frame whose [`motion`] from the one before exceeds this is busy,
    /// whatever the recogniser says, and is not read; `None` ignores
    /// motion. The default, 8 grey levels, lies between a still frame's
    /// noise (at most 1 over the demo filmed on wood with each frame's own
    /// sensor noise) and the least a hand (18) or a card put down (14)
    /// moved there.
    pub motion: Option<f32>,
}

impl Default for SettleConfig {
    fn default() -> Self {
        SettleConfig {
            settle: Duration::from_millis(300),
            motion: Some(8.0),
        }
    }
}

/// Frames that agree so far, and what each occupied cell reads.
struct Window {
    since: Duration,
    frames: u32,
    /// Sorted by cell; `Token::Unreadable` until some frame reads the cell.
    cells: Vec<(Cell, Token)>,
    /// The latest frame, when it disagreed: a misreading or a change, as
    /// the next frame will tell.
    doubt: Option<Box<Window>>,
}

impl Window {
    fn new(since: Duration, cells: Vec<(Cell, Token)>) -> Window {
        Window {
            since,
            frames: 1,
            cells,
            doubt: None,
        }
    }

    fn agrees(&self, cells: &[(Cell, Token)]) -> bool {
        self.cells.len() == cells.len()
            && self.cells.iter().zip(cells).all(|(&(a, ta), &(b, tb))| {
                a == b && (ta == tb || ta == Token::Unreadable || tb == Token::Unreadable)
            })
    }

    fn add(&mut self, cells: &[(Cell, Token)]) {
        self.frames += 1;
        for ((_, mine), &(_, seen)) in self.cells.iter_mut().zip(cells) {
            if *mine == Token::Unreadable {
                *mine = seen;
            }
        }
    }

    fn table(&self) -> Table {
        self.cells.iter().copied().collect()
    }
}

/// Recognitions in, observations out (see the module's notes for the rules).
pub struct Settler {
    cfg: SettleConfig,
    /// `None` while busy, and before the first frame.
    window: Option<Window>,
    /// Busy has been reported and the table has not settled since.
    busy: bool,
    /// The last table reported.
    reported: Option<Table>,
    /// The table of the latest window to settle, reported or not.
    settled: Option<Table>,
    /// The capture time of the frame pushed before.
    last_at: Option<Duration>,
    /// The recogniser saw a hand in the frame pushed before.
    last_hand: bool,
}

impl Settler {
    pub fn new(cfg: SettleConfig) -> Settler {
        Settler {
            cfg,
            window: None,
            busy: false,
            reported: None,
            settled: None,
            last_at: None,
            last_hand: false,
        }
    }

    /// One frame's recognition, captured `at`; `motion` is its [`motion`]
    /// from the frame before, if measured.
    pub fn push(
        &mut self,
        at: Duration,
        rec: &Recognition,
        motion: Option<f32>,
    ) -> Option<Observation> {
        let moving = motion
            .zip(self.cfg.motion)
            .is_some_and(|(m, limit)| m > limit);
        let before = self.last_at.replace(at);
        let hand_before = std::mem::replace(&mut self.last_hand, rec.busy);
        if rec.busy || moving {
            self.window = None;
            if self.busy {
                return None;
            }
            self.busy = true;
            return Some(Observation::Busy);
        }
        let mut cells: Vec<(Cell, Token)> = rec.cells.iter().map(|r| (r.cell, r.token)).collect();
        cells.sort_by_key(|&(c, _)| c);
        // A recogniser that names a cell twice has two readings of one card:
        // they must agree like readings of successive frames.
        cells.dedup_by(|later, kept| {
            if later.0 != kept.0 {
                return false;
            }
            if kept.1 == Token::Unreadable {
                kept.1 = later.1;
            } else if later.1 != Token::Unreadable && later.1 != kept.1 {
                kept.1 = Token::Unreadable;
            }
            true
        });
        match &mut self.window {
            // The doubtful frame was a misreading: the window goes on.
            Some(w) if w.agrees(&cells) => {
                w.add(&cells);
                w.doubt = None;
            }
            // The table changed at the doubtful frame.
            Some(w) if w.doubt.as_ref().is_some_and(|d| d.agrees(&cells)) => {
                let mut changed = w.doubt.take()?;
                changed.add(&cells);
                self.window = Some(*changed);
            }
            Some(w) => {
                w.doubt = Some(Box::new(Window::new(at, cells)));
                return None;
            }
            // A frame measured still against the one before shows what
            // that frame showed: the table has lain still since then, even
            // when that frame was not read (it moved against its own
            // predecessor). Not when a hand was seen in it.
            None => {
                let since = match (motion, before) {
                    (Some(_), Some(before)) if !hand_before => before,
                    _ => at,
                };
                self.window = Some(Window::new(since, cells))
            }
        }
        let w = self.window.as_ref()?;
        if at.saturating_sub(w.since) < self.cfg.settle {
            return None;
        }
        self.settle()
    }

    /// The source has ended: a table still for fewer than `settle` is
    /// reported anyway, since a recording's last frames are its final
    /// position and no more frames will come to settle it. It must have
    /// been seen in two agreeing frames at least (one frame is not
    /// stillness); a spell of hands at the end reports nothing.
    pub fn finish(&mut self) -> Option<Observation> {
        match &self.window {
            Some(w) if w.frames >= 2 => self.settle(),
            _ => None,
        }
    }

    fn settle(&mut self) -> Option<Observation> {
        let table = self.window.as_ref()?.table();
        self.busy = false;
        self.settled = Some(table.clone());
        if self.reported.as_ref() == Some(&table) {
            return None;
        }
        self.reported = Some(table.clone());
        Some(Observation::Table(table))
    }

    /// What the frames show now: busy until the table settles again, then
    /// unreadable if the settled table holds a `??`.
    pub fn health(&self) -> Health {
        if self.busy {
            Health::Busy
        } else if self
            .settled
            .as_ref()
            .is_some_and(|t| !t.unreadable_cells().is_empty())
        {
            Health::Unreadable
        } else {
            Health::Connected
        }
    }
}

/// A frame reduced for [`motion`]: grey, 32×18, each pixel the mean of its
/// patch of the frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Thumb([u8; THUMB_W * THUMB_H]);

const THUMB_W: usize = 32;
const THUMB_H: usize = 18;

impl Thumb {
    pub fn of(image: &RgbImage) -> Thumb {
        let (w, h) = (image.width() as usize, image.height() as usize);
        let mut out = [0u8; THUMB_W * THUMB_H];
        if w == 0 || h == 0 {
            return Thumb(out);
        }
        // Patches of a frame smaller than the thumbnail would be empty:
        // each takes at least the pixel it starts on.
        let span = |i: usize, n: usize, of: usize| {
            let a = (i * n / of).min(n - 1);
            (a, ((i + 1) * n / of).clamp(a + 1, n))
        };
        let raw = image.as_raw();
        for ty in 0..THUMB_H {
            let (y0, y1) = span(ty, h, THUMB_H);
            for tx in 0..THUMB_W {
                let (x0, x1) = span(tx, w, THUMB_W);
                let mut sum = 0u64;
                for y in y0..y1 {
                    for p in raw[(y * w + x0) * 3..(y * w + x1) * 3].chunks_exact(3) {
                        sum +=
                            299 * u64::from(p[0]) + 587 * u64::from(p[1]) + 114 * u64::from(p[2]);
                    }
                }
                let n = ((y1 - y0) * (x1 - x0) * 1000) as u64;
                out[ty * THUMB_W + tx] = ((sum + n / 2) / n) as u8;
            }
        }
        Thumb(out)
    }
}

/// How much changed between two frames where they changed most: the mean
/// change, in 0–255 grey levels, of the [`MOTION_CELLS`] thumbnail cells
/// that changed most. Cheap enough for every frame, and blind to what the
/// recogniser looks for, so a hand it misses (a glove, a sleeve, poor
/// light) still moves pixels; averaging into patches first keeps sensor
/// noise out of it.
///
/// Not the mean over the whole picture: a hand reaching a quarter of the
/// way over the table changes a twentieth of the frame, and the filmed
/// demo's hand frames moved the mean by 0.5 to 4 levels, under any limit
/// that a frame of noise (0.05) and one card put down (0.4 to 1.7) leave
/// room for. Where it changed most, a hand moved 18 to 62 levels, a card
/// put down 14 to 49, and noise at most 1.
pub fn motion(prev: &Thumb, next: &Thumb) -> f32 {
    let mut most: Vec<u8> = prev
        .0
        .iter()
        .zip(&next.0)
        .map(|(&a, &b)| a.abs_diff(b))
        .collect();
    most.select_nth_unstable_by(MOTION_CELLS - 1, |a, b| b.cmp(a));
    let sum: u32 = most[..MOTION_CELLS].iter().map(|&c| u32::from(c)).sum();
    sum as f32 / MOTION_CELLS as f32
}

/// How many of the thumbnail's 576 cells [`motion`] looks at: 2% of the
/// picture, about two cards of the demo's size.
const MOTION_CELLS: usize = 12;

/// How [`spawn`] runs a source.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FramesConfig {
    pub settle: SettleConfig,
    /// Wait for each frame's capture time, so a recording replays as it
    /// was filmed; off, it runs as fast as it decodes. A camera paces
    /// itself either way.
    pub realtime: bool,
    /// How long a source may send nothing before it is said to have
    /// stalled (`None`: [`STALL_AFTER`]).
    pub stall_after: Option<Duration>,
}

/// Runs a source on a thread: each frame recognised, settled, and reported
/// as observations; a bad frame is a note naming it and is skipped. The
/// source's end flushes a table still at the end (see
/// [`Settler::finish`]); a source that fails ends with a note saying why
/// and flushes nothing, as its last frames may be from mid-move.
pub fn spawn(
    source: Box<dyn FrameSource>,
    recognise: Box<dyn FnMut(&RgbImage) -> Recognition + Send>,
    cfg: FramesConfig,
) -> Live {
    let (tx, rx) = mpsc::channel();
    let name = source.name();
    // The source is read on a thread of its own, so that one whose read
    // never returns (a camera driver that stopped streaming) is noticed
    // (see [`STALL_AFTER`]) rather than waited on for ever.
    let (frames_tx, frames) = mpsc::sync_channel(READ_AHEAD);
    let live = source.live();
    std::thread::spawn(move || capture(source, frames_tx));
    let reporter = Reporter::new(tx, name.clone());
    std::thread::spawn(move || run(frames, live, stall_after(&cfg), recognise, cfg, reporter));
    Live { name, events: rx }
}

/// Frames a source may read ahead of the one being recognised: enough
/// that a real-time replay finds the frames that came due during a slow
/// read waiting, to pass over all but the newest; few enough to hold
/// little memory (a 1280×720 frame is 2.7 MB).
const READ_AHEAD: usize = 4;

/// How long a source may send nothing before it is reported stalled: a
/// camera sends 15–60 frames a second, a folder of frames far faster.
pub const STALL_AFTER: Duration = Duration::from_secs(3);

/// What a source read on its own thread sends: one read's result.
type Read = Result<Option<Frame>, FrameError>;

/// Reads `source` until it ends or fails, or nobody listens.
fn capture(mut source: Box<dyn FrameSource>, frames: SyncSender<Read>) {
    loop {
        let read = source.next_frame();
        let last = !matches!(
            read,
            Ok(Some(_)) | Err(FrameError::Frame(_) | FrameError::Reconnecting(_))
        );
        if frames.send(read).is_err() || last {
            return;
        }
    }
}

/// How long [`run`] waits for a frame before it says the source stalled.
fn stall_after(cfg: &FramesConfig) -> Duration {
    cfg.stall_after.unwrap_or(STALL_AFTER)
}

/// Stops when nobody listens any more (a send fails).
/// `live`: the source is a camera (see [`FrameSource::live`]).
fn run(
    frames: Receiver<Read>,
    live: bool,
    stall_after: Duration,
    mut recognise: Box<dyn FnMut(&RgbImage) -> Recognition + Send>,
    cfg: FramesConfig,
    tx: Reporter,
) -> Option<()> {
    let mut settler = Settler::new(cfg.settle.clone());
    let mut shown = Health::Connected;
    // Tables sent: an input that ends having sent none says why.
    let judged = std::cell::Cell::new(0usize);
    tx.send(LiveEvent::Health(shown.clone())).ok()?;
    // Sends an observation, then the health if the settler's differs from
    // what the loops now believe: a hand that left the table unchanged
    // settles with no observation to say the table is calm again.
    let report = |obs: Option<Observation>, settler: &Settler, shown: &mut Health| {
        if let Some(obs) = obs {
            judged.set(judged.get() + usize::from(matches!(obs, Observation::Table(_))));
            if let Some(h) = Health::implied_by(&obs) {
                *shown = h;
            }
            tx.send(LiveEvent::Observation(obs)).ok()?;
        }
        let now = settler.health();
        if now != *shown {
            *shown = now.clone();
            tx.send(LiveEvent::Health(now)).ok()?;
        }
        Some(())
    };
    let started = Instant::now();
    let mut seen = Seen::default();
    let mut prev: Option<Thumb> = None;
    // A recogniser's note (a stale calibration, why cards are `??`) is
    // said when it is new, not on every frame: a frame without one does
    // not make the next frame's the same note new again (glare comes and
    // goes with every frame's noise).
    let mut last_note: Option<String> = None;
    let mut stalled = false;
    let mut unreadable = UnreadableFrames::new(UNREADABLE_SAID_EVERY);
    let mut rate = FrameRate::new();
    // A read taken from the channel while looking for newer frames, not
    // yet handled.
    let mut pending: Option<Read> = None;
    loop {
        let next = match pending.take() {
            Some(read) => Ok(read),
            None => frames.recv_timeout(stall_after),
        };
        let read = match next {
            Ok(read) => read,
            Err(RecvTimeoutError::Timeout) => {
                // Said once; the table stays as it was until frames come.
                // A source already reconnecting has said why it sends
                // nothing.
                if !stalled && !matches!(shown, Health::Reconnecting(_)) {
                    stalled = true;
                    let why = format!("no frame for {} s", stall_after.as_secs_f32());
                    shown = Health::Stalled(why.clone());
                    tx.send(LiveEvent::Health(shown.clone())).ok()?;
                }
                continue;
            }
            // The reading thread panicked: the source's own fault.
            Err(RecvTimeoutError::Disconnected) => Err(FrameError::Source(
                "the frame source stopped without saying why".to_string(),
            )),
        };
        if (stalled || matches!(shown, Health::Reconnecting(_))) && read.is_ok() {
            let said = if stalled {
                "frames again"
            } else {
                "reconnected: frames again"
            };
            stalled = false;
            shown = Health::Connected;
            tx.send(LiveEvent::Note(said.to_string())).ok()?;
            tx.send(LiveEvent::Health(shown.clone())).ok()?;
        }
        match read {
            Ok(Some(mut frame)) => {
                rate.tick(&tx);
                if let Some(said) = unreadable.summary_due(Instant::now()) {
                    tx.send(LiveEvent::Note(said)).ok()?;
                }
                seen.frames += 1;
                if cfg.realtime
                    && !live
                    && let Some(wait) = (started + frame.at).checked_duration_since(Instant::now())
                {
                    std::thread::sleep(wait);
                }
                // Frames that came due while the last one was being read
                // are stale: the newest due frame is read, so that the
                // delay from a card lying still to its verdict does not
                // grow with every frame a slow read lets through. (A
                // camera's frames are all due; a recording replayed as
                // fast as it decodes wants every frame.)
                if cfg.realtime || live {
                    let due = |f: &Frame| live || started + f.at <= Instant::now();
                    while let Ok(next) = frames.try_recv() {
                        match next {
                            Ok(Some(newer)) if due(&newer) => {
                                frame = newer;
                            }
                            other => {
                                pending = Some(other);
                                break;
                            }
                        }
                    }
                }
                let moved = cfg.settle.motion.and_then(|_| {
                    let thumb = Thumb::of(&frame.image);
                    let m = prev.as_ref().map(|p| motion(p, &thumb));
                    prev = Some(thumb);
                    m
                });
                // A frame that moved against the one before is busy
                // whatever it shows: it is not read. A read takes a tenth
                // of a second or more, and the first still frame after a
                // hand would wait on it.
                let moving = moved
                    .zip(cfg.settle.motion)
                    .is_some_and(|(m, limit)| m > limit);
                if moving {
                    let obs = settler.push(frame.at, &Recognition::default(), moved);
                    report(obs, &settler, &mut shown)?;
                    continue;
                }
                // A still frame is read. (A camera's reader, the
                // `Watcher`, does not read again what the frame before
                // showed: the settler sees every still frame in time.)
                let rec = recognise(&frame.image);
                seen.still += 1;
                seen.with_cards += usize::from(!rec.cells.is_empty());
                if rec.note.is_some() && rec.note != last_note {
                    if let Some(n) = &rec.note {
                        tx.send(LiveEvent::Note(n.clone())).ok()?;
                    }
                    last_note = rec.note.clone();
                }
                let obs = settler.push(frame.at, &rec, moved);
                report(obs, &settler, &mut shown)?;
            }
            Ok(None) => {
                if let Some(said) = unreadable.summary() {
                    tx.send(LiveEvent::Note(said)).ok()?;
                }
                report(settler.finish(), &settler, &mut shown)?;
                if judged.get() == 0 {
                    tx.send(LiveEvent::Note(seen.why_nothing(&cfg.settle)))
                        .ok()?;
                }
                tx.send(LiveEvent::Ended).ok()?;
                return Some(());
            }
            Err(FrameError::Frame(why)) => {
                seen.broken += 1;
                if let Some(said) = unreadable.frame(why, Instant::now()) {
                    tx.send(LiveEvent::Note(said)).ok()?
                }
            }
            Err(FrameError::Source(why)) => {
                if let Some(said) = unreadable.summary() {
                    tx.send(LiveEvent::Note(said)).ok()?;
                }
                tx.send(LiveEvent::Note(why)).ok()?;
                tx.send(LiveEvent::Ended).ok()?;
                return Some(());
            }
            // Each failed try is said as the input's health (the view's
            // status line, the page, the log); the table and the game stay
            // as they were, and a hand seen before the drop is forgotten.
            Err(FrameError::Reconnecting(why)) => {
                stalled = false;
                prev = None;
                shown = Health::Reconnecting(why);
                tx.send(LiveEvent::Health(shown.clone())).ok()?;
            }
        }
    }
}

/// How many unreadable frames are said one by one in each
/// [`UNREADABLE_SAID_EVERY`]; the rest are counted and said together.
const UNREADABLE_SAID_EACH: usize = 3;
/// The window over which unreadable frames are limited.
const UNREADABLE_SAID_EVERY: Duration = Duration::from_secs(10);

/// Keeps a source that spoils every frame (a phone on a weak network
/// tearing its JPEGs, a webcam's bad captures: fifteen a second) from
/// burying the log and the view's notes. The first few in a window are
/// said, each naming its frame (a recording's few bad files are all
/// named); past those, they are counted and said as one line when the
/// window ends, at the input's end, or before it fails.
struct UnreadableFrames {
    every: Duration,
    window_from: Option<Instant>,
    said: usize,
    held: usize,
    last_held: Option<String>,
}

impl UnreadableFrames {
    fn new(every: Duration) -> UnreadableFrames {
        UnreadableFrames {
            every,
            window_from: None,
            said: 0,
            held: 0,
            last_held: None,
        }
    }

    /// One frame that could not be read: what to say now, if anything.
    fn frame(&mut self, why: String, now: Instant) -> Option<String> {
        let window = *self.window_from.get_or_insert(now);
        if now.duration_since(window) >= self.every {
            // A new window: what the last one held back is said first, and
            // this frame is counted with it so that one line says both.
            self.held += 1;
            self.last_held = Some(why);
            let said = self.summary();
            self.window_from = Some(now);
            self.said = 1;
            return said;
        }
        if self.said < UNREADABLE_SAID_EACH {
            self.said += 1;
            return Some(why);
        }
        self.held += 1;
        self.last_held = Some(why);
        None
    }

    /// The held-back count, once its window has passed.
    fn summary_due(&mut self, now: Instant) -> Option<String> {
        let window = self.window_from?;
        if self.held > 0 && now.duration_since(window) >= self.every {
            let said = self.summary();
            self.window_from = Some(now);
            return said;
        }
        None
    }

    /// The held-back count now, and a fresh window.
    fn summary(&mut self) -> Option<String> {
        self.said = 0;
        self.window_from = None;
        let held = std::mem::take(&mut self.held);
        let last = self.last_held.take()?;
        Some(if held == 1 {
            last
        } else {
            format!("{held} more frames could not be read; the last: {last}")
        })
    }
}

/// What a source's frames came to, to say why an input that judged no
/// table judged none.
#[derive(Default)]
struct Seen {
    /// Frames decoded.
    frames: usize,
    /// Files that would not decode.
    broken: usize,
    /// Frames still enough to be read.
    still: usize,
    /// Of those, frames with a card found.
    with_cards: usize,
}

impl Seen {
    fn why_nothing(&self, settle: &SettleConfig) -> String {
        let ms = settle.settle.as_millis();
        let why = match self {
            Seen {
                frames: 0,
                broken: 0,
                ..
            } => "no frame at all".to_string(),
            Seen {
                frames: 0, broken, ..
            } => format!("none of its {broken} files could be decoded"),
            Seen {
                frames, still: 0, ..
            } => format!("{frames} frames, all moving: none was still to be read"),
            Seen {
                frames,
                still,
                with_cards: 0,
                ..
            } => format!("{frames} frames, {still} read, and no card found in any"),
            Seen {
                frames, with_cards, ..
            } => format!(
                "{frames} frames, cards found in {with_cards}, but no table stayed still \
                 for the settle time ({ms} ms)"
            ),
        };
        format!("judged no table: {why}")
    }
}

/// The frame rate, logged every [`FrameRate::EVERY`]: a camera that slows
/// (a dim room, a busy USB hub) shows in the log.
struct FrameRate {
    since: Instant,
    frames: u32,
}

impl FrameRate {
    const EVERY: Duration = Duration::from_secs(10);

    fn new() -> FrameRate {
        FrameRate {
            since: Instant::now(),
            frames: 0,
        }
    }

    fn tick(&mut self, tx: &Reporter) {
        self.frames += 1;
        let took = self.since.elapsed();
        if took >= Self::EVERY {
            let fps = self.frames as f32 / took.as_secs_f32();
            tracing::info!(source = tx.source(), fps, "frames taken in");
            *self = FrameRate::new();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognise::Reading;
    use arbiter_core::table::{Card, Colour, Piece};
    use image::Rgb;
    use std::sync::atomic::{AtomicU32, Ordering};

    const WN: Token = Token::Up(Card::new(Colour::White, Piece::Knight));
    const BQ: Token = Token::Up(Card::new(Colour::Black, Piece::Queen));
    const BP: Token = Token::Up(Card::new(Colour::Black, Piece::Pawn));
    const UNREAD: Token = Token::Unreadable;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn rec(cells: &[(i32, i32, Token)]) -> Recognition {
        Recognition {
            busy: false,
            cells: cells
                .iter()
                .map(|&(c, r, token)| Reading {
                    cell: Cell::new(c, r),
                    token,
                    confidence: if token == Token::Unreadable { 0.2 } else { 0.9 },
                })
                .collect(),
            note: None,
        }
    }

    fn busy() -> Recognition {
        Recognition {
            busy: true,
            cells: Vec::new(),
            note: None,
        }
    }

    fn table(cells: &[(i32, i32, Token)]) -> Table {
        cells
            .iter()
            .map(|&(c, r, t)| (Cell::new(c, r), t))
            .collect()
    }

    fn settler(settle: u64) -> Settler {
        Settler::new(SettleConfig {
            settle: ms(settle),
            motion: Some(4.0),
        })
    }

    /// Pushes recognitions 100 ms apart from `start`; what each returned.
    fn feed(s: &mut Settler, start: u64, recs: &[Recognition]) -> Vec<Option<Observation>> {
        recs.iter()
            .enumerate()
            .map(|(i, r)| s.push(ms(start + 100 * i as u64), r, None))
            .collect()
    }

    #[test]
    fn a_still_table_settles_once() {
        let mut s = settler(300);
        let a = rec(&[(0, 0, WN)]);
        let out = feed(&mut s, 0, &vec![a; 8]);
        let expected = Some(Observation::Table(table(&[(0, 0, WN)])));
        assert_eq!(out[..3], [None, None, None], "not still for 300 ms yet");
        assert_eq!(out[3], expected, "still from 0 to 300 ms");
        assert!(out[4..].iter().all(Option::is_none), "{out:?}");
        assert_eq!(s.health(), Health::Connected);
    }

    #[test]
    fn a_busy_spell_reports_busy_once_then_the_new_table() {
        let mut s = settler(200);
        let a = rec(&[(0, 0, WN)]);
        let b = rec(&[(0, 0, WN), (1, 0, BQ)]);
        feed(&mut s, 0, &[a.clone(), a.clone(), a]);
        let out = feed(
            &mut s,
            300,
            &[busy(), busy(), busy(), b.clone(), b.clone(), b],
        );
        assert_eq!(
            out,
            vec![
                Some(Observation::Busy),
                None,
                None,
                None,
                None,
                Some(Observation::Table(table(&[(0, 0, WN), (1, 0, BQ)]))),
            ]
        );
    }

    #[test]
    fn a_hand_back_before_the_table_settles_is_the_same_spell() {
        let mut s = settler(200);
        let a = rec(&[(0, 0, WN)]);
        feed(&mut s, 0, &[a.clone(), a.clone(), a.clone()]);
        let out = feed(&mut s, 300, &[busy(), a.clone(), busy(), a.clone()]);
        assert_eq!(out, vec![Some(Observation::Busy), None, None, None]);
        assert_eq!(s.health(), Health::Busy);
        // Settled again, and unchanged: nothing to report, but calm.
        let out = feed(&mut s, 700, &[a.clone(), a.clone()]);
        assert_eq!(out, vec![None, None]);
        assert_eq!(s.health(), Health::Connected);
        assert_eq!(
            feed(&mut s, 900, &[busy()]),
            vec![Some(Observation::Busy)],
            "a new spell after the table settled"
        );
    }

    #[test]
    fn a_table_settles_from_the_first_frame_that_showed_it_still() {
        let mut s = settler(300);
        let a = rec(&[(0, 0, WN)]);
        s.push(ms(0), &a, None);
        assert_eq!(s.push(ms(100), &a, Some(30.0)), Some(Observation::Busy));
        // The frame at 200 moved against the hand at 100 (not read, or
        // read as it lies): the one at 300 shows it again, still, so the
        // table has lain still since 200, and settles 300 ms after.
        assert_eq!(s.push(ms(200), &rec(&[(0, 0, BP)]), Some(30.0)), None);
        assert_eq!(s.push(ms(300), &rec(&[(0, 0, BP)]), Some(0.5)), None);
        assert_eq!(s.push(ms(400), &rec(&[(0, 0, BP)]), Some(0.5)), None);
        assert_eq!(
            s.push(ms(500), &rec(&[(0, 0, BP)]), Some(0.5)),
            Some(Observation::Table(table(&[(0, 0, BP)])))
        );
    }

    #[test]
    fn a_frame_with_a_hand_seen_in_it_does_not_start_the_stillness() {
        let mut s = settler(300);
        let a = rec(&[(0, 0, WN)]);
        s.push(ms(0), &a, None);
        // A hand held still over the table, then gone without moving the
        // picture much: the table is still from the frame without it.
        assert_eq!(s.push(ms(100), &busy(), Some(0.5)), Some(Observation::Busy));
        let b = rec(&[(0, 0, BP)]);
        assert_eq!(s.push(ms(200), &b, Some(0.5)), None);
        assert_eq!(s.push(ms(400), &b, Some(0.5)), None);
        assert_eq!(
            s.push(ms(500), &b, Some(0.5)),
            Some(Observation::Table(table(&[(0, 0, BP)])))
        );
    }

    #[test]
    fn motion_makes_a_frame_busy_whatever_the_recogniser_says() {
        let mut s = settler(0);
        let a = rec(&[(0, 0, WN)]);
        assert_eq!(
            s.push(ms(0), &a, None),
            Some(Observation::Table(table(&[(0, 0, WN)])))
        );
        assert_eq!(s.push(ms(100), &a, Some(3.9)), None, "below the limit");
        assert_eq!(s.push(ms(200), &a, Some(30.0)), Some(Observation::Busy));
        let mut blind = Settler::new(SettleConfig {
            settle: ms(0),
            motion: None,
        });
        blind.push(ms(0), &a, None);
        assert_eq!(blind.push(ms(100), &a, Some(30.0)), None, "motion ignored");
    }

    #[test]
    fn flicker_takes_the_confident_reading_and_a_cell_never_read_stays_unreadable() {
        let mut s = settler(300);
        let out = feed(
            &mut s,
            0,
            &[
                rec(&[(0, 0, UNREAD), (1, 0, UNREAD)]),
                rec(&[(0, 0, WN), (1, 0, UNREAD)]),
                rec(&[(0, 0, UNREAD), (1, 0, UNREAD)]),
                rec(&[(0, 0, WN), (1, 0, UNREAD)]),
            ],
        );
        assert_eq!(
            out[3],
            Some(Observation::Table(table(&[(0, 0, WN), (1, 0, UNREAD)])))
        );
        assert_eq!(s.health(), Health::Unreadable);
        // Read at last, with the table still: the better table is reported.
        let out = feed(&mut s, 400, &[rec(&[(0, 0, UNREAD), (1, 0, BQ)])]);
        assert_eq!(
            out,
            vec![Some(Observation::Table(table(&[(0, 0, WN), (1, 0, BQ)])))]
        );
        assert_eq!(s.health(), Health::Connected);
    }

    #[test]
    fn a_different_card_is_a_change_even_through_unreadable_frames() {
        let mut s = settler(200);
        let out = feed(
            &mut s,
            0,
            &[
                rec(&[(0, 0, WN)]),
                rec(&[(0, 0, UNREAD)]),
                rec(&[(0, 0, BQ)]),
                rec(&[(0, 0, BQ)]),
                rec(&[(0, 0, UNREAD)]),
            ],
        );
        assert_eq!(
            out,
            vec![
                None,
                None,
                None,
                None,
                Some(Observation::Table(table(&[(0, 0, BQ)]))),
            ],
            "wN was never still for 200 ms; bQ from 200 ms is, at 400"
        );
    }

    #[test]
    fn a_change_that_does_not_last_is_never_reported() {
        let mut s = settler(300);
        let a = rec(&[(0, 0, WN)]);
        let b = rec(&[(0, 0, WN), (1, 0, BQ)]);
        feed(&mut s, 0, &vec![a.clone(); 4]);
        let out = feed(
            &mut s,
            400,
            &[b.clone(), b.clone(), b, a.clone(), a.clone(), a.clone(), a],
        );
        assert!(
            out.iter().all(Option::is_none),
            "b lasted 200 ms; a came back unchanged: {out:?}"
        );
    }

    /// A card missed in one frame is a misreading: the window holds
    /// through it (and does not settle on it), and the table settles on
    /// time with the card.
    #[test]
    fn a_card_missed_for_one_frame_does_not_break_the_stillness() {
        let mut s = settler(200);
        let a = rec(&[(0, 0, WN), (1, 0, BQ)]);
        let out = feed(
            &mut s,
            0,
            &[a.clone(), a.clone(), rec(&[(0, 0, WN)]), a.clone(), a],
        );
        assert_eq!(out[..3], [None, None, None], "never on the doubtful frame");
        assert_eq!(
            out[3],
            Some(Observation::Table(table(&[(0, 0, WN), (1, 0, BQ)])))
        );
        assert_eq!(out[4], None, "reported once");
    }

    /// A change seen in two frames running is a change, from its first
    /// frame: the new table settles as soon as it would have with no
    /// doubt, and the old one, not yet still for long enough, never does.
    #[test]
    fn a_card_gone_for_two_frames_is_gone_from_the_first() {
        let mut s = settler(200);
        let a = rec(&[(0, 0, WN), (1, 0, BQ)]);
        let b = rec(&[(0, 0, WN)]);
        let out = feed(&mut s, 0, &[a.clone(), a, b.clone(), b.clone(), b]);
        assert_eq!(out[..4], [None, None, None, None]);
        assert_eq!(out[4], Some(Observation::Table(table(&[(0, 0, WN)]))));
    }

    #[test]
    fn repeated_identical_tables_are_reported_once() {
        let mut s = settler(100);
        let a = rec(&[(0, 0, WN)]);
        let mut tables = 0;
        for spell in 0..3 {
            let start = spell * 1000;
            let out = feed(&mut s, start, &[busy(), a.clone(), a.clone(), a.clone()]);
            tables += out
                .iter()
                .filter(|o| matches!(o, Some(Observation::Table(_))))
                .count();
            assert_eq!(out[0], Some(Observation::Busy));
        }
        assert_eq!(tables, 1);
    }

    #[test]
    fn the_end_reports_a_table_still_too_briefly_but_not_a_single_frame_or_hands() {
        let a = rec(&[(0, 0, WN)]);
        let b = rec(&[(0, 0, BQ)]);
        let mut s = settler(500);
        feed(&mut s, 0, &vec![a.clone(); 6]);
        feed(&mut s, 600, &[busy(), b.clone(), b.clone()]);
        assert_eq!(
            s.finish(),
            Some(Observation::Table(table(&[(0, 0, BQ)]))),
            "still for 100 ms when the recording ended"
        );
        assert_eq!(s.finish(), None, "already reported");

        let mut s = settler(500);
        feed(&mut s, 0, &vec![a.clone(); 6]);
        feed(&mut s, 600, &[busy(), b.clone()]);
        assert_eq!(s.finish(), None, "one frame is not stillness");

        let mut s = settler(500);
        feed(&mut s, 0, &vec![a.clone(); 6]);
        feed(&mut s, 600, &[b.clone(), b, busy()]);
        assert_eq!(s.finish(), None, "hands over the table at the end");
        assert_eq!(s.health(), Health::Busy);
    }

    #[test]
    fn an_empty_table_settles_like_any_other() {
        let mut s = settler(0);
        assert_eq!(
            s.push(ms(0), &rec(&[]), None),
            Some(Observation::Table(Table::new()))
        );
    }

    #[test]
    fn motion_measures_where_the_picture_changed_most() {
        let grey = RgbImage::from_pixel(64, 36, Rgb([100, 100, 100]));
        let lighter = RgbImage::from_pixel(64, 36, Rgb([140, 140, 140]));
        // A hand in one corner: 3×3 of the 32×18 cells, a fiftieth of
        // the picture.
        let mut corner = grey.clone();
        for y in 0..6 {
            for x in 0..6 {
                corner.put_pixel(x, y, Rgb([200, 160, 130]));
            }
        }
        let (g, l, c) = (Thumb::of(&grey), Thumb::of(&lighter), Thumb::of(&corner));
        assert_eq!(motion(&g, &g), 0.0);
        assert_eq!(motion(&g, &l), 40.0, "the whole picture lighter");
        // The hand counts in full: 9 of the 12 cells most changed moved
        // by 70 levels (the mean over the picture moved 1.1).
        let hand = motion(&g, &c);
        assert!((hand - 9.0 * 70.0 / 12.0).abs() < 1.0, "{hand}");
        assert!(hand > SettleConfig::default().motion.unwrap());
        // Either way round.
        assert_eq!(motion(&c, &g), hand);
        // Sensor noise of ±8 levels a pixel, averaged into the cells.
        let big = RgbImage::from_pixel(640, 360, Rgb([100, 100, 100]));
        let mut noisy = big.clone();
        for (i, p) in noisy.pixels_mut().enumerate() {
            let n = (i * 7919 % 17) as u8;
            *p = Rgb([92 + n, 92 + n, 92 + n]);
        }
        assert!(motion(&Thumb::of(&big), &Thumb::of(&noisy)) < 1.0);
        let black = RgbImage::from_pixel(64, 36, Rgb([0, 0, 0]));
        // Frames smaller than the thumbnail still count every pixel.
        let tiny = Thumb::of(&RgbImage::from_pixel(4, 4, Rgb([255, 0, 0])));
        assert_eq!(tiny.0[0], tiny.0[THUMB_W * THUMB_H - 1]);
        assert_eq!(tiny.0[0], 76, "red's luma");
        assert_eq!(Thumb::of(&RgbImage::new(0, 0)), Thumb::of(&black));
    }

    /// A fresh directory under the system's temp dir, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(what: &str) -> TempDir {
            static N: AtomicU32 = AtomicU32::new(0);
            let dir = std::env::temp_dir().join(format!(
                "arbiter-frames-{}-{what}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }

        fn png(&self, name: &str, colour: [u8; 3]) {
            RgbImage::from_pixel(4, 4, Rgb(colour))
                .save(self.0.join(name))
                .unwrap();
        }

        fn file(&self, name: &str, bytes: &[u8]) {
            std::fs::write(self.0.join(name), bytes).unwrap();
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Each frame's label and time, or why it was lost.
    fn drain(src: &mut DirSource) -> Vec<Result<(String, Duration), FrameError>> {
        let mut out = Vec::new();
        loop {
            match src.next_frame() {
                Ok(Some(f)) => out.push(Ok((f.label, f.at))),
                Ok(None) => return out,
                Err(e @ FrameError::Frame(_)) => out.push(Err(e)),
                Err(FrameError::Source(why) | FrameError::Reconnecting(why)) => {
                    panic!("source failed: {why}")
                }
            }
        }
    }

    #[test]
    fn a_directory_yields_its_images_in_name_order_and_nothing_else() {
        let d = TempDir::new("order");
        d.png("b.png", [0, 0, 0]);
        d.png("a.png", [0, 0, 0]);
        d.png("10.png", [0, 0, 0]);
        d.png("2.PNG", [0, 0, 0]);
        RgbImage::from_pixel(4, 4, Rgb([9, 9, 9]))
            .save(d.0.join("c.jpg"))
            .unwrap();
        d.file("a.toml", b"truth = true\n");
        d.file("notes.txt", b"not a frame");
        std::fs::create_dir(d.0.join("sub.png")).unwrap();
        let mut src = DirSource::open(&d.0, 4.0).unwrap();
        assert_eq!(src.len(), 5);
        let frames = drain(&mut src);
        let labels: Vec<_> = frames
            .iter()
            .map(|f| f.as_ref().unwrap().0.as_str())
            .collect();
        assert_eq!(labels, ["10.png", "2.PNG", "a.png", "b.png", "c.jpg"]);
        assert_eq!(frames[4].as_ref().unwrap().1, ms(1000), "4 fps");
        assert!(src.next_frame().unwrap().is_none(), "ended stays ended");
        assert!(src.name().starts_with("frames:"));
    }

    #[test]
    fn a_bad_file_is_named_and_skipped() {
        let d = TempDir::new("bad");
        d.png("00.png", [0, 0, 0]);
        d.file("01.png", b"\x89PNG\r\n\x1a\nthis is not the rest of a png");
        d.png("02.png", [0, 0, 0]);
        let mut src = DirSource::open(&d.0, 10.0).unwrap();
        let frames = drain(&mut src);
        assert_eq!(frames.len(), 3, "{frames:?}");
        let Err(why) = &frames[1] else {
            panic!("{frames:?}")
        };
        assert!(
            why.to_string().starts_with("01.png: cannot decode"),
            "{why}"
        );
        assert_eq!(
            frames[2].as_ref().ok(),
            Some(&("02.png".to_string(), ms(200))),
            "the bad file keeps its place in time"
        );
    }

    #[test]
    fn a_missing_directory_is_named() {
        let d = TempDir::new("missing");
        let gone = d.0.join("nowhere");
        let Err(FrameError::Source(why)) = DirSource::open(&gone, 10.0) else {
            panic!("a missing directory opens")
        };
        assert!(why.contains(&gone.display().to_string()), "{why}");
        let Err(FrameError::Source(why)) = DirSource::open(&d.0, 0.0) else {
            panic!("0 fps accepted")
        };
        assert!(why.contains("frames per second"), "{why}");
    }

    #[test]
    fn a_directory_removed_while_playing_ends_the_source() {
        let d = TempDir::new("removed");
        d.png("00.png", [0, 0, 0]);
        d.png("01.png", [0, 0, 0]);
        let mut src = DirSource::open(&d.0, 10.0).unwrap();
        assert!(src.next_frame().unwrap().is_some());
        std::fs::remove_dir_all(&d.0).unwrap();
        assert!(matches!(src.next_frame(), Err(FrameError::Source(_))));
    }

    const RED: [u8; 3] = [255, 0, 0];
    const BLUE: [u8; 3] = [0, 0, 255];
    const WHITE: [u8; 3] = [255, 255, 255];

    /// Reads a test frame's table from its colour: red a lone knight, blue
    /// the knight and an unreadable card beside it, white a hand.
    fn by_colour(image: &RgbImage) -> Recognition {
        match image.get_pixel(0, 0).0 {
            RED => rec(&[(0, 0, WN)]),
            BLUE => rec(&[(0, 0, WN), (1, 0, UNREAD)]),
            WHITE => busy(),
            other => panic!("no table is {other:?}"),
        }
    }

    fn collect(live: Live) -> Vec<LiveEvent> {
        let events: Vec<LiveEvent> = live.events.iter().collect();
        events
            .into_iter()
            .map(|e| match e {
                // The decoder's words are its own; the file name is ours.
                LiveEvent::Note(n) if n.starts_with("03.png: cannot decode") => {
                    LiveEvent::Note("03.png".into())
                }
                e => e,
            })
            .collect()
    }

    #[test]
    fn a_recording_plays_through_to_the_exact_events() {
        let d = TempDir::new("play");
        let frames: [(&str, Option<[u8; 3]>); 14] = [
            ("00.png", Some(RED)),
            ("01.png", Some(RED)),
            ("02.png", Some(RED)), // 200 ms: still since 0, settled
            ("03.png", None),      // corrupt
            ("04.png", Some(WHITE)),
            ("05.png", Some(RED)), // moved from white: still busy, not read
            ("06.png", Some(RED)), // still since 05
            ("07.png", Some(RED)), // 700 ms: settled, unchanged
            ("08.png", Some(RED)),
            ("09.png", Some(BLUE)), // moved: not read
            ("10.png", Some(BLUE)), // still since 09
            ("11.png", Some(BLUE)), // 1100 ms: settled
            ("12.png", Some(BLUE)),
            ("13.png", Some(RED)), // moved, and the end
        ];
        for (name, colour) in frames {
            match colour {
                Some(c) => d.png(name, c),
                None => d.file(name, b"not a png at all"),
            }
        }
        d.file("truth.toml", b"");
        let cfg = FramesConfig {
            settle: SettleConfig {
                settle: ms(200),
                ..SettleConfig::default()
            },
            ..FramesConfig::default()
        };
        let live = spawn(
            Box::new(DirSource::open(&d.0, 10.0).unwrap()),
            Box::new(by_colour),
            cfg,
        );
        assert_eq!(
            collect(live),
            vec![
                LiveEvent::Health(Health::Connected),
                LiveEvent::Observation(Observation::Table(table(&[(0, 0, WN)]))),
                LiveEvent::Note("03.png".into()),
                LiveEvent::Observation(Observation::Busy),
                // The hand left the knight alone: calm again, no table.
                LiveEvent::Health(Health::Connected),
                LiveEvent::Observation(Observation::Busy),
                LiveEvent::Observation(Observation::Table(table(&[(0, 0, WN), (1, 0, UNREAD)]))),
                LiveEvent::Observation(Observation::Busy),
                LiveEvent::Ended,
            ]
        );
    }

    /// A recording of `frames` frames, the first `red` of them red (a
    /// knight) and the rest blue (a knight and an unreadable card).
    fn red_then_blue(name: &str, red: usize, frames: usize) -> TempDir {
        let d = TempDir::new(name);
        for i in 0..frames {
            d.png(&format!("{i:02}.png"), if i < red { RED } else { BLUE });
        }
        d
    }

    #[test]
    fn a_frame_that_moved_is_not_read() {
        let d = TempDir::new("moved");
        let shown = [RED, RED, WHITE, BLUE, BLUE, BLUE];
        for (i, colour) in shown.into_iter().enumerate() {
            RgbImage::from_pixel(64, 48, Rgb(colour))
                .save(d.0.join(format!("{i:02}.png")))
                .unwrap();
        }
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = seen.clone();
        let live = spawn(
            Box::new(DirSource::open(&d.0, 10.0).unwrap()),
            Box::new(move |image: &RgbImage| {
                let colour = image.get_pixel(0, 0).0;
                log.lock().unwrap().push(colour);
                match colour {
                    BLUE => rec(&[(0, 0, WN), (1, 0, BQ)]),
                    _ => by_colour(image),
                }
            }),
            FramesConfig {
                settle: SettleConfig {
                    settle: ms(100),
                    ..SettleConfig::default()
                },
                ..FramesConfig::default()
            },
        );
        let events = collect(live);
        assert_eq!(
            events[1..],
            [
                LiveEvent::Observation(Observation::Table(table(&[(0, 0, WN)]))),
                // The hand, seen moving, not read.
                LiveEvent::Observation(Observation::Busy),
                LiveEvent::Observation(Observation::Table(table(&[(0, 0, WN), (1, 0, BQ)]))),
                LiveEvent::Ended,
            ]
        );
        // The hand and the first blue frame moved: every other frame is
        // read (a camera's reader passes over what it read before).
        assert_eq!(*seen.lock().unwrap(), [RED, RED, BLUE, BLUE]);
    }

    #[test]
    fn the_end_of_a_recording_flushes_its_last_position() {
        let d = red_then_blue("flush", 3, 6);
        let live = spawn(
            Box::new(DirSource::open(&d.0, 10.0).unwrap()),
            Box::new(by_colour),
            FramesConfig {
                settle: SettleConfig {
                    settle: ms(200),
                    ..SettleConfig::default()
                },
                ..FramesConfig::default()
            },
        );
        assert_eq!(
            collect(live),
            vec![
                LiveEvent::Health(Health::Connected),
                LiveEvent::Observation(Observation::Table(table(&[(0, 0, WN)]))),
                LiveEvent::Observation(Observation::Busy),
                // Still for 100 ms of the 200 when the recording ended.
                LiveEvent::Observation(Observation::Table(table(&[(0, 0, WN), (1, 0, UNREAD)]))),
                LiveEvent::Ended,
            ]
        );
    }

    /// A source that gives one frame and then fails.
    struct Unplugged(bool);

    impl FrameSource for Unplugged {
        fn name(&self) -> String {
            "camera:test".into()
        }

        fn next_frame(&mut self) -> Result<Option<Frame>, FrameError> {
            if std::mem::replace(&mut self.0, true) {
                return Err(FrameError::Source("camera:test: unplugged".into()));
            }
            Ok(Some(Frame {
                image: RgbImage::from_pixel(4, 4, Rgb(RED)),
                at: Duration::ZERO,
                label: "#0".into(),
            }))
        }
    }

    #[test]
    fn a_failed_source_ends_with_why_and_flushes_nothing() {
        let live = spawn(
            Box::new(Unplugged(false)),
            Box::new(by_colour),
            FramesConfig::default(),
        );
        assert_eq!(live.name, "camera:test");
        assert_eq!(
            collect(live),
            vec![
                LiveEvent::Health(Health::Connected),
                LiveEvent::Note("camera:test: unplugged".into()),
                LiveEvent::Ended,
            ]
        );
    }

    /// A stream that tears most of its frames: `torn` bad reads, then two
    /// good frames half a second apart, then the end.
    struct Tears {
        read: usize,
        torn: usize,
    }

    impl FrameSource for Tears {
        fn name(&self) -> String {
            "camera:tears".into()
        }

        fn next_frame(&mut self) -> Result<Option<Frame>, FrameError> {
            self.read += 1;
            if self.read <= self.torn {
                return Err(FrameError::Frame(format!("#{}: torn", self.read)));
            }
            let good = self.read - self.torn;
            Ok((good <= 2).then(|| Frame {
                image: RgbImage::from_pixel(4, 4, Rgb(RED)),
                at: ms(500 * good as u64),
                label: format!("good #{good}"),
            }))
        }
    }

    /// A hundred torn frames are not a hundred notes: the first few are
    /// said, naming each, and the rest are counted in one line; the good
    /// frames after them are judged as ever.
    #[test]
    fn a_stream_of_torn_frames_is_said_in_a_few_lines_not_one_a_frame() {
        let events = collect(spawn(
            Box::new(Tears { read: 0, torn: 100 }),
            Box::new(by_colour),
            FramesConfig::default(),
        ));
        let notes: Vec<&str> = events
            .iter()
            .filter_map(|e| match e {
                LiveEvent::Note(n) => Some(n.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            notes,
            [
                "#1: torn",
                "#2: torn",
                "#3: torn",
                "97 more frames could not be read; the last: #100: torn"
            ],
            "{events:?}"
        );
        assert!(
            events
                .iter()
                .any(|e| matches!(e, LiveEvent::Observation(Observation::Table(_)))),
            "{events:?}"
        );
    }

    /// Each window says its first few and counts the rest; a quiet window
    /// says nothing; one held-back frame is said as itself.
    #[test]
    fn unreadable_frames_are_limited_per_window() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut u = UnreadableFrames::new(Duration::from_secs(10));
        let said: Vec<_> = (0..5)
            .filter_map(|i| u.frame(format!("f{i}"), at(0)))
            .collect();
        assert_eq!(said, ["f0", "f1", "f2"]);
        assert_eq!(u.summary_due(at(5)), None, "within the window");
        assert_eq!(
            u.summary_due(at(11)).as_deref(),
            Some("2 more frames could not be read; the last: f4")
        );
        assert_eq!(u.summary_due(at(30)), None, "nothing held");
        // A new window says its first few again.
        let said: Vec<_> = (5..9)
            .filter_map(|i| u.frame(format!("f{i}"), at(31)))
            .collect();
        assert_eq!(said, ["f5", "f6", "f7"]);
        // The held one is said as itself, with the frame that opened the
        // next window.
        assert_eq!(
            u.frame("f9".into(), at(45)).as_deref(),
            Some("2 more frames could not be read; the last: f9")
        );
        assert_eq!(u.summary(), None);
    }

    /// A source whose read hangs for a while between two frames (a camera
    /// driver that stopped streaming), then comes back.
    struct Hangs {
        read: u32,
        hang: Duration,
    }

    impl FrameSource for Hangs {
        fn name(&self) -> String {
            "camera:hangs".into()
        }

        fn next_frame(&mut self) -> Result<Option<Frame>, FrameError> {
            self.read += 1;
            match self.read {
                1 | 3 => Ok(Some(Frame {
                    image: RgbImage::from_pixel(4, 4, Rgb(RED)),
                    at: ms(100 * u64::from(self.read)),
                    label: format!("#{}", self.read),
                })),
                2 => {
                    std::thread::sleep(self.hang);
                    Err(FrameError::Frame("#2: torn".into()))
                }
                _ => Ok(None),
            }
        }
    }

    /// A read that does not return is said (once) while it hangs, the
    /// source is well again when frames come, and nothing is lost: the
    /// frames before and after are judged as ever.
    #[test]
    fn a_source_that_hangs_is_said_to_have_stalled_and_recovers() {
        let live = spawn(
            Box::new(Hangs {
                read: 0,
                hang: ms(1500),
            }),
            Box::new(by_colour),
            FramesConfig {
                settle: SettleConfig {
                    settle: ms(50),
                    ..SettleConfig::default()
                },
                stall_after: Some(ms(200)),
                ..FramesConfig::default()
            },
        );
        let events = collect(live);
        let at = |e: &LiveEvent| events.iter().position(|x| x == e);
        let back = at(&LiveEvent::Note("frames again".into())).expect("recovered");
        // Said once while it hangs (the hang is far longer than the wait,
        // so a slow machine says it all the same).
        let stalled: Vec<_> = events[..back]
            .iter()
            .filter(|e| matches!(e, LiveEvent::Health(Health::Stalled(_))))
            .collect();
        let said = LiveEvent::Health(Health::Stalled("no frame for 0.2 s".into()));
        assert_eq!(stalled, [&said], "{events:?}");
        assert_eq!(events[back + 1], LiveEvent::Health(Health::Connected));
        assert!(events.contains(&LiveEvent::Note("#2: torn".into())));
        assert_eq!(
            events
                .iter()
                .filter(|e| matches!(e, LiveEvent::Observation(Observation::Table(_))))
                .count(),
            1,
            "the red knight, still before and after: {events:?}"
        );
        assert_eq!(events.last(), Some(&LiveEvent::Ended));
    }

    /// A replay in real time reads, as a camera would, the newest frame
    /// due: frames that came due while a slow read ran are passed over,
    /// and the recording still settles on its last table (however slow the
    /// machine: slower, it passes over more).
    #[test]
    fn a_slow_read_in_real_time_passes_over_the_frames_it_missed() {
        let d = red_then_blue("stale", 4, 12);
        let (read, slow) = slow_reader(ms(120));
        let live = spawn(
            Box::new(DirSource::open(&d.0, 25.0).unwrap()),
            Box::new(slow),
            FramesConfig {
                settle: SettleConfig {
                    settle: ms(100),
                    motion: None,
                },
                realtime: true,
                ..FramesConfig::default()
            },
        );
        let events = collect(live);
        let frames = read.load(Ordering::SeqCst);
        // 12 frames 40 ms apart, each read taking 120 ms: a read every
        // third frame at most.
        assert!(frames <= 5, "{frames} frames read of 12");
        let tables: Vec<&LiveEvent> = events
            .iter()
            .filter(|e| matches!(e, LiveEvent::Observation(Observation::Table(_))))
            .collect();
        assert_eq!(
            tables.last(),
            Some(&&LiveEvent::Observation(Observation::Table(table(&[
                (0, 0, WN),
                (1, 0, UNREAD)
            ])))),
            "{events:?}"
        );
        assert_eq!(events.last(), Some(&LiveEvent::Ended));
    }

    /// A camera that has captured frames faster than they are read: each
    /// one is live.
    struct Burst(u32);

    impl FrameSource for Burst {
        fn name(&self) -> String {
            "camera:burst".into()
        }

        fn next_frame(&mut self) -> Result<Option<Frame>, FrameError> {
            self.0 += 1;
            let colour = if self.0 <= 3 { RED } else { BLUE };
            Ok((self.0 <= 12).then(|| Frame {
                image: RgbImage::from_pixel(4, 4, Rgb(colour)),
                at: ms(10 * u64::from(self.0)),
                label: format!("#{}", self.0),
            }))
        }

        fn live(&self) -> bool {
            true
        }
    }

    /// [`by_colour`] taking `delay` a frame, and how many frames it read.
    fn slow_reader(
        delay: Duration,
    ) -> (
        std::sync::Arc<AtomicU32>,
        impl FnMut(&RgbImage) -> Recognition + Send + 'static,
    ) {
        let read = std::sync::Arc::new(AtomicU32::new(0));
        let count = read.clone();
        let slow = move |image: &RgbImage| {
            count.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(delay);
            by_colour(image)
        };
        (read, slow)
    }

    /// A camera's frames waiting behind a newer one are passed over: the
    /// newest is read, and the last table still settles.
    #[test]
    fn a_camera_is_read_at_its_newest_frame() {
        let (read, slow) = slow_reader(ms(30));
        let live = spawn(
            Box::new(Burst(0)),
            Box::new(slow),
            FramesConfig {
                settle: SettleConfig {
                    settle: ms(10),
                    motion: None,
                },
                ..FramesConfig::default()
            },
        );
        let events = collect(live);
        let frames = read.load(Ordering::SeqCst);
        assert!(frames < 12, "{frames} frames read of 12");
        assert!(
            events.contains(&LiveEvent::Observation(Observation::Table(table(&[
                (0, 0, WN),
                (1, 0, UNREAD)
            ])))),
            "{events:?}"
        );
    }

    #[test]
    fn realtime_replays_at_the_recorded_pace() {
        let d = TempDir::new("pace");
        for i in 0..3 {
            d.png(&format!("{i}.png"), RED);
        }
        let started = Instant::now();
        let live = spawn(
            Box::new(DirSource::open(&d.0, 20.0).unwrap()),
            Box::new(by_colour),
            FramesConfig {
                realtime: true,
                ..FramesConfig::default()
            },
        );
        let events = collect(live);
        assert_eq!(events.last(), Some(&LiveEvent::Ended));
        assert!(
            started.elapsed() >= ms(100),
            "the third frame is at 100 ms: {:?}",
            started.elapsed()
        );
    }
}
