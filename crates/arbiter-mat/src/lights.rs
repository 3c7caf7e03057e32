//! The mat's lights: the cells of open flags and the pieces giving check,
//! lit in a colour per kind of trouble. [`MatLights`] is a game session's
//! output; the mat's thread takes the lights it sends and writes them to
//! the mat (`host::spawn` gives both ends).

use std::sync::mpsc::Sender;

use arbiter_core::event::{ActionKind, Event, EventBody, Flag, FlagKind};
use arbiter_core::referee::AnyReferee;
use arbiter_core::session::{Judged, Output, OutputError};
use arbiter_core::table::Cell;

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
                EventBody::Action(a) if a.action != ActionKind::Pass => self.attackers.clear(),
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

/// The mat's lights as a game session's output: after each step, the
/// cells to light, sent to the mat's thread when they changed.
pub struct MatLights {
    tx: Sender<Vec<Led>>,
    state: LedState,
}

impl MatLights {
    pub(crate) fn new(tx: Sender<Vec<Led>>) -> MatLights {
        MatLights {
            tx,
            state: LedState::default(),
        }
    }
}

impl Output for MatLights {
    fn judged(&mut self, j: &Judged<'_>) -> Result<(), OutputError> {
        if let Some(lit) = self.state.update(j.events, &j.referee.open_flags()) {
            // A mat that has gone away takes no lights: its thread is
            // reconnecting or over, and lights what is open when it is back.
            let _ = self.tx.send(lit);
        }
        Ok(())
    }

    fn finished(
        &mut self,
        _: usize,
        events: &[Event],
        referee: &dyn AnyReferee,
    ) -> Result<(), OutputError> {
        if let Some(lit) = self.state.update(events, &referee.open_flags()) {
            let _ = self.tx.send(lit);
        }
        Ok(())
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
            body: EventBody::Action(arbiter_core::event::ActionEvent {
                player: "black".into(),
                action: arbiter_core::event::ActionKind::Move,
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
