//! Refereeing without a screen: a script or a live input through the
//! referee, each decision written as it is made (readable lines or the JSON
//! Lines stream), journaled when asked. `arbiter replay` and `arbiter watch`
//! are these loops.

use std::io::{self, Write};
use std::time::Duration;

use crate::event::Event;
use crate::input::live::{Health, LedState, Live, LiveEvent};
use crate::journal::Journal;
use crate::observation::Observation;
use crate::referee::AnyReferee;
use crate::replay::referee_for;
use crate::script::{Script, ScriptError};

#[derive(Debug, thiserror::Error)]
pub enum HeadlessError {
    #[error(transparent)]
    Setup(#[from] ScriptError),
    #[error("writing the events: {0}")]
    Io(#[from] io::Error),
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

/// A reader that stops early (`| head`) is no error of ours.
fn quiet_broken_pipe(r: io::Result<()>) -> Result<(), HeadlessError> {
    match r {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

/// Plays a script's steps through the referee (paced by `delay`, if given).
pub fn run_script(
    script: &Script,
    out: &mut impl Write,
    json: bool,
    start: Start,
    delay: Option<Duration>,
) -> Result<(), HeadlessError> {
    let (mut referee, mut journal, from) = match start {
        Start::New { journal } => (referee_for(script)?, journal, 0),
        Start::Resumed {
            referee,
            journal,
            from,
        } => (referee, Some(journal), from),
    };
    quiet_broken_pipe((|| {
        if from == 0 {
            write_events(out, &referee.start(), json)?;
        }
        for (i, obs) in script.observations().enumerate().skip(from) {
            if let Some(d) = delay {
                std::thread::sleep(d);
            }
            let events = referee.observe(i, obs);
            if let Some(j) = &mut journal {
                j.append(i, obs, &events).map_err(io::Error::other)?;
            }
            write_events(out, &events, json)?;
        }
        let last = script.steps.len().saturating_sub(1);
        let events = referee.finish(last);
        if let Some(j) = &mut journal {
            j.finish(last, &events).map_err(io::Error::other)?;
        }
        write_events(out, &events, json)
    })())
}

/// Referees a live input until it ends, lighting the mat's cells for open
/// flags and checks; what the device says of itself goes to `notes`.
pub fn run_live(
    setup: &Script,
    live: Live,
    out: &mut impl Write,
    notes: &mut impl Write,
    json: bool,
    mut journal: Option<Journal>,
) -> Result<(), HeadlessError> {
    let mut referee = referee_for(setup)?;
    let mut leds = LedState::default();
    let name = live.name.clone();
    // Tables judged (busy frames are shown, never judged).
    let mut tables = 0;
    quiet_broken_pipe((|| {
        write_events(out, &referee.start(), json)?;
        let mut step = 0;
        while let Ok(ev) = live.events.recv() {
            match ev {
                LiveEvent::Observation(obs) => {
                    tables += usize::from(matches!(obs, Observation::Table(_)));
                    let events = referee.observe(step, &obs);
                    if let Some(j) = &mut journal {
                        j.append(step, &obs, &events).map_err(io::Error::other)?;
                    }
                    write_events(out, &events, json)?;
                    if let (Some(tx), Some(lit)) =
                        (&live.leds, leds.update(&events, &referee.open_flags()))
                    {
                        // A device that has gone away takes no lights.
                        let _ = tx.send(lit);
                    }
                    step += 1;
                }
                LiveEvent::Health(Health::Reconnecting(why)) => {
                    let _ = writeln!(notes, "arbiter: {}: reconnecting: {why}", live.name);
                }
                LiveEvent::Health(Health::Stalled(why)) => {
                    let _ = writeln!(notes, "arbiter: {}: stalled: {why}", live.name);
                }
                LiveEvent::Health(_) => {}
                LiveEvent::Note(n) => {
                    let _ = writeln!(notes, "arbiter: {}: {n}", live.name);
                }
                LiveEvent::Ended => break,
            }
        }
        let last = step.saturating_sub(1);
        let events = referee.finish(last);
        if let Some(j) = &mut journal {
            j.finish(last, &events).map_err(io::Error::other)?;
        }
        write_events(out, &events, json)
    })())?;
    if tables == 0 {
        return Err(HeadlessError::NothingJudged(name));
    }
    Ok(())
}
