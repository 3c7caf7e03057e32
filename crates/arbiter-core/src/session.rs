//! One game session: a game's referee, its step numbering, and every place
//! what it decides goes.
//!
//! Inputs report observations (tables, draws, calls), their health and
//! their end; a [`Session`] numbers each observation, has the referee
//! judge it, and hands the step to each [`Output`] it was given: the
//! journal, the JSON event stream, the mat's lights, a web page. The loop
//! that did this was written once per front end; it is written here once,
//! and `replay`, `watch` and the terminal view all run a game through it.
//!
//! Two kinds of output: those the session owns (given at its start, for
//! the whole game: the journal, the lights), and the caller's own, lent
//! to each call (`local`: the view's record of the game, or the writer of
//! `watch`'s lines). A front end that owns the session can still be an
//! output of it that way, without a cycle. The session's own outputs hear
//! each step first, so a step is journaled before it is shown.

use std::fmt;

use crate::event::Event;
use crate::live::{Health, LiveEvent};
use crate::observation::Observation;
use crate::referee::AnyReferee;
use crate::table::Beneath;

/// One judged step, as each output receives it.
pub struct Judged<'a> {
    /// The step number: the judged observations of one game count from 0
    /// (people are shown it from 1: see [`Event::shown_step`]). A live
    /// input's busy frames are no step (see [`Session::input`]); a
    /// script's busy steps are, as its step numbers are the script's.
    pub step: usize,
    pub observation: &'a Observation,
    /// The cards under each cell's top card, where the input knows them
    /// (the mock table's stacks); empty otherwise.
    pub beneath: &'a Beneath,
    /// What the referee said of it.
    pub events: &'a [Event],
    /// The referee after it: the open flags, the table it expects, the
    /// panel, for outputs that draw the game.
    pub referee: &'a dyn AnyReferee,
}

/// Somewhere a game session's decisions go. Every method but `judged` has
/// a default that does nothing.
pub trait Output {
    /// The game began: the referee's first events (`game_started`).
    fn started(&mut self, _events: &[Event], _referee: &dyn AnyReferee) -> Result<(), OutputError> {
        Ok(())
    }

    /// One observation judged.
    fn judged(&mut self, judged: &Judged<'_>) -> Result<(), OutputError>;

    /// A step of a resumed game, judged again from its journal. Outputs
    /// that show the game (the spectator page) take it as a step; those
    /// that keep it (the journal) have it already, and leave it.
    fn replayed(&mut self, _judged: &Judged<'_>) {}

    /// The input's health changed (reconnecting, stalled, busy, ...).
    fn health(&mut self, _health: &Health) {}

    /// Something the input says of itself, for people ("12 bad frames
    /// skipped").
    fn note(&mut self, _note: &str) {}

    /// The game's input ended: the referee's last events, after `step`.
    fn finished(
        &mut self,
        _step: usize,
        _events: &[Event],
        _referee: &dyn AnyReferee,
    ) -> Result<(), OutputError> {
        Ok(())
    }
}

/// An output that could not take a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputError {
    /// Whoever read it has gone (a closed pipe, `| head`): nothing is
    /// wrong, there is only no one left to tell.
    Closed,
    /// It failed: what, and why (a journal that cannot be written).
    Failed(String),
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutputError::Closed => write!(f, "the reader has gone"),
            OutputError::Failed(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for OutputError {}

/// What a live input's report did to the session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Go on listening.
    Go,
    /// The input ended; the session is finished.
    Ended,
}

/// A game's referee, step numbering and outputs: see the module's notes.
pub struct Session {
    referee: Box<dyn AnyReferee>,
    next_step: usize,
    outputs: Vec<Box<dyn Output>>,
    /// How many settled tables were judged (busy frames and inputs beside
    /// the board are not tables).
    tables: usize,
    finished: bool,
}

impl Session {
    /// A new game, not yet started (see [`Session::start`]).
    pub fn new(referee: Box<dyn AnyReferee>) -> Session {
        Session::resumed(referee, 0)
    }

    /// A game taken up at step `from` by a referee that has judged the
    /// steps before it (a resumed journal): no start events again.
    pub fn resumed(referee: Box<dyn AnyReferee>, from: usize) -> Session {
        Session {
            referee,
            next_step: from,
            outputs: Vec::new(),
            tables: 0,
            finished: false,
        }
    }

    /// Adds an output that hears every step from now on, before the
    /// caller's own.
    pub fn with_output(mut self, output: Box<dyn Output>) -> Session {
        self.outputs.push(output);
        self
    }

    /// Adds an output to a running session.
    pub fn add_output(&mut self, output: Box<dyn Output>) {
        self.outputs.push(output);
    }

    pub fn referee(&self) -> &dyn AnyReferee {
        self.referee.as_ref()
    }

    /// The step number the next observation gets.
    pub fn next_step(&self) -> usize {
        self.next_step
    }

    /// How many settled tables were judged.
    pub fn tables_judged(&self) -> usize {
        self.tables
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The referee's start events, to every output.
    pub fn start(&mut self, local: &mut dyn Output) -> Result<Vec<Event>, OutputError> {
        let events = self.referee.start();
        let referee = self.referee.as_ref();
        let result = each(&mut self.outputs, local, |o| o.started(&events, referee));
        result.map(|()| events)
    }

    /// Judges the next observation and hands the step to every output.
    /// Every output hears it even when one fails; the first failure is
    /// returned (the step is judged all the same).
    pub fn observe(
        &mut self,
        observation: &Observation,
        beneath: &Beneath,
        local: &mut dyn Output,
    ) -> Result<Vec<Event>, OutputError> {
        let step = self.next_step;
        self.next_step += 1;
        self.tables += usize::from(matches!(observation, Observation::Table(_)));
        let events = self.referee.observe(step, observation);
        let judged = Judged {
            step,
            observation,
            beneath,
            events: &events,
            referee: self.referee.as_ref(),
        };
        let result = each(&mut self.outputs, local, |o| o.judged(&judged));
        result.map(|()| events)
    }

    /// Judges again a step a journal holds (a resumed game): `local`
    /// hears it as a step, the session's own outputs as one replayed
    /// ([`Output::replayed`]: the journal has it already, a page shows it).
    pub fn replay(
        &mut self,
        step: usize,
        observation: &Observation,
        local: &mut dyn Output,
    ) -> Result<Vec<Event>, OutputError> {
        self.next_step = step + 1;
        let events = self.referee.observe(step, observation);
        let judged = Judged {
            step,
            observation,
            beneath: &Beneath::new(),
            events: &events,
            referee: self.referee.as_ref(),
        };
        for o in &mut self.outputs {
            o.replayed(&judged);
        }
        local.judged(&judged)?;
        Ok(events)
    }

    /// A journal's record that its input ended at `step`: as [`Session::replay`].
    pub fn replay_finish(
        &mut self,
        step: usize,
        local: &mut dyn Output,
    ) -> Result<Vec<Event>, OutputError> {
        self.finished = true;
        let events = self.referee.finish(step);
        local.finished(step, &events, self.referee.as_ref())?;
        Ok(events)
    }

    /// The input ended: the referee's last word, to every output. Once:
    /// a second call says nothing.
    pub fn finish(&mut self, local: &mut dyn Output) -> Result<Vec<Event>, OutputError> {
        if self.finished {
            return Ok(Vec::new());
        }
        self.finished = true;
        let step = self.next_step.saturating_sub(1);
        let events = self.referee.finish(step);
        let referee = self.referee.as_ref();
        let result = each(&mut self.outputs, local, |o| {
            o.finished(step, &events, referee)
        });
        result.map(|()| events)
    }

    /// Hands over the table, from a live input: said to every output as
    /// its health, and no step. Players count the tables they made, not
    /// the frames a hand was in (a camera game's steps would read 0, 2,
    /// 4, ...), and the referee has nothing to judge in it. Nothing is
    /// journaled: a resumed game needs only the tables.
    pub fn busy(&mut self, local: &mut dyn Output) {
        self.health(&Health::Busy, local);
    }

    fn health(&mut self, health: &Health, local: &mut dyn Output) {
        for o in &mut self.outputs {
            o.health(health);
        }
        local.health(health);
    }

    /// Takes one report of a live input: an observation is judged (a busy
    /// table is only health: see [`Session::busy`]), health and notes are
    /// passed on, the end finishes the session.
    pub fn input(&mut self, event: LiveEvent, local: &mut dyn Output) -> Result<Flow, OutputError> {
        match event {
            LiveEvent::Observation(Observation::Busy) => self.busy(local),
            LiveEvent::Observation(obs) => {
                self.observe(&obs, &Beneath::new(), local)?;
            }
            LiveEvent::Health(h) => self.health(&h, local),
            LiveEvent::Note(n) => {
                for o in &mut self.outputs {
                    o.note(&n);
                }
                local.note(&n);
            }
            LiveEvent::Ended => {
                self.finish(local)?;
                return Ok(Flow::Ended);
            }
        }
        Ok(Flow::Go)
    }
}

/// Calls `f` on the session's outputs, then on `local`, every one of them
/// whatever the others did; the first failure.
fn each(
    outputs: &mut [Box<dyn Output>],
    local: &mut dyn Output,
    mut f: impl FnMut(&mut dyn Output) -> Result<(), OutputError>,
) -> Result<(), OutputError> {
    let mut first = Ok(());
    for o in outputs.iter_mut() {
        let r = f(o.as_mut());
        if first.is_ok() {
            first = r;
        }
    }
    let r = f(local);
    if first.is_ok() {
        first = r;
    }
    first
}

/// An output that takes nothing: for a caller with no output of its own.
pub struct NoOutput;

impl Output for NoOutput {
    fn judged(&mut self, _: &Judged<'_>) -> Result<(), OutputError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::EventBody;
    use crate::replay::referee_for;
    use crate::script::Script;
    use std::sync::{Arc, Mutex};

    /// Records what it hears, as lines, into a shared log.
    struct Tape {
        name: &'static str,
        log: Arc<Mutex<Vec<String>>>,
        fail_at: Option<usize>,
    }

    impl Output for Tape {
        fn started(&mut self, events: &[Event], _: &dyn AnyReferee) -> Result<(), OutputError> {
            let line = format!("{} start {}", self.name, events.len());
            self.log.lock().unwrap().push(line);
            Ok(())
        }
        fn judged(&mut self, j: &Judged<'_>) -> Result<(), OutputError> {
            let line = format!("{} step {} {}", self.name, j.step, j.events.len());
            self.log.lock().unwrap().push(line);
            match self.fail_at {
                Some(s) if s == j.step => Err(OutputError::Failed(format!("{} broke", self.name))),
                _ => Ok(()),
            }
        }
        fn replayed(&mut self, j: &Judged<'_>) {
            let line = format!("{} replayed {}", self.name, j.step);
            self.log.lock().unwrap().push(line);
        }
        fn health(&mut self, h: &Health) {
            let line = format!("{} health {h:?}", self.name);
            self.log.lock().unwrap().push(line);
        }
        fn note(&mut self, n: &str) {
            let line = format!("{} note {n}", self.name);
            self.log.lock().unwrap().push(line);
        }
        fn finished(
            &mut self,
            step: usize,
            _: &[Event],
            _: &dyn AnyReferee,
        ) -> Result<(), OutputError> {
            let line = format!("{} finish {step}", self.name);
            self.log.lock().unwrap().push(line);
            Ok(())
        }
    }

    const GAME: &str = r#"
game = "enprise"
players = ["white", "black"]
[battleplan]
white = "P P P B P R Q P P N P B N P R"
black = "P P P P B P N Q B P R N P R P"

[[step]]
origin = [0, 0]
table = """
wP
"""

[[step]]
busy = true

[[step]]
origin = [0, -1]
table = """
bP
wP
"""
"#;

    fn tape(name: &'static str, log: &Arc<Mutex<Vec<String>>>, fail_at: Option<usize>) -> Tape {
        Tape {
            name,
            log: log.clone(),
            fail_at,
        }
    }

    #[test]
    fn every_output_hears_every_step_in_order_the_sessions_own_first() {
        let script = Script::parse("game.toml", GAME).unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut session = Session::new(referee_for(&script).unwrap())
            .with_output(Box::new(tape("journal", &log, None)));
        let mut local = tape("view", &log, None);
        let start = session.start(&mut local).unwrap();
        assert!(matches!(start[0].body, EventBody::GameStarted { .. }));
        for obs in script.observations() {
            session.observe(obs, &Beneath::new(), &mut local).unwrap();
        }
        assert_eq!(session.tables_judged(), 2, "busy is no table");
        assert_eq!(session.next_step(), 3);
        session.finish(&mut local).unwrap();
        // Once only.
        assert!(session.finish(&mut local).unwrap().is_empty());
        let got = log.lock().unwrap().clone();
        assert_eq!(
            got,
            [
                "journal start 1",
                "view start 1",
                "journal step 0 1",
                "view step 0 1",
                "journal step 1 0",
                "view step 1 0",
                "journal step 2 1",
                "view step 2 1",
                "journal finish 2",
                "view finish 2",
            ]
        );
    }

    #[test]
    fn a_failing_output_does_not_silence_the_others_and_is_reported() {
        let script = Script::parse("game.toml", GAME).unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut session = Session::new(referee_for(&script).unwrap())
            .with_output(Box::new(tape("journal", &log, Some(0))))
            .with_output(Box::new(tape("lights", &log, None)));
        let mut local = tape("view", &log, None);
        session.start(&mut local).unwrap();
        let first = script.observations().next().unwrap();
        let err = session
            .observe(first, &Beneath::new(), &mut local)
            .unwrap_err();
        assert_eq!(err, OutputError::Failed("journal broke".into()));
        let got = log.lock().unwrap().clone();
        assert!(got.contains(&"lights step 0 1".to_string()), "{got:?}");
        assert!(got.contains(&"view step 0 1".to_string()), "{got:?}");
        // The step was judged all the same: the next one is step 1.
        assert_eq!(session.next_step(), 1);
    }

    #[test]
    fn a_live_input_is_judged_passed_on_and_ended() {
        let script = Script::parse("game.toml", GAME).unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut session = Session::new(referee_for(&script).unwrap())
            .with_output(Box::new(tape("lights", &log, None)));
        let mut local = tape("view", &log, None);
        session.start(&mut local).unwrap();
        let obs = script.observations().next().unwrap().clone();
        let flows: Vec<Flow> = [
            LiveEvent::Health(Health::Reconnecting("unplugged".into())),
            LiveEvent::Observation(obs),
            LiveEvent::Note("3 bad frames skipped".into()),
            LiveEvent::Ended,
        ]
        .into_iter()
        .map(|e| session.input(e, &mut local).unwrap())
        .collect();
        assert_eq!(flows, [Flow::Go, Flow::Go, Flow::Go, Flow::Ended]);
        assert!(session.is_finished());
        let got = log.lock().unwrap().clone();
        assert_eq!(
            got[2..],
            [
                "lights health Reconnecting(\"unplugged\")",
                "view health Reconnecting(\"unplugged\")",
                "lights step 0 1",
                "view step 0 1",
                "lights note 3 bad frames skipped",
                "view note 3 bad frames skipped",
                "lights finish 0",
                "view finish 0",
            ]
        );
    }

    #[test]
    fn a_live_inputs_busy_frames_are_health_and_no_step() {
        // A camera sends busy between tables; players count the tables.
        let script = Script::parse("game.toml", GAME).unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut session = Session::new(referee_for(&script).unwrap())
            .with_output(Box::new(tape("journal", &log, None)));
        let mut local = tape("view", &log, None);
        session.start(&mut local).unwrap();
        for obs in script.observations() {
            session
                .input(LiveEvent::Observation(Observation::Busy), &mut local)
                .unwrap();
            if !matches!(obs, Observation::Busy) {
                session
                    .input(LiveEvent::Observation(obs.clone()), &mut local)
                    .unwrap();
            }
        }
        assert_eq!(session.next_step(), 2, "two tables, two steps");
        let got = log.lock().unwrap().clone();
        let steps: Vec<&String> = got.iter().filter(|l| l.contains(" step ")).collect();
        assert_eq!(
            steps,
            [
                "journal step 0 1",
                "view step 0 1",
                "journal step 1 1",
                "view step 1 1"
            ]
        );
        assert_eq!(
            got.iter().filter(|l| l.ends_with("health Busy")).count(),
            2 * 3,
            "every busy frame is said as health, to every output: {got:?}"
        );
    }

    #[test]
    fn a_replayed_journal_is_a_step_to_the_caller_and_only_replayed_to_the_rest() {
        let script = Script::parse("game.toml", GAME).unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut session = Session::resumed(referee_for(&script).unwrap(), 0)
            .with_output(Box::new(tape("journal", &log, None)));
        let mut local = tape("view", &log, None);
        let first = script.observations().next().unwrap();
        session.replay(0, first, &mut local).unwrap();
        assert_eq!(session.next_step(), 1);
        // The journal is not written again; it only hears it replayed.
        assert_eq!(
            log.lock().unwrap().clone(),
            ["journal replayed 0", "view step 0 1"]
        );
    }
}
