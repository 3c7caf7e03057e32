//! Inputs that run on their own thread (the card-reader mat, later the
//! camera): they send what they see over a channel, and take LED commands
//! back.

use std::sync::mpsc::{Receiver, SendError, Sender};

use crate::event::{Event, EventBody, Flag, FlagKind};
use crate::observation::Observation;
use crate::table::Cell;

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
        // Each attempt is one line to the player already (the view's status
        // line, `watch`'s stderr): the log keeps them without repeating
        // them on stderr.
        LiveEvent::Health(Health::Reconnecting(why)) => {
            tracing::info!(source, why, "device lost, reconnecting")
        }
        LiveEvent::Health(Health::Stalled(why)) => tracing::warn!(source, why, "stalled"),
        LiveEvent::Health(Health::Ended) | LiveEvent::Ended => tracing::info!(source, "ended"),
        LiveEvent::Health(h) => tracing::debug!(source, health = ?h, "health"),
        LiveEvent::Note(note) => tracing::info!(source, "{note}"),
    }
}

/// A live input as the loops see it.
pub struct Live {
    pub name: String,
    pub events: Receiver<LiveEvent>,
    /// Where LED commands go, for inputs that light cells.
    pub leds: Option<Sender<Vec<Led>>>,
}

/// A cell lit on the mat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Led {
    pub cell: Cell,
    pub colour: LedColour,
    pub blink: bool,
}

/// Distinct colours per kind of trouble, so players see at a glance what a
/// lit cell wants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LedColour {
    /// An illegal placement or move, a wrong card, a wrong player.
    Red,
    /// A physical slip to mend: a missed SWAP's origin, a missed FLIP.
    Amber,
    /// A piece giving check.
    Yellow,
    /// Cards to turn face-down (a mated player's).
    Blue,
    /// A card the input cannot read.
    White,
}

impl LedColour {
    pub fn rgb(self) -> (u8, u8, u8) {
        match self {
            LedColour::Red => (255, 0, 0),
            LedColour::Amber => (255, 120, 0),
            LedColour::Yellow => (255, 220, 0),
            LedColour::Blue => (0, 80, 255),
            LedColour::White => (200, 200, 200),
        }
    }
}

/// Follows the event stream and says which cells to light: the cells of
/// the open flags and the pieces giving check. Output logic, outside the
/// referee.
#[derive(Default)]
pub struct LedState {
    attackers: Vec<Cell>,
    lit: Vec<Led>,
}

impl LedState {
    /// Takes the events of one observation and the flags open after it;
    /// the new lights if they changed.
    pub fn update(&mut self, events: &[Event], open: &[&Flag]) -> Option<Vec<Led>> {
        for e in events {
            match &e.body {
                EventBody::Action(a) if a.action != crate::event::ActionKind::Pass => {
                    self.attackers.clear()
                }
                EventBody::Check { attackers, .. } => {
                    self.attackers.extend(attackers.iter().copied())
                }
                EventBody::Checkmate { .. } | EventBody::GameOver { .. } => self.attackers.clear(),
                _ => {}
            }
        }
        let mut lit: Vec<Led> = Vec::new();
        for f in open {
            let (colour, blink) = flag_colour(f.kind);
            lit.extend(f.cells.iter().map(|&cell| Led {
                cell,
                colour,
                blink,
            }));
        }
        for &cell in &self.attackers {
            if !lit.iter().any(|l| l.cell == cell) {
                lit.push(Led {
                    cell,
                    colour: LedColour::Yellow,
                    blink: false,
                });
            }
        }
        if lit == self.lit {
            return None;
        }
        self.lit = lit.clone();
        Some(lit)
    }
}

fn flag_colour(kind: FlagKind) -> (LedColour, bool) {
    match kind {
        FlagKind::MissedSwap | FlagKind::MissedFlip => (LedColour::Amber, true),
        FlagKind::MissedEliminationFlip => (LedColour::Blue, true),
        FlagKind::Unreadable => (LedColour::White, true),
        _ => (LedColour::Red, true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flag(kind: FlagKind, cells: Vec<Cell>) -> Flag {
        Flag {
            kind,
            cells,
            rule: "X".into(),
            message: String::new(),
            player: None,
            squares: vec![],
        }
    }

    #[test]
    fn flags_light_their_cells_and_clear_when_closed() {
        let mut leds = LedState::default();
        let swap = flag(FlagKind::MissedSwap, vec![Cell::new(2, 1)]);
        let lit = leds.update(&[], &[&swap]).unwrap();
        assert_eq!(
            lit,
            vec![Led {
                cell: Cell::new(2, 1),
                colour: LedColour::Amber,
                blink: true
            }]
        );
        assert_eq!(
            leds.update(&[], &[&swap]),
            None,
            "nothing new: nothing sent"
        );
        let illegal = flag(FlagKind::IllegalPlacement, vec![Cell::new(5, 5)]);
        assert_eq!(
            leds.update(&[], &[&illegal]).unwrap()[0].colour,
            LedColour::Red
        );
        assert_eq!(leds.update(&[], &[]).unwrap(), vec![], "cleared: all dark");
    }

    #[test]
    fn a_checking_piece_stays_lit_until_the_next_action() {
        let mut leds = LedState::default();
        let check = Event {
            step: 3,
            body: EventBody::Check {
                player: "black".into(),
                attackers: vec![Cell::new(0, 2)],
                squares: vec![],
            },
        };
        let lit = leds.update(std::slice::from_ref(&check), &[]).unwrap();
        assert_eq!(lit[0].colour, LedColour::Yellow);
        let action = Event {
            step: 4,
            body: EventBody::Action(crate::event::ActionEvent {
                player: "black".into(),
                action: crate::event::ActionKind::Move,
                card: None,
                from: None,
                to: None,
                captured: None,
                ..Default::default()
            }),
        };
        assert_eq!(leds.update(&[action], &[]).unwrap(), vec![]);
    }
}
