//! `--speak`: the referee's flags said aloud, for players who look at the
//! cards and not at a screen.
//!
//! A [`Speaker`] is an output of the game's session, beside the journal,
//! the view and the page. It turns each step's events into utterances
//! (the words are `arbiter_core::spoken`'s) and hands them to a [`Voice`]
//! on a thread of its own: the session calls its outputs synchronously,
//! and a sentence takes seconds to say, so the game loop only ever takes a
//! lock, never waits for speech.
//!
//! Speech is slow and the table is not: what is still waiting to be said
//! is kept only while it is still true (see [`Queue`]). A flag mended or
//! taken back before the voice started it is never said, nor its "mended";
//! a flag the voice did say is followed by "Mended." once, when it is; a
//! check waits only until the next move; the game's end always stands.
//!
//! The voice is the system's, through its command: `espeak-ng`, else
//! `spd-say` (speech-dispatcher), else `say` (macOS); see
//! docs/architecture.md for why a command rather than a crate.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use arbiter_core::event::{ActionKind, Event, EventBody, Flag, FlagKind, How};
use arbiter_core::referee::AnyReferee;
use arbiter_core::session::{Judged, Output, OutputError};
use arbiter_core::spoken;

/// How long a finished game's last words may keep the program from
/// ending: the end of the game is worth hearing, a backlog is not.
const LAST_WORDS: Duration = Duration::from_secs(10);

/// Something that says a sentence aloud, returning once it is said.
pub trait Voice: Send {
    fn say(&mut self, text: &str) -> Result<(), VoiceError>;

    /// What the voice is, for the log ("espeak-ng").
    fn name(&self) -> String;
}

/// A voice that could not say a sentence.
#[derive(Debug, thiserror::Error)]
pub enum VoiceError {
    #[error("{program} could not be started: {source}")]
    Start {
        program: String,
        source: std::io::Error,
    },
    #[error("{program} failed: {why}")]
    Failed { program: String, why: String },
}

/// No voice on this machine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no voice found (install espeak-ng)")]
pub struct NoVoice;

/// The speech programs arbiter knows, in the order it looks for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// eSpeak NG: small, in every Linux distribution, offline.
    EspeakNg,
    /// speech-dispatcher's client, which speaks through the desktop's
    /// configured synthesiser.
    SpdSay,
    /// macOS's own voice.
    Say,
}

impl Engine {
    pub const ALL: [Engine; 3] = [Engine::EspeakNg, Engine::SpdSay, Engine::Say];

    pub fn program(self) -> &'static str {
        match self {
            Engine::EspeakNg => "espeak-ng",
            Engine::SpdSay => "spd-say",
            Engine::Say => "say",
        }
    }
}

/// The system's voice: a speech program run once per sentence.
#[derive(Clone, Debug)]
pub struct SystemVoice {
    engine: Engine,
    program: PathBuf,
    /// espeak-ng only: write each sentence to a numbered WAV file in this
    /// folder instead of the speakers (the tests listen to them).
    record: Option<(PathBuf, usize)>,
}

impl SystemVoice {
    /// The first speech program found on `PATH`.
    pub fn find() -> Result<SystemVoice, NoVoice> {
        Engine::ALL
            .into_iter()
            .find_map(SystemVoice::with)
            .ok_or(NoVoice)
    }

    /// `engine`'s program, if it is on `PATH`.
    pub fn with(engine: Engine) -> Option<SystemVoice> {
        let program = on_path(engine.program(), std::env::var_os("PATH"))?;
        Some(SystemVoice {
            engine,
            program,
            record: None,
        })
    }

    /// espeak-ng writing each sentence to `dir/NNN.wav` (001, 002, ...),
    /// if espeak-ng is on `PATH`.
    pub fn espeak_ng_to(dir: &Path) -> Option<SystemVoice> {
        let mut voice = SystemVoice::with(Engine::EspeakNg)?;
        voice.record = Some((dir.to_path_buf(), 0));
        Some(voice)
    }

    pub fn engine(&self) -> Engine {
        self.engine
    }

    fn command(&mut self, text: &str) -> Command {
        let mut c = Command::new(&self.program);
        // No sentence of ours starts with a dash; should one, it is still
        // no option.
        let text = if text.starts_with('-') {
            format!(" {text}")
        } else {
            text.to_string()
        };
        match self.engine {
            Engine::EspeakNg => {
                if let Some((dir, n)) = &mut self.record {
                    *n += 1;
                    c.arg("-w").arg(dir.join(format!("{n:03}.wav")));
                }
                c.arg("--").arg(text);
            }
            // --wait: return once it is said, so sentences never overlap.
            Engine::SpdSay => {
                c.arg("--wait").arg(text);
            }
            Engine::Say => {
                c.arg(text);
            }
        }
        c
    }
}

impl Voice for SystemVoice {
    fn say(&mut self, text: &str) -> Result<(), VoiceError> {
        let program = self.engine.program().to_string();
        let out = self
            .command(text)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(|source| VoiceError::Start {
                program: program.clone(),
                source,
            })?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        // espeak-ng exits 0 when it has no sound device, and says so on
        // stderr ("error: No such file or directory" after ALSA's lines).
        let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
        if !out.status.success() || last.is_some_and(|l| l.contains("error")) {
            return Err(VoiceError::Failed {
                program,
                why: last.map_or_else(|| out.status.to_string(), |l| l.trim().to_string()),
            });
        }
        Ok(())
    }

    fn name(&self) -> String {
        self.engine.program().to_string()
    }
}

/// `name` in one of the folders of `path` (a `PATH` value), as a file.
fn on_path(name: &str, path: Option<OsString>) -> Option<PathBuf> {
    std::env::split_paths(&path?)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|p| is_program(p))
}

#[cfg(unix)]
fn is_program(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_program(p: &Path) -> bool {
    p.is_file()
}

// ---------------------------------------------------------------------------
// What is waiting to be said.

/// Why an utterance is said, which decides how long it stays true.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum About {
    /// A flag the referee holds open (its id): true while it is open.
    Flag(u64),
    /// A flag the referee does not hold (an input it refused, said once):
    /// true until the next step says anything.
    Moment,
    /// A flag's mending: it stays true.
    Mended,
    /// A check: true until the next move on the board, or the next check.
    Check,
    /// A mate, an elimination, the game's end: true for good.
    Lasting,
}

#[derive(Clone, Debug)]
struct Utterance {
    text: String,
    about: About,
}

/// A flag the referee raised and holds open.
#[derive(Debug)]
struct Tracked {
    id: u64,
    flag: Flag,
    /// The voice has started its words.
    started: bool,
}

/// The utterances waiting for the voice, kept only while still true, and
/// the open flags they speak of. Pure: the speaker's lock holds one, the
/// game loop feeds it each step ([`Queue::take`]), the voice's thread
/// takes the next utterance ([`Queue::start_next`]).
///
/// The rule: an utterance for a flag is dropped when the flag is cleared
/// (or replaced by another) before the voice starts it, and then its
/// "mended" is not said either; "mended" is said once per clear of a flag
/// whose words were started; a one-off flag lasts one step, a check until
/// the next move; the rest, in order, stays.
#[derive(Debug, Default)]
pub struct Queue {
    pending: VecDeque<Utterance>,
    open: Vec<Tracked>,
    next_id: u64,
}

impl Queue {
    /// Takes one step's events; `open` is the referee's open flags after
    /// it (what is still true).
    pub fn take(&mut self, events: &[Event], open: &[&Flag]) {
        let bodies: Vec<&EventBody> = events
            .iter()
            .map(|e| &e.body)
            .filter(|b| !matches!(b, EventBody::GameStarted { .. }))
            .collect();
        if bodies.is_empty() {
            return;
        }
        // A one-off flag was true of the step it came with.
        self.pending.retain(|u| u.about != About::Moment);
        let is_open = |f: &Flag| open.iter().any(|o| o.same_complaint(f));
        for body in bodies {
            match body {
                EventBody::Flag(f) if is_open(f) => {
                    self.next_id += 1;
                    self.open.push(Tracked {
                        id: self.next_id,
                        flag: f.clone(),
                        started: false,
                    });
                    self.push(spoken::flag(f), About::Flag(self.next_id));
                }
                EventBody::Flag(f) => self.push(spoken::flag(f), About::Moment),
                EventBody::Cleared { kind, how } => self.cleared(*kind, *how, open),
                EventBody::Action(a)
                    if a.action != ActionKind::Pass && (a.from.is_some() || a.to.is_some()) =>
                {
                    // Play moved on: a check not yet said is stale.
                    self.pending.retain(|u| u.about != About::Check);
                }
                EventBody::Check { .. } => {
                    self.pending.retain(|u| u.about != About::Check);
                    self.push_event(body, About::Check);
                }
                EventBody::Checkmate { .. } | EventBody::GameOver { .. } => {
                    // The check became the mate, or the game ended.
                    self.pending.retain(|u| u.about != About::Check);
                    self.push_event(body, About::Lasting);
                }
                EventBody::Eliminated { .. } => self.push_event(body, About::Lasting),
                _ => {}
            }
        }
        // Flags no longer open without a clear were replaced by another
        // complaint: their words, if not yet started, are no longer true.
        let (gone, kept): (Vec<Tracked>, Vec<Tracked>) =
            self.open.drain(..).partition(|t| !is_open(&t.flag));
        self.open = kept;
        for t in gone {
            self.pending.retain(|u| u.about != About::Flag(t.id));
        }
    }

    /// A flag of `kind` was mended or taken back: the oldest tracked flag
    /// of that kind the referee no longer holds.
    fn cleared(&mut self, kind: FlagKind, how: How, open: &[&Flag]) {
        // None: a flag raised before this speaker heard the game (a resumed
        // journal's), whose words were never said.
        let Some(at) = self
            .open
            .iter()
            .position(|t| t.flag.kind == kind && !open.iter().any(|o| o.same_complaint(&t.flag)))
        else {
            return;
        };
        let t = self.open.remove(at);
        if t.started {
            self.push(spoken::cleared(how).to_string(), About::Mended);
        } else {
            // Never started: neither its words nor its mend.
            self.pending.retain(|u| u.about != About::Flag(t.id));
        }
    }

    fn push_event(&mut self, body: &EventBody, about: About) {
        if let Some(text) = spoken::event(body) {
            self.push(text, about);
        }
    }

    fn push(&mut self, text: String, about: About) {
        self.pending.push_back(Utterance { text, about });
    }

    /// The next utterance to say, now started.
    pub fn start_next(&mut self) -> Option<String> {
        let u = self.pending.pop_front()?;
        if let About::Flag(id) = u.about
            && let Some(t) = self.open.iter_mut().find(|t| t.id == id)
        {
            t.started = true;
        }
        Some(u.text)
    }

    /// The utterances waiting, in order.
    pub fn pending(&self) -> Vec<String> {
        self.pending.iter().map(|u| u.text.clone()).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    fn clear(&mut self) {
        self.pending.clear();
    }
}

// ---------------------------------------------------------------------------
// The speaker: the queue, and the voice on its own thread.

#[derive(Default)]
struct State {
    queue: Queue,
    /// The voice is saying something now.
    speaking: bool,
    /// No more utterances: the thread ends once the queue is empty.
    closing: bool,
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic on the voice's thread leaves the state as it was: the
        // queue is still a queue.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The session's output that speaks (see the module's notes).
pub struct Speaker {
    shared: Arc<Shared>,
    voice_name: String,
    thread: Option<JoinHandle<()>>,
    /// The input ended: the last words are waited for, briefly.
    finished: bool,
}

impl Speaker {
    /// A speaker saying its utterances with `voice`, on a new thread.
    pub fn new(voice: Box<dyn Voice>) -> Speaker {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
        });
        let voice_name = voice.name();
        let for_thread = shared.clone();
        let thread = std::thread::Builder::new()
            .name("arbiter-voice".into())
            .spawn(move || speak(&for_thread, voice))
            .map_err(|e| tracing::warn!("--speak: no thread for the voice: {e}"))
            .ok();
        Speaker {
            shared,
            voice_name,
            thread,
            finished: false,
        }
    }

    /// A speaker with the system's voice, if there is one.
    pub fn system() -> Result<Speaker, NoVoice> {
        let voice = SystemVoice::find()?;
        tracing::info!("--speak: speaking with {}", voice.name());
        Ok(Speaker::new(Box::new(voice)))
    }

    /// The voice's name ("espeak-ng").
    pub fn voice(&self) -> &str {
        &self.voice_name
    }

    /// Takes one step's events, `open` the referee's open flags after it;
    /// returns at once.
    pub fn take(&self, events: &[Event], open: &[&Flag]) {
        let mut state = self.shared.lock();
        state.queue.take(events, open);
        drop(state);
        self.shared.changed.notify_all();
    }

    /// Waits until nothing is being said or waiting, at most `timeout`;
    /// whether it is so.
    pub fn wait_idle(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut state = self.shared.lock();
        while state.speaking || !state.queue.is_empty() {
            let now = Instant::now();
            if now >= deadline || self.thread.is_none() {
                return false;
            }
            state = self
                .shared
                .changed
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }

    fn take_judged(&self, events: &[Event], referee: &dyn AnyReferee) {
        self.take(events, &referee.open_flags());
    }
}

/// The voice's thread: says the next utterance until the speaker closes.
/// A voice that fails is said in the log once; the game goes on, and the
/// voice is tried again with the next sentence (a sound device may come
/// back).
fn speak(shared: &Shared, mut voice: Box<dyn Voice>) {
    let mut failed = false;
    loop {
        let mut state = shared.lock();
        let text = loop {
            if let Some(text) = state.queue.start_next() {
                break text;
            }
            if state.closing {
                return;
            }
            state = shared
                .changed
                .wait(state)
                .unwrap_or_else(|e| e.into_inner());
        };
        state.speaking = true;
        drop(state);
        match voice.say(&text) {
            Ok(()) => {}
            Err(e) if !failed => {
                failed = true;
                tracing::warn!("--speak: {e}; the game goes on, unspoken where it fails");
            }
            Err(e) => tracing::debug!("--speak: {e}"),
        }
        shared.lock().speaking = false;
        shared.changed.notify_all();
    }
}

impl Drop for Speaker {
    /// A finished game's last words are waited for, a few seconds at
    /// most; a game left unfinished (the view quit) is not kept waiting.
    /// The voice's thread is not joined: it may be in the middle of a
    /// sentence, and ends after it.
    fn drop(&mut self) {
        if self.finished {
            self.wait_idle(LAST_WORDS);
        }
        let mut state = self.shared.lock();
        state.closing = true;
        if !self.finished {
            state.queue.clear();
        }
        drop(state);
        self.shared.changed.notify_all();
        // Detached: see above.
        drop(self.thread.take());
    }
}

impl Output for Speaker {
    fn judged(&mut self, judged: &Judged<'_>) -> Result<(), OutputError> {
        self.take_judged(judged.events, judged.referee);
        Ok(())
    }

    fn finished(
        &mut self,
        _step: usize,
        events: &[Event],
        referee: &dyn AnyReferee,
    ) -> Result<(), OutputError> {
        self.take_judged(events, referee);
        self.finished = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_core::event::{ActionEvent, GameResult};
    use arbiter_core::table::Cell;

    fn flag(kind: FlagKind, col: i32, message: &str) -> Flag {
        Flag {
            kind,
            cells: vec![Cell::new(col, 0)],
            rule: "EP-TEST".into(),
            message: message.into(),
            player: Some("white".into()),
            squares: vec![],
        }
    }

    fn at(step: usize, body: EventBody) -> Event {
        Event { step, body }
    }

    fn mended(kind: FlagKind) -> EventBody {
        EventBody::Cleared {
            kind,
            how: How::Mended,
        }
    }

    fn moved() -> EventBody {
        EventBody::Action(ActionEvent {
            player: "white".into(),
            action: ActionKind::Move,
            from: Some(Cell::new(0, 0)),
            to: Some(Cell::new(1, 0)),
            ..ActionEvent::default()
        })
    }

    fn check() -> EventBody {
        EventBody::Check {
            player: "black".into(),
            attackers: vec![],
            squares: vec![],
        }
    }

    #[test]
    fn a_flag_mended_before_it_is_said_is_never_said_nor_its_mend() {
        let mut q = Queue::default();
        let a = flag(
            FlagKind::IllegalMove,
            0,
            "Pawns never move: put the pawn back",
        );
        q.take(&[at(1, EventBody::Flag(a.clone()))], &[&a]);
        assert_eq!(q.pending().len(), 1);
        q.take(&[at(2, mended(FlagKind::IllegalMove))], &[]);
        assert!(q.is_empty(), "{:?}", q.pending());
        assert_eq!(q.start_next(), None);
    }

    #[test]
    fn a_flag_said_is_followed_by_mended_once() {
        let mut q = Queue::default();
        let a = flag(
            FlagKind::IllegalMove,
            0,
            "Pawns never move: put the pawn back",
        );
        q.take(&[at(1, EventBody::Flag(a.clone()))], &[&a]);
        assert_eq!(
            q.start_next().as_deref(),
            Some("White: Pawns never move. Put the pawn back.")
        );
        q.take(&[at(2, mended(FlagKind::IllegalMove))], &[]);
        // A second clear of that kind is of nothing said.
        q.take(&[at(3, mended(FlagKind::IllegalMove))], &[]);
        assert_eq!(q.pending(), ["Mended."]);
    }

    #[test]
    fn a_flag_replaced_by_another_is_dropped_without_a_mend() {
        let mut q = Queue::default();
        let a = flag(
            FlagKind::IllegalMove,
            0,
            "Pawns never move: put the pawn back",
        );
        let b = flag(
            FlagKind::IllegalPlacement,
            1,
            "One action per turn: take back all but one",
        );
        q.take(&[at(1, EventBody::Flag(a.clone()))], &[&a]);
        q.take(&[at(2, EventBody::Flag(b.clone()))], &[&b]);
        assert_eq!(
            q.pending(),
            ["White: One action per turn. Take back all but one."]
        );
    }

    #[test]
    fn a_check_waits_only_until_the_next_move_and_the_end_stays() {
        let mut q = Queue::default();
        q.take(&[at(1, check())], &[]);
        assert_eq!(q.pending(), ["Check to Black."]);
        q.take(&[at(2, moved())], &[]);
        assert!(q.is_empty());
        q.take(&[at(3, check())], &[]);
        q.take(
            &[
                at(
                    4,
                    EventBody::Checkmate {
                        player: "black".into(),
                    },
                ),
                at(
                    4,
                    EventBody::GameOver {
                        result: GameResult::Win,
                        winner: Some("white".into()),
                    },
                ),
            ],
            &[],
        );
        q.take(&[at(5, moved())], &[]);
        assert_eq!(
            q.pending(),
            ["Checkmate to Black.", "Game over: White wins."]
        );
    }

    #[test]
    fn a_one_off_flag_lasts_its_step() {
        let mut q = Queue::default();
        let refused = flag(
            FlagKind::ImpossibleCard,
            0,
            "There is no Wild Move card in this game's deck",
        );
        q.take(&[at(1, EventBody::Flag(refused))], &[]);
        assert_eq!(q.pending().len(), 1);
        q.take(&[at(2, moved())], &[]);
        assert!(q.is_empty());
    }

    #[test]
    fn programs_are_found_on_the_path_only_as_files() {
        let dir = std::env::temp_dir().join(format!("arbiter-speak-path-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("espeak-ng")).unwrap();
        let path = std::env::join_paths([dir.clone()]).unwrap();
        assert_eq!(
            on_path("espeak-ng", Some(path.clone())),
            None,
            "a folder is no program"
        );
        assert_eq!(on_path("espeak-ng", None), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
