//! What every output shows of a game, worked out once: the game and its
//! players, the last action's cells, the check, mate and end banners, the
//! table last seen, the log, the step and whether the input has ended.
//! The terminal view, the spectator page and any later output draw from
//! one [`Shown`], fed each step's events, so they never disagree on what
//! the last action was or whether a check still stands.

use crate::event::{ActionKind, Event, EventBody};
use crate::table::{Cell, Table};

/// A check, a mate or the end of the game, shown prominently until play
/// moves on.
#[derive(Clone, Debug, PartialEq)]
pub enum Banner {
    Check {
        player: String,
        attackers: Vec<Cell>,
    },
    Checkmate {
        player: String,
        /// The pieces that gave the mate: marked as giving check still.
        attackers: Vec<Cell>,
    },
    GameOver {
        /// The winner's name; `None` is a draw.
        winner: Option<String>,
    },
}

/// The game as outputs show it, told by its events.
#[derive(Clone, Debug, Default)]
pub struct Shown {
    /// The game's name and players, from its start.
    pub game: String,
    pub players: Vec<String>,
    /// Every event so far.
    pub log: Vec<Event>,
    /// The cells of the last action on the board (origin and destination,
    /// or the card placed).
    pub last_action: Vec<Cell>,
    pub banners: Vec<Banner>,
    /// The last table seen, in the board's frame.
    pub observed: Option<Table>,
    /// The step last judged (0-based, as the event stream counts).
    pub step: usize,
    /// How many steps were judged: the last one as people count it, from
    /// 1 (0 before the first).
    pub steps: usize,
    /// The input has ended: nothing more will come.
    pub input_ended: bool,
}

impl Shown {
    /// Takes one step's events; whether any calls for attention (a flag,
    /// a check, a mate).
    pub fn take(&mut self, events: &[Event]) -> bool {
        let mut alert = false;
        let mut acted = false;
        for e in events {
            self.step = self.step.max(e.step);
            match &e.body {
                EventBody::GameStarted { game, players } => {
                    self.game = game.clone();
                    self.players = players.clone();
                }
                // Only actions on the board move the highlight and end a
                // check's banner: a draw (DoubleCross) leaves the last move
                // and the check it gave in view while the next player acts.
                EventBody::Action(a)
                    if a.action != ActionKind::Pass && (a.from.is_some() || a.to.is_some()) =>
                {
                    if !acted {
                        acted = true;
                        self.last_action.clear();
                        self.banners
                            .retain(|b| matches!(b, Banner::GameOver { .. }));
                    }
                    self.last_action.extend(a.from.iter().chain(a.to.iter()));
                }
                EventBody::Flag(_) => alert = true,
                EventBody::Check {
                    player, attackers, ..
                } => {
                    alert = true;
                    self.banners.push(Banner::Check {
                        player: player.clone(),
                        attackers: attackers.clone(),
                    });
                }
                EventBody::Checkmate { player } => {
                    alert = true;
                    // The check becomes the mate: its pieces keep their
                    // mark.
                    let mut attackers = Vec::new();
                    self.banners.retain(|b| match b {
                        Banner::Check {
                            player: p,
                            attackers: a,
                        } if p == player => {
                            attackers.extend(a.iter().copied());
                            false
                        }
                        _ => true,
                    });
                    self.banners.push(Banner::Checkmate {
                        player: player.clone(),
                        attackers,
                    });
                }
                EventBody::GameOver { winner, .. } => {
                    self.banners.push(Banner::GameOver {
                        winner: winner.clone(),
                    });
                }
                _ => {}
            }
        }
        self.log.extend(events.iter().cloned());
        alert
    }

    /// A table seen at `step`, moved onto the board by `offset`.
    pub fn seen(&mut self, step: usize, table: &Table, offset: Cell) {
        self.at_step(step);
        self.observed = Some(table.shifted(offset));
    }

    /// The step judged, whether or not it said anything.
    pub fn at_step(&mut self, step: usize) {
        self.step = step;
        self.steps = step + 1;
    }

    /// The input has ended.
    pub fn ended(&mut self) {
        self.input_ended = true;
    }

    /// The pieces giving check now (and those that gave a mate).
    pub fn attackers(&self) -> Vec<Cell> {
        self.banners
            .iter()
            .flat_map(|b| match b {
                Banner::Check { attackers, .. } | Banner::Checkmate { attackers, .. } => {
                    attackers.as_slice()
                }
                Banner::GameOver { .. } => &[],
            })
            .copied()
            .collect()
    }

    /// The player in check or mated last, and whether mated.
    pub fn checked(&self) -> Option<(&str, bool)> {
        self.banners.iter().rev().find_map(|b| match b {
            Banner::Check { player, .. } => Some((player.as_str(), false)),
            Banner::Checkmate { player, .. } => Some((player.as_str(), true)),
            Banner::GameOver { .. } => None,
        })
    }

    /// The game's end, once it came: the winner's name, or `None` for a
    /// draw.
    pub fn game_over(&self) -> Option<Option<&str>> {
        self.banners.iter().find_map(|b| match b {
            Banner::GameOver { winner } => Some(winner.as_deref()),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::ActionEvent;

    fn at(step: usize, body: EventBody) -> Event {
        Event { step, body }
    }

    #[test]
    fn a_check_stands_until_the_next_action_and_becomes_the_mate() {
        let mut s = Shown::default();
        let moved = ActionEvent {
            player: "white".into(),
            action: ActionKind::Move,
            from: Some(Cell::new(0, 0)),
            to: Some(Cell::new(1, 1)),
            ..ActionEvent::default()
        };
        assert!(!s.take(&[at(1, EventBody::Action(moved.clone()))]));
        assert_eq!(s.last_action, [Cell::new(0, 0), Cell::new(1, 1)]);
        assert!(s.take(&[at(
            1,
            EventBody::Check {
                player: "black".into(),
                attackers: vec![Cell::new(1, 1)],
                squares: vec![],
            }
        )]));
        assert_eq!(s.checked(), Some(("black", false)));
        assert!(s.take(&[at(
            2,
            EventBody::Checkmate {
                player: "black".into()
            }
        )]));
        assert_eq!(s.checked(), Some(("black", true)));
        assert_eq!(s.attackers(), [Cell::new(1, 1)]);
        s.take(&[at(3, EventBody::Action(moved))]);
        assert_eq!(s.checked(), None, "play moved on");
        assert_eq!(s.step, 3);
    }
}
