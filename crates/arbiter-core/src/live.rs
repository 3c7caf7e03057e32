//! Inputs that run on their own thread (the card-reader mat, the camera):
//! they send what they see over a channel.

use std::sync::mpsc::{Receiver, SendError, Sender};

use crate::observation::Observation;

/// The input's health, for the status line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Health {
    Connected,
    /// Hands over the table: shown, never judged.
    Busy,
    /// The last table could not be read with confidence.
    Unreadable,
    /// The device is gone; trying again (why).
    Reconnecting(String),
    /// The device is there but has sent nothing for a while (why): a
    /// camera whose driver stopped streaming. The referee waits; the table
    /// and the game are as they were.
    Stalled(String),
    /// The input has nothing more to give.
    Ended,
}

impl Health {
    /// The health an observation says by itself: hands over the table, a
    /// card not read, a table read. Outputs take it from the observation
    /// (see [`crate::session::Output::judged`]), so an input need not send
    /// it as well.
    pub fn implied_by(obs: &Observation) -> Option<Health> {
        match obs {
            Observation::Busy => Some(Health::Busy),
            Observation::Table(t) if !t.unreadable_cells().is_empty() => Some(Health::Unreadable),
            Observation::Table(_) => Some(Health::Connected),
            _ => None,
        }
    }
}

/// What a live input reports.
#[derive(Clone, Debug, PartialEq)]
pub enum LiveEvent {
    /// A settled table (or Busy): judge it.
    Observation(Observation),
    /// A change of health that is not an observation (reconnecting, a
    /// sensor fault).
    Health(Health),
    /// A note for the log ("12 bad frames skipped").
    Note(String),
    /// The input is over (port closed, no reconnect).
    Ended,
}

/// The sending end of a live input: everything it reports is logged
/// (what a player sends when "it missed my move"), at the level it
/// deserves, then passed on to the loops.
pub struct Reporter {
    tx: Sender<LiveEvent>,
    source: String,
}

impl Reporter {
    pub fn new(tx: Sender<LiveEvent>, source: impl Into<String>) -> Reporter {
        Reporter {
            tx,
            source: source.into(),
        }
    }

    /// The input's name, as the log gives it.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Logs `ev` and sends it; an error when nobody listens any more.
    pub fn send(&self, ev: LiveEvent) -> Result<(), SendError<LiveEvent>> {
        log(&self.source, &ev);
        self.tx.send(ev)
    }
}

fn log(source: &str, ev: &LiveEvent) {
    match ev {
        LiveEvent::Observation(Observation::Table(t)) => tracing::debug!(
            source,
            cards = t.iter().count(),
            unreadable = t.unreadable_cells().len(),
            "settled table"
        ),
        LiveEvent::Observation(o) => tracing::debug!(source, input = o.kind(), "observation"),
        // Each attempt, and a stall, is one line to the player already (the
        // view's status line, `watch`'s stderr): the log keeps them without
        // repeating them on stderr, which shows warnings.
        LiveEvent::Health(Health::Reconnecting(why)) => {
            tracing::info!(source, why, "device lost, reconnecting")
        }
        LiveEvent::Health(Health::Stalled(why)) => tracing::info!(source, why, "stalled"),
        LiveEvent::Health(Health::Ended) | LiveEvent::Ended => tracing::info!(source, "ended"),
        LiveEvent::Health(h) => tracing::debug!(source, health = ?h, "health"),
        LiveEvent::Note(note) => tracing::info!(source, "{note}"),
    }
}

/// A live input as the loops see it: only what comes in. What goes back
/// to a device (a mat's lights) is one of the session's outputs, made by
/// the device's crate.
pub struct Live {
    pub name: String,
    pub events: Receiver<LiveEvent>,
}
