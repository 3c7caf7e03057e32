//! Refereeing without a screen: a script or a live input through a game
//! [`Session`], each decision written as it is made (readable lines or the
//! JSON Lines stream), journaled when asked. `arbiter replay` and `arbiter
//! watch` are these loops.

use std::io::{self, Write};
use std::time::Duration;

use crate::event::Event;
use crate::input::live::{Health, Live};
use crate::journal::Journal;
use crate::referee::AnyReferee;
use crate::replay::referee_for;
use crate::script::{Script, ScriptError};
use crate::session::{Flow, Judged, Output, OutputError, Session};
use crate::table::Beneath;

#[derive(Debug, thiserror::Error)]
pub enum HeadlessError {
    #[error(transparent)]
    Setup(#[from] ScriptError),
    #[error("writing the events: {0}")]
    Io(#[from] io::Error),
    /// An output failed (the journal could not be written): the game
    /// stops, since what it decides would not be kept.
    #[error("{0}")]
    Output(String),
    /// A live input ended before it reported a single table: nothing was
    /// refereed (the input said why, in a note).
    #[error("{0}: ended having judged no table")]
    NothingJudged(String),
}

/// How a run begins: afresh (maybe journaling), or where a journal left off.
pub enum Start {
    New {
        journal: Option<Journal>,
    },
    Resumed {
        referee: Box<dyn AnyReferee>,
        journal: Journal,
        from: usize,
    },
}

/// Events as readable lines, or as the JSON Lines stream; flushed, so a
/// reader sees each decision as it is made.
pub fn write_events(out: &mut impl Write, events: &[Event], json: bool) -> io::Result<()> {
    for e in events {
        if json {
            writeln!(out, "{}", e.to_json_line())?;
        } else {
            writeln!(out, "{e}")?;
        }
    }
    out.flush()
}

/// `watch`'s and `replay`'s own output: each step's events as lines (or
/// the JSON Lines stream) on `out`, what the input says of itself on
/// `notes`. A reader that stops early (`| head`) is no error of ours: the
/// session is told it has gone, and the run ends quietly.
struct Printer<'a, O: Write, N: Write> {
    out: &'a mut O,
    notes: &'a mut N,
    json: bool,
    source: String,
}

impl<O: Write, N: Write> Printer<'_, O, N> {
    fn print(&mut self, events: &[Event]) -> Result<(), OutputError> {
        write_events(self.out, events, self.json).map_err(|e| match e.kind() {
            io::ErrorKind::BrokenPipe => OutputError::Closed,
            _ => OutputError::Failed(format!("writing the events: {e}")),
        })
    }
}

impl<O: Write, N: Write> Output for Printer<'_, O, N> {
    fn started(&mut self, events: &[Event], _: &dyn AnyReferee) -> Result<(), OutputError> {
        self.print(events)
    }

    fn judged(&mut self, j: &Judged<'_>) -> Result<(), OutputError> {
        self.print(j.events)
    }

    fn health(&mut self, health: &Health) {
        let said = match health {
            Health::Reconnecting(why) => format!("reconnecting: {why}"),
            Health::Stalled(why) => format!("stalled: {why}"),
            _ => return,
        };
        let _ = writeln!(self.notes, "arbiter: {}: {said}", self.source);
    }

    fn note(&mut self, note: &str) {
        let _ = writeln!(self.notes, "arbiter: {}: {note}", self.source);
    }

    fn finished(
        &mut self,
        _: usize,
        events: &[Event],
        _: &dyn AnyReferee,
    ) -> Result<(), OutputError> {
        self.print(events)
    }
}

/// A run's end: a reader gone is a quiet end, any other failure an error.
fn ended(r: Result<(), OutputError>) -> Result<(), HeadlessError> {
    match r {
        Ok(()) | Err(OutputError::Closed) => Ok(()),
        Err(OutputError::Failed(why)) => Err(HeadlessError::Output(why)),
    }
}

/// The session a run starts with: a new game (journaled if asked), or one
/// resumed where its journal left off.
fn session(
    start: Start,
    new: impl FnOnce() -> Result<Box<dyn AnyReferee>, ScriptError>,
) -> Result<Session, HeadlessError> {
    Ok(match start {
        Start::New { journal } => {
            let s = Session::new(new()?);
            match journal {
                Some(j) => s.with_output(Box::new(j)),
                None => s,
            }
        }
        Start::Resumed {
            referee,
            journal,
            from,
        } => Session::resumed(referee, from).with_output(Box::new(journal)),
    })
}

/// Plays a script's steps through a game session (paced by `delay`, if
/// given), with `outputs` beside the printed events (the spectator page).
pub fn run_script(
    script: &Script,
    outputs: Vec<Box<dyn Output>>,
    out: &mut impl Write,
    json: bool,
    start: Start,
    delay: Option<Duration>,
) -> Result<(), HeadlessError> {
    let mut session = session(start, || referee_for(script))?;
    for o in outputs {
        session.add_output(o);
    }
    let mut notes = io::sink();
    let mut printer = Printer {
        out,
        notes: &mut notes,
        json,
        source: "script".into(),
    };
    ended((|| {
        let from = session.next_step();
        if from == 0 {
            session.start(&mut printer)?;
        }
        for obs in script.observations().skip(from) {
            if let Some(d) = delay {
                std::thread::sleep(d);
            }
            session.observe(obs, &Beneath::new(), &mut printer)?;
        }
        session.finish(&mut printer).map(drop)
    })())
}

/// Referees a live input until it ends through a game session, with
/// `outputs` beside the printed events (the mat's lights); what the
/// device says of itself goes to `notes`.
pub fn run_live(
    setup: &Script,
    live: Live,
    outputs: Vec<Box<dyn Output>>,
    out: &mut impl Write,
    notes: &mut impl Write,
    json: bool,
    journal: Option<Journal>,
) -> Result<(), HeadlessError> {
    let mut session = session(Start::New { journal }, || referee_for(setup))?;
    for o in outputs {
        session.add_output(o);
    }
    let mut printer = Printer {
        out,
        notes,
        json,
        source: live.name.clone(),
    };
    ended((|| {
        session.start(&mut printer)?;
        while let Ok(ev) = live.events.recv() {
            if session.input(ev, &mut printer)? == Flow::Ended {
                return Ok(());
            }
        }
        // The input's thread is gone without a word: its end all the same.
        session.finish(&mut printer).map(drop)
    })())?;
    if session.tables_judged() == 0 {
        return Err(HeadlessError::NothingJudged(live.name));
    }
    Ok(())
}
