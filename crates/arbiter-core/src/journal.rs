//! The game journal: every observation and event, appended and flushed as it
//! happens, so that a game survives a crash.
//!
//! A journal is JSON Lines, one object per line, readable by eye:
//!
//! ```text
//! {"journal":2,"arbiter":"0.1.0","setup":"game = \"enprise\"\n..."}
//! {"event":"game_started","step":0,"game":"enprise","players":["white","black"]}
//! {"obs":0,"table":"wP\n","origin":[0,0]}
//! {"event":"action","step":0,"player":"white","action":"place","card":"wP","to":[0,0]}
//! {"obs":1,"busy":true}
//! {"finish":1}
//! ```
//!
//! Line 1 is the header: the format version and the game's setup, a table
//! script without steps. Then the events of the referee's `start`, then one
//! line per observation (or `finish`, the input ended) followed by the events
//! it caused. `N` is the step, 0-based as in the event stream. A live
//! input's busy frames are no step and are not written; a script's busy
//! steps are (`{"obs":N,"busy":true}`), and so were a live input's before
//! steps were counted as players count them: such journals read and resume
//! as ever, going on from their last step. Other observations are `"draw"`,
//! `"call"` (with `"by"`) and `"roll"`; a table too spread out for a grid
//! (a misread far-off card) is `{"obs":N,"cells":[[col,row,"wN"],...]}`.
//! A table whose cells hide cards under their top ones (the mock device's
//! stacks: a piece put on a face-down card) lists them in
//! `"beneath":[[col,row,"##"],...]`, bottom first, so a resumed game has
//! them again; the referee never sees them.
//! The setup is all a resume needs to rebuild the referee; the
//! observations replay it to where the game stopped, and the recorded events
//! check that it decides now what it decided then.
//!
//! A kill can leave the last line cut short, or an observation without all
//! its events: a resume drops the cut line and writes the missing events.
//! Anything else that is wrong is an error naming the file and the line.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

use crate::event::{Event, EventBody};
use crate::observation::Observation;
use crate::referee::AnyReferee;
use crate::replay::referee_for;
use crate::script::{Script, ScriptError};
use crate::table::{Beneath, Cell, GridError, Table, Token, TokenError};

/// The version in the header line. Version 2 added `"beneath"`; a journal
/// of version 1 reads the same, any other is refused.
pub const FORMAT_VERSION: u64 = 2;

/// The oldest format this arbiter still reads.
const OLDEST_FORMAT: u64 = 1;

/// Tables whose bounding box holds more cells than this are written as a
/// list of cells instead of a grid: a misread far-off card must not turn one
/// line into gigabytes.
const MAX_GRID_CELLS: i64 = 10_000;

/// A journal that cannot be written, read or replayed. Every message names
/// the file, and the line where one is to blame.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("{file}: cannot {doing}: {source}")]
    Io {
        file: String,
        doing: String,
        #[source]
        source: io::Error,
    },
    #[error("{file}: already holds a journal; resume it, or choose another path")]
    Exists { file: String },
    #[error("{file}: in use by another arbiter (is that game still running?)")]
    Locked { file: String },
    /// The journal is not well-formed at `line` (1-based; 0 for the file as
    /// a whole).
    #[error("{file}:{line}: {message}")]
    Invalid {
        file: String,
        line: usize,
        message: String,
    },
    /// Replaying the journal does not give the events it records: it was
    /// written by another version of arbiter, or edited.
    #[error("{file}:{line}: the game does not replay as recorded: {message}")]
    Diverged {
        file: String,
        line: usize,
        message: String,
    },
    /// The caller broke the journal's order (a step smaller than the last).
    #[error("{file}: {message}")]
    Misuse { file: String, message: String },
}

impl JournalError {
    /// The 1-based line to blame, where there is one.
    pub fn line(&self) -> Option<usize> {
        match self {
            JournalError::Invalid { line, .. } | JournalError::Diverged { line, .. } => {
                Some(*line).filter(|&l| l > 0)
            }
            _ => None,
        }
    }
}

fn io_error(path: &Path, doing: impl Into<String>) -> impl FnOnce(io::Error) -> JournalError {
    let file = path.display().to_string();
    let doing = doing.into();
    move |source| JournalError::Io {
        file,
        doing,
        source,
    }
}

/// An open journal, appending. It holds an exclusive lock on the file, so
/// two arbiters never write one game.
#[derive(Debug)]
pub struct Journal {
    file: File,
    path: PathBuf,
    /// Bytes known to be whole lines: a failed write is cut back to here, so
    /// that a full disk never leaves half a line in the middle.
    len: u64,
    /// The smallest step the next observation may have.
    next_step: usize,
}

impl Journal {
    /// Starts a journal for a game set up by `setup` (a table script without
    /// steps, as [`Script::setup_toml`] writes it) and records the referee's
    /// start events (`game_started`). Creates missing parent directories;
    /// refuses a file that already holds something.
    pub fn create(path: impl AsRef<Path>, setup: &str) -> Result<Journal, JournalError> {
        Journal::create_with(path.as_ref(), setup, false)
    }

    /// As [`Journal::create`], but replaces whatever the file held.
    pub fn create_overwriting(
        path: impl AsRef<Path>,
        setup: &str,
    ) -> Result<Journal, JournalError> {
        Journal::create_with(path.as_ref(), setup, true)
    }

    fn create_with(path: &Path, setup: &str, overwrite: bool) -> Result<Journal, JournalError> {
        let name = path.display().to_string();
        // A journal that could not be resumed is worse than none.
        let (_, mut referee) = setup_referee(&name, setup)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir).map_err(io_error(dir, "create the journal's folder"))?;
        }
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(io_error(path, "create the journal"))?;
        lock(&file, path)?;
        let held = file
            .metadata()
            .map_err(io_error(path, "read the journal"))?
            .len();
        if held > 0 {
            if !overwrite {
                return Err(JournalError::Exists { file: name });
            }
            file.set_len(0)
                .map_err(io_error(path, "empty the journal"))?;
        }
        let mut journal = Journal {
            file,
            path: path.to_path_buf(),
            len: 0,
            next_step: 0,
        };
        let mut header = Map::new();
        header.insert("journal".into(), FORMAT_VERSION.into());
        header.insert("arbiter".into(), env!("CARGO_PKG_VERSION").into());
        header.insert("setup".into(), setup.into());
        // The referee's start (`game_started`) follows from the setup alone:
        // it is written here, so every journal has it.
        let mut text = format!("{}\n", Value::Object(header));
        text.push_str(&event_lines(&referee.start()));
        journal.write(text)?;
        // The new file's name must survive a crash too.
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
            && let Ok(d) = File::open(dir)
        {
            let _ = d.sync_all();
        }
        Ok(journal)
    }

    /// Records one observation and the events it caused, and flushes them to
    /// the disk before returning.
    pub fn append(
        &mut self,
        step: usize,
        observation: &Observation,
        events: &[Event],
    ) -> Result<(), JournalError> {
        self.append_with(step, observation, &Beneath::new(), events)
    }

    /// [`Journal::append`], with the cards under the table's top cards.
    pub fn append_with(
        &mut self,
        step: usize,
        observation: &Observation,
        beneath: &Beneath,
        events: &[Event],
    ) -> Result<(), JournalError> {
        if step < self.next_step {
            return Err(self.misuse(format!(
                "observation step {step} comes after step {}: steps only grow",
                self.next_step.saturating_sub(1)
            )));
        }
        let mut text = observation_json(step, observation, beneath).to_string();
        text.push('\n');
        text.push_str(&event_lines(events));
        self.write(text)?;
        self.next_step = step.saturating_add(1);
        Ok(())
    }

    /// Records that the input ended at `step`, and the events the referee's
    /// `finish(step)` announced.
    pub fn finish(&mut self, step: usize, events: &[Event]) -> Result<(), JournalError> {
        let mut line = Map::new();
        line.insert("finish".into(), step.into());
        let mut text = Value::Object(line).to_string();
        text.push('\n');
        text.push_str(&event_lines(events));
        self.write(text)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The step the next observation should carry: one past the last.
    pub fn next_step(&self) -> usize {
        self.next_step
    }

    /// Opens a journal to go on with its game. The journal is replayed
    /// through a fresh referee, which must emit the events it records (else
    /// [`JournalError::Diverged`], and the file is left as it was); then a
    /// last line cut short by a kill is dropped, and events of the last
    /// observation that a kill kept out are written. Both are reported in
    /// `warnings`; `events` then lists every event of the game so far.
    pub fn open_for_resume(path: impl AsRef<Path>) -> Result<(Journal, Resumed), JournalError> {
        let Resume {
            journal, resumed, ..
        } = Journal::resume(path)?;
        Ok((journal, resumed))
    }

    /// As [`Journal::open_for_resume`], with the referee rebuilt: it stands
    /// where the journal ends, ready for observation `resumed.next_step`.
    pub fn resume(path: impl AsRef<Path>) -> Result<Resume, JournalError> {
        let (mut journal, mut resumed) = Journal::open_locked(path.as_ref())?;
        // Replay before touching the file: a journal this build refuses is
        // left exactly as it was.
        let Rebuilt { referee, missing } = rebuild(&resumed)?;
        journal.repair(&resumed)?;
        if !missing.is_empty() {
            journal.write(event_lines(&missing))?;
            resumed.warnings.push(format!(
                "{}: the last input's events were not all written (the program was stopped \
                 between them); the {} missing were written now",
                journal.path.display(),
                missing.len()
            ));
            resumed.events.extend(missing.iter().cloned());
            if let Some(r) = resumed.records.last_mut() {
                r.events.extend(missing);
            }
        }
        Ok(Resume {
            journal,
            resumed,
            referee,
        })
    }

    fn open_locked(path: &Path) -> Result<(Journal, Resumed), JournalError> {
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(path)
            .map_err(io_error(path, "open the journal"))?;
        lock(&file, path)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(io_error(path, "read the journal"))?;
        let resumed = parse(path, &bytes)?;
        let journal = Journal {
            file,
            path: path.to_path_buf(),
            len: bytes.len() as u64,
            next_step: resumed.next_step,
        };
        Ok((journal, resumed))
    }

    /// Cuts away a last line that a kill left unfinished, and ends a whole
    /// last line that lacks its newline.
    fn repair(&mut self, resumed: &Resumed) -> Result<(), JournalError> {
        if resumed.keep_len < self.len {
            self.file
                .set_len(resumed.keep_len)
                .map_err(io_error(&self.path, "cut the unfinished last line"))?;
            self.len = resumed.keep_len;
        }
        if resumed.add_newline {
            self.write("\n".into())?;
        }
        Ok(())
    }

    /// Appends whole lines and syncs them; on failure, cuts the file back so
    /// it still ends with a whole line.
    fn write(&mut self, text: String) -> Result<(), JournalError> {
        if text.is_empty() {
            return Ok(());
        }
        let result = self
            .file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.flush())
            .and_then(|()| self.file.sync_data());
        match result {
            Ok(()) => {
                self.len += text.len() as u64;
                Ok(())
            }
            Err(e) => {
                let _ = self.file.set_len(self.len);
                Err(io_error(&self.path, "write the journal")(e))
            }
        }
    }

    fn misuse(&self, message: impl Into<String>) -> JournalError {
        JournalError::Misuse {
            file: self.path.display().to_string(),
            message: message.into(),
        }
    }
}

/// How long a held lock is waited for before the journal is called in use.
/// A lock outlives its holder for a moment: an arbiter just killed is still
/// exiting, and a child process forked anywhere in this one holds a copy of
/// every open file until it execs. A game really running elsewhere still holds
/// it after this.
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_millis(1500);

fn lock(file: &File, path: &Path) -> Result<(), JournalError> {
    let deadline = std::time::Instant::now() + LOCK_PATIENCE;
    let mut attempt = file.try_lock();
    while matches!(attempt, Err(fs::TryLockError::WouldBlock))
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(25));
        attempt = file.try_lock();
    }
    match attempt {
        Ok(()) => Ok(()),
        Err(fs::TryLockError::WouldBlock) => Err(JournalError::Locked {
            file: path.display().to_string(),
        }),
        // A file system without locks still journals.
        Err(fs::TryLockError::Error(e)) if e.kind() == io::ErrorKind::Unsupported => Ok(()),
        Err(fs::TryLockError::Error(e)) => Err(io_error(path, "lock the journal")(e)),
    }
}

/// A journal opened to resume, its records, and the referee rebuilt from them.
pub struct Resume {
    pub journal: Journal,
    pub resumed: Resumed,
    pub referee: Box<dyn AnyReferee>,
}

/// What a journal holds.
#[derive(Clone, Debug)]
pub struct Resumed {
    pub path: PathBuf,
    /// The game's setup: a table script without steps.
    pub setup: String,
    /// The arbiter version that started the journal, if it said.
    pub written_by: Option<String>,
    /// Every recorded observation with its step, in order.
    pub observations: Vec<(usize, Observation)>,
    /// Every recorded event, in order.
    pub events: Vec<Event>,
    /// The same, grouped: the start events, then each observation or
    /// finish with the events it caused. The first record is the start.
    pub records: Vec<Record>,
    /// The step the next observation should carry.
    pub next_step: usize,
    /// What was repaired or dropped (a line cut short by a kill), one
    /// sentence each, naming the file and line.
    pub warnings: Vec<String>,
    /// Bytes to keep: all but a cut last line.
    keep_len: u64,
    /// The last kept line is whole but lacks its newline.
    add_newline: bool,
}

/// One input of the journal and the events it caused.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The 1-based line of the input (of the first event, for the start).
    pub line: usize,
    pub input: Input,
    pub events: Vec<Event>,
    /// The line of each event, for messages.
    event_lines: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// The referee's `start`.
    Start,
    Observation {
        step: usize,
        observation: Observation,
        /// The cards under the table's top cards, where the input knows
        /// them (the mock device); empty otherwise.
        beneath: Beneath,
    },
    /// The input ended; the referee's `finish(step)`.
    Finish { step: usize },
}

impl Resumed {
    /// Whether the journal ends with the input's end.
    pub fn finished(&self) -> bool {
        matches!(
            self.records.last().map(|r| &r.input),
            Some(Input::Finish { .. })
        )
    }
}

/// Reads a journal without changing it (a cut last line is reported in the
/// warnings, not removed).
pub fn read(path: impl AsRef<Path>) -> Result<Resumed, JournalError> {
    let path = path.as_ref();
    let bytes = fs::read(path).map_err(io_error(path, "read the journal"))?;
    parse(path, &bytes)
}

fn parse(path: &Path, bytes: &[u8]) -> Result<Resumed, JournalError> {
    let file = path.display().to_string();
    let invalid = |line: usize, message: String| JournalError::Invalid {
        file: file.clone(),
        line,
        message,
    };

    // Lines with their byte ranges; a final piece without newline counts.
    let mut lines: Vec<(usize, usize, bool)> = Vec::new();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            lines.push((start, i, true));
            start = i + 1;
        }
    }
    if start < bytes.len() {
        lines.push((start, bytes.len(), false));
    }
    let last_content = lines
        .iter()
        .rposition(|&(s, e, _)| !bytes[s..e].trim_ascii().is_empty());

    let mut resumed = Resumed {
        path: path.to_path_buf(),
        setup: String::new(),
        written_by: None,
        observations: Vec::new(),
        events: Vec::new(),
        records: Vec::new(),
        next_step: 0,
        warnings: Vec::new(),
        keep_len: bytes.len() as u64,
        add_newline: false,
    };
    let mut header_seen = false;
    let mut last_obs: Option<usize> = None;

    for (i, &(s, e, has_newline)) in lines.iter().enumerate() {
        let line_no = i + 1;
        let raw = &bytes[s..e];
        if raw.trim_ascii().is_empty() {
            continue;
        }
        let is_last = Some(i) == last_content;
        let value = std::str::from_utf8(raw)
            .map_err(|_| "not UTF-8 text".to_string())
            .and_then(|t| serde_json::from_str::<Value>(t).map_err(|e| e.to_string()));
        let value = match value {
            Ok(v) => v,
            Err(why) if is_last => {
                // A kill in the middle of a write: the line never was.
                resumed.keep_len = s as u64;
                resumed.warnings.push(format!(
                    "{file}:{line_no}: the last line was cut short (the program was stopped \
                     while writing it) and is dropped: {why}"
                ));
                break;
            }
            Err(why) => return Err(invalid(line_no, format!("not a JSON line: {why}"))),
        };
        if is_last && !has_newline {
            resumed.add_newline = true;
        }
        let Value::Object(obj) = value else {
            return Err(invalid(line_no, "a journal line is a JSON object".into()));
        };

        if !header_seen {
            let (setup, by) = parse_header(&obj).map_err(|m| invalid(line_no, m.to_string()))?;
            resumed.setup = setup;
            resumed.written_by = by;
            resumed.records.push(Record {
                line: line_no + 1,
                input: Input::Start,
                events: vec![],
                event_lines: vec![],
            });
            header_seen = true;
            continue;
        }

        if obj.contains_key("event") {
            let event = Event::from_json(&Value::Object(obj))
                .map_err(|m| invalid(line_no, format!("not an event the referee emits: {m}")))?;
            if let Some(r) = resumed.records.last_mut() {
                if r.events.is_empty() && matches!(r.input, Input::Start) {
                    r.line = line_no;
                }
                r.events.push(event);
                r.event_lines.push(line_no);
            }
        } else if obj.contains_key("obs") {
            let (step, observation, beneath) =
                parse_observation(&obj).map_err(|m| invalid(line_no, m.to_string()))?;
            if let Some(last) = last_obs
                && step <= last
            {
                return Err(invalid(
                    line_no,
                    format!("observation step {step} after step {last}: steps only grow"),
                ));
            }
            last_obs = Some(step);
            resumed.records.push(Record {
                line: line_no,
                input: Input::Observation {
                    step,
                    observation,
                    beneath,
                },
                events: vec![],
                event_lines: vec![],
            });
        } else if obj.contains_key("finish") {
            let step = parse_finish(&obj).map_err(|m| invalid(line_no, m.to_string()))?;
            resumed.records.push(Record {
                line: line_no,
                input: Input::Finish { step },
                events: vec![],
                event_lines: vec![],
            });
        } else if obj.contains_key("journal") {
            return Err(invalid(
                line_no,
                "a second header: a journal holds one game".into(),
            ));
        } else {
            return Err(invalid(
                line_no,
                "not a journal line: expected \"obs\", \"event\" or \"finish\"".into(),
            ));
        }
    }

    if !header_seen {
        return Err(invalid(
            1,
            "no header line: the journal is empty or was cut short before the game began".into(),
        ));
    }
    resumed.next_step = last_obs.map_or(0, |s| s.saturating_add(1));
    for r in &resumed.records {
        if let Input::Observation {
            step, observation, ..
        } = &r.input
        {
            resumed.observations.push((*step, observation.clone()));
        }
        resumed.events.extend(r.events.iter().cloned());
    }
    Ok(resumed)
}

/// What is wrong with one line of a journal (its file and line are the
/// caller's to add).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LineError {
    #[error("unknown key {key:?} (this line may hold {allowed:?})")]
    UnknownKey {
        key: String,
        allowed: &'static [&'static str],
    },
    #[error("line 1 is not a journal header (no \"journal\" key)")]
    NoHeader,
    #[error("journal format {0}; this arbiter reads formats {OLDEST_FORMAT} to {FORMAT_VERSION}")]
    Format(Value),
    #[error("the header needs the game's \"setup\" as a string")]
    NoSetup,
    #[error("\"arbiter\" is the version that wrote the journal, a string")]
    WrittenBy,
    #[error("\"{0}\" is a step number")]
    Step(&'static str),
    #[error("\"{0}\" is a string")]
    NotString(&'static str),
    #[error("an observation has exactly one of {OBSERVATION_KINDS:?}, this one has {0:?}")]
    ObservationKind(Vec<&'static str>),
    #[error("\"origin\" is [col, row]")]
    Origin,
    #[error("table, grid row {}: {}", .0.line + 1, .0.message)]
    Grid(GridError),
    #[error("\"busy\" is true")]
    Busy,
    #[error("\"roll\" is the number the die shows")]
    Roll,
    #[error("\"{0}\" is a list of [col, row, token]")]
    CellList(&'static str),
    #[error("{0}: {1}")]
    CellToken(&'static str, TokenError),
    #[error("{0}: \"..\" is no card; leave the cell out")]
    NoCard(&'static str),
    #[error("\"beneath\" belongs with a table")]
    BeneathAlone,
}

const OBSERVATION_KINDS: [&str; 6] = ["table", "cells", "busy", "draw", "call", "roll"];

fn only_keys(obj: &Map<String, Value>, allowed: &'static [&'static str]) -> Result<(), LineError> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(LineError::UnknownKey {
            key: k.clone(),
            allowed,
        }),
        None => Ok(()),
    }
}

fn parse_header(obj: &Map<String, Value>) -> Result<(String, Option<String>), LineError> {
    let Some(version) = obj.get("journal") else {
        return Err(LineError::NoHeader);
    };
    if !version
        .as_u64()
        .is_some_and(|v| (OLDEST_FORMAT..=FORMAT_VERSION).contains(&v))
    {
        return Err(LineError::Format(version.clone()));
    }
    only_keys(obj, &["journal", "arbiter", "setup"])?;
    let setup = obj
        .get("setup")
        .and_then(Value::as_str)
        .ok_or(LineError::NoSetup)?;
    let by = match obj.get("arbiter") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(LineError::WrittenBy),
    };
    Ok((setup.to_string(), by))
}

fn step_of(obj: &Map<String, Value>, key: &'static str) -> Result<usize, LineError> {
    obj.get(key)
        .and_then(Value::as_u64)
        .and_then(|s| usize::try_from(s).ok())
        .ok_or(LineError::Step(key))
}

fn parse_finish(obj: &Map<String, Value>) -> Result<usize, LineError> {
    only_keys(obj, &["finish"])?;
    step_of(obj, "finish")
}

fn str_of<'a>(obj: &'a Map<String, Value>, key: &'static str) -> Result<&'a str, LineError> {
    obj.get(key)
        .and_then(Value::as_str)
        .ok_or(LineError::NotString(key))
}

fn parse_observation(obj: &Map<String, Value>) -> Result<(usize, Observation, Beneath), LineError> {
    let step = step_of(obj, "obs")?;
    let present: Vec<&'static str> = OBSERVATION_KINDS
        .iter()
        .copied()
        .filter(|k| obj.contains_key(*k))
        .collect();
    let [kind] = present[..] else {
        return Err(LineError::ObservationKind(present));
    };
    let beneath = match obj.get("beneath") {
        None => Beneath::new(),
        Some(_) if !matches!(kind, "table" | "cells") => return Err(LineError::BeneathAlone),
        Some(v) => parse_cell_list(v, "beneath")?.into_iter().fold(
            Beneath::new(),
            |mut b, (cell, token)| {
                b.entry(cell).or_default().push(token);
                b
            },
        ),
    };
    let observation = match kind {
        "table" => {
            only_keys(obj, &["obs", "table", "origin", "beneath"])?;
            let grid = str_of(obj, "table")?;
            let origin = match obj.get("origin") {
                None => Cell::default(),
                Some(v) => {
                    serde_json::from_value::<Cell>(v.clone()).map_err(|_| LineError::Origin)?
                }
            };
            Observation::Table(Table::parse_grid(grid, origin).map_err(LineError::Grid)?)
        }
        "cells" => {
            only_keys(obj, &["obs", "cells", "beneath"])?;
            Observation::Table(
                parse_cell_list(&obj["cells"], "cells")?
                    .into_iter()
                    .collect(),
            )
        }
        "busy" => {
            only_keys(obj, &["obs", "busy"])?;
            if obj["busy"] != Value::Bool(true) {
                return Err(LineError::Busy);
            }
            Observation::Busy
        }
        "draw" => {
            only_keys(obj, &["obs", "draw"])?;
            Observation::Draw(str_of(obj, "draw")?.to_string())
        }
        "call" => {
            only_keys(obj, &["obs", "call", "by"])?;
            let by = match obj.get("by") {
                None => None,
                Some(_) => Some(str_of(obj, "by")?.to_string()),
            };
            Observation::Call {
                call: str_of(obj, "call")?.to_string(),
                by,
            }
        }
        _ => {
            only_keys(obj, &["obs", "roll"])?;
            let roll = obj["roll"]
                .as_u64()
                .and_then(|r| u8::try_from(r).ok())
                .ok_or(LineError::Roll)?;
            Observation::Roll(roll)
        }
    };
    Ok((step, observation, beneath))
}

/// A list of cards by cell, `[[col, row, "wN"], ...]`, in its order (the
/// sparse form of a table, and the cards beneath one).
fn parse_cell_list(v: &Value, key: &'static str) -> Result<Vec<(Cell, Token)>, LineError> {
    let bad = || LineError::CellList(key);
    let mut cells = Vec::new();
    for entry in v.as_array().ok_or_else(bad)? {
        let [c, r, t] = entry.as_array().map(Vec::as_slice).ok_or_else(bad)? else {
            return Err(bad());
        };
        let coord = |v: &Value| v.as_i64().and_then(|n| i32::try_from(n).ok());
        let (Some(col), Some(row), Some(tok)) = (coord(c), coord(r), t.as_str()) else {
            return Err(bad());
        };
        let token = if tok.contains('+') {
            Token::parse_pair(tok).map(Some)
        } else {
            Token::parse(tok)
        };
        match token.map_err(|e| LineError::CellToken(key, e))? {
            Some(token) => cells.push((Cell::new(col, row), token)),
            None => return Err(LineError::NoCard(key)),
        }
    }
    Ok(cells)
}

/// `[[col, row, "wN"], ...]`.
fn cell_list<'a>(cells: impl Iterator<Item = (Cell, &'a Token)>) -> Value {
    cells
        .map(|(c, tok)| {
            Value::Array(vec![
                Value::from(c.col),
                Value::from(c.row),
                Value::from(tok.to_string()),
            ])
        })
        .collect::<Vec<_>>()
        .into()
}

fn observation_json(step: usize, obs: &Observation, beneath: &Beneath) -> Value {
    let mut m = Map::new();
    m.insert("obs".into(), step.into());
    if !beneath.is_empty() {
        let cards = beneath
            .iter()
            .flat_map(|(&cell, tokens)| tokens.iter().map(move |t| (cell, t)));
        m.insert("beneath".into(), cell_list(cards));
    }
    match obs {
        // A grid shows one card a cell; a table with a throne pair goes in
        // the cell list, which spells the pair out.
        Observation::Table(t) if grid_fits(t) && t.pairs().next().is_none() => {
            let (origin, grid) = t.to_grid();
            m.insert("table".into(), grid.into());
            m.insert("origin".into(), Value::from(vec![origin.col, origin.row]));
        }
        Observation::Table(t) => {
            let cells: Vec<(Cell, Token)> = t.iter().collect();
            m.insert(
                "cells".into(),
                cell_list(cells.iter().map(|(c, t)| (*c, t))),
            );
        }
        Observation::Busy => {
            m.insert("busy".into(), true.into());
        }
        Observation::Draw(d) => {
            m.insert("draw".into(), d.as_str().into());
        }
        Observation::Call { call, by } => {
            m.insert("call".into(), call.as_str().into());
            if let Some(by) = by {
                m.insert("by".into(), by.as_str().into());
            }
        }
        Observation::Roll(r) => {
            m.insert("roll".into(), (*r).into());
        }
    }
    Value::Object(m)
}

/// Whether a table is written as a grid: compact, and every cell within the
/// range a grid may name.
fn grid_fits(t: &Table) -> bool {
    let Some((lo, hi)) = t.bounds() else {
        return true;
    };
    let area =
        (i64::from(hi.col) - i64::from(lo.col) + 1) * (i64::from(hi.row) - i64::from(lo.row) + 1);
    area <= MAX_GRID_CELLS && lo.in_range() && hi.in_range()
}

fn event_lines(events: &[Event]) -> String {
    let mut s = String::new();
    for e in events {
        s.push_str(&e.to_json_line());
        s.push('\n');
    }
    s
}

/// Parses a setup and builds its referee; errors are the journal's line 1.
fn setup_referee(file: &str, setup: &str) -> Result<(Script, Box<dyn AnyReferee>), JournalError> {
    let invalid = |e: ScriptError| JournalError::Invalid {
        file: file.to_string(),
        line: 1,
        message: if e.line > 0 {
            format!("the setup, its line {}: {}", e.line, e.message)
        } else {
            format!("the setup: {}", e.message)
        },
    };
    let script = Script::parse("setup", setup).map_err(invalid)?;
    if !script.steps.is_empty() {
        return Err(JournalError::Invalid {
            file: file.to_string(),
            line: 1,
            message: "the setup holds steps; it is a table script without them".into(),
        });
    }
    let referee = referee_for(&script).map_err(invalid)?;
    Ok((script, referee))
}

/// A referee rebuilt from a journal.
pub struct Rebuilt {
    pub referee: Box<dyn AnyReferee>,
    /// Events the last recorded input caused that the journal lacks: the
    /// program was stopped between writing its lines.
    pub missing: Vec<Event>,
}

/// Replays the journal's inputs through a fresh referee and checks that it
/// emits the events recorded. The last input may lack some of its events (a
/// kill between lines); they are returned in `missing`.
pub fn rebuild(resumed: &Resumed) -> Result<Rebuilt, JournalError> {
    let file = resumed.path.display().to_string();
    let (_, mut referee) = setup_referee(&file, &resumed.setup)?;
    let mut missing = Vec::new();
    let n = resumed.records.len();
    for (i, record) in resumed.records.iter().enumerate() {
        let got = match &record.input {
            Input::Start => referee.start(),
            Input::Observation {
                step, observation, ..
            } => referee.observe(*step, observation),
            Input::Finish { step } => referee.finish(*step),
        };
        let is_last = i + 1 == n;
        missing = compare(&file, resumed, record, got, is_last)?;
    }
    Ok(Rebuilt { referee, missing })
}

/// Checks one record's events against those the referee emits now; returns
/// those missing at the end of the last record.
fn compare(
    file: &str,
    resumed: &Resumed,
    record: &Record,
    got: Vec<Event>,
    is_last: bool,
) -> Result<Vec<Event>, JournalError> {
    let diverged = |line: usize, message: String| {
        let by = match &resumed.written_by {
            Some(v) if v != env!("CARGO_PKG_VERSION") => format!(
                " (the journal was written by arbiter {v}, this is {})",
                env!("CARGO_PKG_VERSION")
            ),
            _ => String::new(),
        };
        JournalError::Diverged {
            file: file.to_string(),
            line,
            message: format!("{message}{by}"),
        }
    };
    for (k, recorded) in record.events.iter().enumerate() {
        let line = record.event_lines.get(k).copied().unwrap_or(record.line);
        match got.get(k) {
            Some(now) if now == recorded => {}
            Some(now) => {
                return Err(diverged(
                    line,
                    format!(
                        "it records {}, the referee now says {}",
                        recorded.to_json_line(),
                        now.to_json_line()
                    ),
                ));
            }
            None => {
                return Err(diverged(
                    line,
                    format!(
                        "it records {}, the referee now says nothing more",
                        recorded.to_json_line()
                    ),
                ));
            }
        }
    }
    let rest = got.get(record.events.len()..).unwrap_or_default().to_vec();
    if rest.is_empty() || is_last {
        return Ok(rest);
    }
    let line = record
        .event_lines
        .last()
        .map_or(record.line, |l| l.saturating_add(1));
    Err(diverged(
        line,
        format!(
            "the referee now also says {} here, which the journal lacks",
            rest[0].to_json_line()
        ),
    ))
}

/// Where a new game's journal goes by default:
/// `<data dir>/arbiter/journals/<UTC time>-<game>.jsonl`, never an existing
/// file.
pub fn default_journal_path(game: &str) -> PathBuf {
    let dir = journal_dir();
    let game: String = game
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    let stem = format!("{}-{game}", timestamp(SystemTime::now()));
    let mut path = dir.join(format!("{stem}.jsonl"));
    let mut n = 2;
    while path.exists() && n < 1000 {
        path = dir.join(format!("{stem}-{n}.jsonl"));
        n += 1;
    }
    path
}

/// The folder of the default journals: under the user's data directory, or
/// the current directory where there is none.
pub fn journal_dir() -> PathBuf {
    dirs::data_dir()
        .map(|d| d.join("arbiter").join("journals"))
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The most recently written journal in [`journal_dir`], for a resume
/// without a path.
pub fn latest_journal() -> Option<PathBuf> {
    latest_in(&journal_dir())
}

fn latest_in(dir: &Path) -> Option<PathBuf> {
    let entries = fs::read_dir(dir).ok()?;
    let mut best: Option<(SystemTime, PathBuf)> = None;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|x| x != "jsonl") {
            continue;
        }
        let Ok(modified) = entry.metadata().and_then(|m| m.modified()) else {
            continue;
        };
        if best
            .as_ref()
            .is_none_or(|(t, p)| (modified, &path) > (*t, p))
        {
            best = Some((modified, path));
        }
    }
    best.map(|(_, p)| p)
}

/// `YYYYMMDD-HHMMSS` in UTC.
fn timestamp(t: SystemTime) -> String {
    let secs = t
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
/// algorithm).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// The game record of a journal: the setup, the actions numbered per turn
/// (a turn is one round of all players) with flags, checks and the result
/// as notes, and a diagram of the final table. The journal is not changed.
pub fn export(path: impl AsRef<Path>) -> Result<String, JournalError> {
    let path = path.as_ref();
    let resumed = read(path)?;
    let (script, _) = setup_referee(&path.display().to_string(), &resumed.setup)?;
    let Rebuilt {
        mut referee,
        missing,
    } = rebuild(&resumed)?;
    let mut events = resumed.events.clone();
    events.extend(missing);
    if !resumed.finished() {
        // Readings still open are settled, as at the end of any input.
        events.extend(referee.finish(resumed.next_step.saturating_sub(1)));
    }
    // A chess game's record is its PGN, which chess tools read.
    if let Some(pgn) = referee.record() {
        return Ok(pgn);
    }
    Ok(record_text(
        path,
        &script,
        &resumed,
        &events,
        referee.expected_table(),
    ))
}

fn record_text(
    path: &Path,
    script: &Script,
    resumed: &Resumed,
    events: &[Event],
    table: &Table,
) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let players: Vec<String> = events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::GameStarted { players, .. } => Some(players.clone()),
            _ => None,
        })
        .unwrap_or_default();

    let _ = writeln!(out, "Game:        {}", script.game().name());
    let _ = writeln!(out, "Players:     {}", players.join(", "));
    let plans = script.setup.battleplans().into_iter().flatten();
    for (i, (colour, plan)) in plans.enumerate() {
        let label = if i == 0 { "Battleplans:" } else { "" };
        let _ = writeln!(out, "{label:<12} {:<7}{plan}", colour.name());
    }
    let options = script.setup.options_changed();
    if !options.is_empty() {
        let opts: Vec<String> = options.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        let _ = writeln!(out, "Options:     {}", opts.join(", "));
    }
    if let Some((_, to_move)) = script.setup.start_table() {
        let to_move = to_move
            .map(|c| format!(", {c} to move"))
            .unwrap_or_default();
        let _ = writeln!(out, "Start:       a set position{to_move}");
    }
    let _ = writeln!(
        out,
        "Journal:     {} ({} observations)",
        path.display(),
        resumed.observations.len()
    );
    out.push('\n');

    // Actions, numbered per round of play; everything else is a note under
    // the action it follows.
    let index = |p: &str| players.iter().position(|q| q == p);
    let mut turn = 0usize;
    let mut last_player: Option<usize> = None;
    let mut result = None;
    let mut open_flag: Option<String> = None;
    for e in events {
        let text = body_text(e);
        match &e.body {
            EventBody::GameStarted { .. } => {}
            EventBody::Action(a) => {
                let who = index(&a.player);
                let new_turn = match (who, last_player) {
                    (_, None) => true,
                    (Some(i), Some(j)) => i < j,
                    (None, Some(_)) => false,
                };
                let number = if new_turn {
                    turn += 1;
                    format!("{turn:>3}.")
                } else {
                    String::new()
                };
                if who.is_some() {
                    last_player = who;
                }
                let what = text
                    .strip_prefix(&format!("{} ", a.player))
                    .unwrap_or(&text);
                let _ = writeln!(out, "{number:<4} {:<7}{what}", a.player);
            }
            body => {
                match body {
                    EventBody::Flag(_) => open_flag = Some(text.clone()),
                    EventBody::Cleared { .. } => open_flag = None,
                    EventBody::GameOver { .. } => result = Some(text.clone()),
                    _ => {}
                }
                let _ = writeln!(out, "{:12}{text}", "");
            }
        }
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "Result:      {}",
        result.as_deref().unwrap_or("unfinished")
    );
    if let Some(f) = open_flag {
        let _ = writeln!(out, "Still open:  {f}");
    }
    out.push('\n');
    out.push_str("Final table (cells [col, row]; columns along the top, rows down the side):\n\n");
    out.push_str(&diagram(table));
    out
}

/// An event's readable text without its step.
fn body_text(e: &Event) -> String {
    let line = e.to_string();
    match line.strip_prefix("step ") {
        Some(rest) => rest
            .trim_start()
            .split_once("  ")
            .map_or(rest, |(_, t)| t)
            .to_string(),
        None => line,
    }
}

/// The table as a token grid with column numbers above and row numbers to
/// the left.
fn diagram(table: &Table) -> String {
    use std::fmt::Write as _;
    let Some((lo, hi)) = table.bounds() else {
        return "  (no cards on the table)\n".into();
    };
    if !grid_fits(table) {
        return format!("  ({} cards, spread too far to draw)\n", table.len());
    }
    let cw = (lo.col..=hi.col)
        .map(|c| c.to_string().len())
        .max()
        .unwrap_or(2)
        .max(2);
    let rw = (lo.row..=hi.row)
        .map(|r| r.to_string().len())
        .max()
        .unwrap_or(1);
    let mut out = String::new();
    let _ = write!(out, "{:rw$}", "");
    for c in lo.col..=hi.col {
        let _ = write!(out, " {c:>cw$}");
    }
    out.push('\n');
    for r in lo.row..=hi.row {
        let _ = write!(out, "{r:>rw$}");
        for c in lo.col..=hi.col {
            let tok = table
                .get(Cell::new(c, r))
                .map_or_else(|| "..".to_string(), |t| t.grid_token().to_string());
            let _ = write!(out, " {tok:>cw$}");
        }
        out.push('\n');
    }
    let pairs: Vec<String> = table
        .pairs()
        .map(|(cell, t)| format!("{} {t}", cell.square().unwrap_or(cell.to_string())))
        .collect();
    if !pairs.is_empty() {
        let _ = writeln!(out, "Two cards: {}", pairs.join(", "));
    }
    out
}

/// The journal as one of a game session's outputs: every step appended
/// and flushed as it is judged, and the input's end.
impl crate::session::Output for Journal {
    fn judged(
        &mut self,
        j: &crate::session::Judged<'_>,
    ) -> Result<(), crate::session::OutputError> {
        self.append_with(j.step, j.observation, j.beneath, j.events)
            .map_err(|e| crate::session::OutputError::Failed(e.to_string()))
    }

    fn finished(
        &mut self,
        step: usize,
        events: &[Event],
        _: &dyn AnyReferee,
    ) -> Result<(), crate::session::OutputError> {
        self.finish(step, events)
            .map_err(|e| crate::session::OutputError::Failed(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SETUP: &str = r#"game = "enprise"
players = ["white", "black"]

[battleplan]
white = "N P P B Q R P P N P B P R P P"
black = "P N P P B Q P R P N P B P R P"
"#;

    fn temp(name: &str) -> PathBuf {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        std::env::temp_dir()
            .join(format!(
                "arbiter-journal-unit-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ))
            .join(name)
    }

    fn grid(text: &str) -> Observation {
        Observation::Table(Table::parse_grid(text, Cell::default()).unwrap())
    }

    /// A short game journaled: returns its path and every event.
    fn short_game(name: &str) -> (PathBuf, Vec<Event>) {
        let path = temp(name);
        let (_, mut referee) = setup_referee("t", SETUP).unwrap();
        let mut j = Journal::create(&path, SETUP).unwrap();
        let mut all = referee.start();
        for (i, obs) in [
            grid("wN"),
            Observation::Busy,
            grid("wN ##"),
            grid("wN ##\n## .."),
        ]
        .iter()
        .enumerate()
        {
            let ev = referee.observe(i, obs);
            j.append(i, obs, &ev).unwrap();
            all.extend(ev);
        }
        (path, all)
    }

    #[test]
    fn lines_are_a_header_then_observations_and_their_events() {
        let (path, all) = short_game("a.jsonl");
        let text = fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with(r#"{"journal":2,"arbiter":"#),
            "{}",
            lines[0]
        );
        assert!(lines[1].starts_with(r#"{"event":"game_started""#));
        assert_eq!(lines[2], r#"{"obs":0,"table":"wN\n","origin":[0,0]}"#);
        assert!(lines[3].starts_with(r#"{"event":"action","step":0"#));
        assert_eq!(lines[4], r#"{"obs":1,"busy":true}"#);
        let r = read(&path).unwrap();
        assert_eq!(r.setup, SETUP);
        assert_eq!(r.next_step, 4);
        assert_eq!(r.events, all);
        assert!(r.warnings.is_empty());
    }

    #[test]
    fn every_observation_kind_round_trips() {
        let far = Table::from_iter([
            (Cell::new(0, 0), Token::Down),
            (Cell::new(i32::MIN, 5), Token::Unreadable),
        ]);
        let obs = [
            Observation::Table(Table::new()),
            Observation::Table(far),
            Observation::Table(Table::parse_grid("?? wK\n.. ##", Cell::new(-3, 7)).unwrap()),
            Observation::Busy,
            Observation::Draw("joust:wild-move".into()),
            Observation::Call {
                call: "check".into(),
                by: Some("white".into()),
            },
            Observation::Call {
                call: "save-king".into(),
                by: None,
            },
            Observation::Roll(4),
        ];
        let none = Beneath::new();
        for (i, o) in obs.iter().enumerate() {
            let v = observation_json(i, o, &none);
            let Value::Object(m) = &v else { panic!() };
            assert_eq!(
                parse_observation(m).unwrap(),
                (i, o.clone(), none.clone()),
                "{v}"
            );
        }
        assert_eq!(
            observation_json(0, &obs[0], &none).to_string(),
            r#"{"obs":0,"table":"","origin":[0,0]}"#
        );
        assert!(observation_json(1, &obs[1], &none).get("cells").is_some());
    }

    #[test]
    fn the_cards_beneath_a_table_round_trip_bottom_first() {
        let table = Table::parse_grid("wN ##", Cell::default()).unwrap();
        let knight = Token::Up(crate::table::Card::new(
            crate::table::Colour::White,
            crate::table::Piece::Knight,
        ));
        let beneath: Beneath = [
            (Cell::new(0, 0), vec![Token::Down, knight]),
            (Cell::new(1, 0), vec![Token::Down]),
        ]
        .into();
        for obs in [
            Observation::Table(table.clone()),
            Observation::Table(Table::parse_grid("wN", Cell::new(20_000, 0)).unwrap()),
        ] {
            let v = observation_json(7, &obs, &beneath);
            let back = parse_observation(v.as_object().unwrap()).unwrap();
            assert_eq!(back, (7, obs, beneath.clone()), "{v}");
        }
        let busy = serde_json::json!({"obs": 1, "busy": true, "beneath": []});
        let e = parse_observation(busy.as_object().unwrap()).unwrap_err();
        assert_eq!(e, LineError::BeneathAlone);
        let empty = serde_json::json!({"obs": 1, "table": "wN", "beneath": [[0, 0, ".."]]});
        let e = parse_observation(empty.as_object().unwrap()).unwrap_err();
        assert!(e.to_string().contains("beneath"), "{e}");
    }

    #[test]
    fn a_cut_last_line_is_dropped_but_garbage_in_the_middle_is_an_error() {
        let (path, _) = short_game("b.jsonl");
        let text = fs::read_to_string(&path).unwrap();
        let cut = &text[..text.len() - 10];
        fs::write(&path, cut).unwrap();
        let r = read(&path).unwrap();
        assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
        assert!(
            r.warnings[0].contains(":9: the last line was cut short"),
            "{:?}",
            r.warnings
        );

        let mut lines: Vec<&str> = text.lines().collect();
        lines[4] = "{\"obs\":1,\"busy\":tru";
        fs::write(&path, lines.join("\n") + "\n").unwrap();
        let e = read(&path).unwrap_err();
        assert_eq!(e.line(), Some(5), "{e}");
        assert!(
            e.to_string()
                .starts_with(&format!("{}:5: not a JSON line", path.display())),
            "{e}"
        );

        lines[4] = r#"{"obs":1,"busy":true,"draw":"wQ"}"#;
        fs::write(&path, lines.join("\n") + "\n").unwrap();
        let e = read(&path).unwrap_err();
        assert!(
            e.to_string().contains(":5: an observation has exactly one"),
            "{e}"
        );

        lines[4] = r#"{"obs":0,"busy":true}"#;
        fs::write(&path, lines.join("\n") + "\n").unwrap();
        let e = read(&path).unwrap_err();
        assert!(
            e.to_string()
                .contains(":5: observation step 0 after step 0"),
            "{e}"
        );
    }

    #[test]
    fn headers_are_checked() {
        let path = temp("h.jsonl");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        for (text, want) in [
            ("", ":1: no header line"),
            ("{\"journal\":1,\"setup\":\"game = ", ":1: no header line"),
            ("{\"journal\":3,\"setup\":\"\"}\n", "format 3"),
            ("{\"journal\":0,\"setup\":\"\"}\n", "format 0"),
            ("{\"obs\":0,\"busy\":true}\n", "not a journal header"),
            (
                "{\"journal\":1,\"setup\":\"game = \\\"chess\\\"\"}\n",
                "unknown game",
            ),
        ] {
            fs::write(&path, text).unwrap();
            let e = read(&path)
                .and_then(|r| rebuild(&r).map(|_| ()))
                .unwrap_err();
            assert!(e.to_string().contains(want), "{text:?}: {e}");
        }
    }

    /// A lock let go a moment after the resume is asked for (an arbiter
    /// still exiting, a forked child not yet exec'd) is waited for.
    #[test]
    fn a_lock_let_go_a_moment_later_is_waited_for() {
        let (path, _) = short_game("wait.jsonl");
        let (held, _) = Journal::open_for_resume(&path).unwrap();
        let letting_go = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            drop(held);
        });
        let resumed = Journal::open_for_resume(&path);
        letting_go.join().unwrap();
        assert!(resumed.is_ok(), "{:?}", resumed.err());
    }

    #[test]
    fn create_refuses_a_used_file_and_a_running_game_locks_it() {
        let (path, _) = short_game("c.jsonl");
        let e = Journal::create(&path, SETUP).unwrap_err();
        assert!(matches!(e, JournalError::Exists { .. }), "{e}");
        let (j, _) = Journal::open_for_resume(&path).unwrap();
        let e = Journal::open_for_resume(&path).unwrap_err();
        assert!(matches!(e, JournalError::Locked { .. }), "{e}");
        drop(j);
        let j = Journal::create_overwriting(&path, SETUP).unwrap();
        drop(j);
        let r = read(&path).unwrap();
        assert_eq!((r.records.len(), r.events.len()), (1, 1), "{r:?}");
        let e = Journal::create(
            temp("d.jsonl"),
            "game = \"enprise\"\n[[step]]\nbusy = true\n",
        )
        .unwrap_err();
        assert!(e.to_string().contains(":1: the setup holds steps"), "{e}");
    }

    #[test]
    fn steps_only_grow() {
        let (path, _) = short_game("e.jsonl");
        let Resume { mut journal, .. } = Journal::resume(&path).unwrap();
        assert_eq!(journal.next_step(), 4);
        assert!(matches!(
            journal.append(3, &Observation::Busy, &[]),
            Err(JournalError::Misuse { .. })
        ));
        journal.append(4, &Observation::Busy, &[]).unwrap();
    }

    #[test]
    fn an_edited_event_is_a_divergence_naming_its_line() {
        let (path, _) = short_game("f.jsonl");
        let text = fs::read_to_string(&path).unwrap();
        let edited = text.replacen(r#""to":[0,0]"#, r#""to":[5,5]"#, 1);
        fs::write(&path, &edited).unwrap();
        let e = Journal::resume(&path).err().unwrap();
        assert!(matches!(e, JournalError::Diverged { line: 4, .. }), "{e}");
        assert_eq!(fs::read_to_string(&path).unwrap(), edited, "left untouched");
        // An event the referee does not emit, in the middle.
        let mut lines: Vec<&str> = text.lines().collect();
        let extra = r#"{"event":"notice","step":1,"kind":"x","message":"y"}"#;
        lines.insert(5, extra);
        fs::write(&path, lines.join("\n") + "\n").unwrap();
        let e = Journal::resume(&path).err().unwrap();
        assert_eq!(e.line(), Some(6), "{e}");
    }

    #[test]
    fn a_kill_between_an_observation_and_its_events_is_completed() {
        let (path, all) = short_game("g.jsonl");
        let text = fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // Everything up to the last observation's line, without its event.
        fs::write(&path, lines[..lines.len() - 1].join("\n") + "\n").unwrap();
        let Resume {
            resumed, referee, ..
        } = Journal::resume(&path).unwrap();
        assert_eq!(resumed.events, all);
        assert_eq!(resumed.warnings.len(), 1);
        assert_eq!(referee.expected_table().len(), 3);
        drop(referee);
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
    }

    #[test]
    fn export_numbers_turns_and_draws_the_board() {
        let (path, _) = short_game("x.jsonl");
        let record = export(&path).unwrap();
        assert!(
            record.contains("  1. white  places wN at (0,0)"),
            "{record}"
        );
        assert!(record.contains("     black  places"), "{record}");
        assert!(record.contains("  2. white  places"), "{record}");
        assert!(record.contains("   0  1\n0 wN ##\n1 ## ..\n"), "{record}");
    }

    #[test]
    fn timestamps_are_utc_calendar_dates() {
        let t = UNIX_EPOCH + std::time::Duration::from_secs(951_782_400 + 3_723);
        assert_eq!(timestamp(t), "20000229-010203");
        assert_eq!(timestamp(UNIX_EPOCH), "19700101-000000");
        let p = default_journal_path("en prise/../x");
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.ends_with("-enprisex.jsonl"), "{name}");
    }

    #[test]
    fn the_latest_journal_is_the_last_written() {
        let dir = temp("latest");
        assert_eq!(latest_in(&dir), None);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("a.jsonl"), "").unwrap();
        fs::write(dir.join("b.txt"), "").unwrap();
        assert_eq!(latest_in(&dir), Some(dir.join("a.jsonl")));
    }

    #[test]
    fn a_throne_pair_survives_the_journal_and_shows_in_the_diagram() {
        use crate::table::{Card, Colour, Piece};
        let king = Card::new(Colour::Blue, Piece::King);
        let knight = Card::new(Colour::Blue, Piece::Knight);
        let mut t = Table::new();
        t.set(Cell::new(4, 7), Some(Token::pair(knight, king)));
        t.set(
            Cell::new(3, 7),
            Some(Token::Up(Card::new(Colour::Blue, Piece::Bishop))),
        );
        let obs = Observation::Table(t.clone());
        let json = observation_json(3, &obs, &Beneath::new());
        let (step, back, _) = parse_observation(json.as_object().unwrap()).unwrap();
        assert_eq!((step, back), (3, obs));
        let d = diagram(&t);
        assert!(d.contains("uB uK"), "{d}");
        assert!(d.contains("e1 uK+uN"), "{d}");
    }
}
