//! A table script as an input: its observations one at a time, stepped by a
//! key or on a timer.

use std::time::{Duration, Instant};

use crate::observation::Observation;
use crate::script::Script;

pub struct ScriptInput {
    // Boxed: a script holds its whole setup, and inputs are moved about.
    script: Box<Script>,
    next: usize,
    delay: Option<Duration>,
    last: Instant,
}

impl ScriptInput {
    /// `delay`: step on a timer; without it the caller steps (space).
    pub fn new(script: Script, delay: Option<Duration>) -> Self {
        ScriptInput {
            script: Box::new(script),
            next: 0,
            delay,
            last: Instant::now(),
        }
    }

    pub fn script(&self) -> &Script {
        &self.script
    }

    /// Skips the first `n` steps (already judged, when a game resumes).
    pub fn skip(&mut self, n: usize) {
        self.next = n.min(self.script.steps.len());
    }

    /// The next step and its observation, if any are left.
    pub fn step(&mut self) -> Option<(usize, Observation)> {
        let s = self.script.steps.get(self.next)?;
        let out = (self.next, s.observation.clone());
        self.next += 1;
        self.last = Instant::now();
        Some(out)
    }

    /// Whether the timer says it is time for the next step.
    pub fn due(&self, now: Instant) -> bool {
        self.delay
            .is_some_and(|d| now.duration_since(self.last) >= d)
            && !self.ended()
    }

    /// How long until the timer's next step.
    pub fn time_left(&self, now: Instant) -> Option<Duration> {
        let d = self.delay?;
        if self.ended() {
            return None;
        }
        Some(d.saturating_sub(now.duration_since(self.last)))
    }

    pub fn ended(&self) -> bool {
        self.next >= self.script.steps.len()
    }

    /// (steps done, steps in all)
    pub fn position(&self) -> (usize, usize) {
        (self.next, self.script.steps.len())
    }

    pub fn timed(&self) -> bool {
        self.delay.is_some()
    }
}
