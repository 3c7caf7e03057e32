//! Random legal Twelve games, for property tests, benchmarks and demos: a
//! start in a random orientation, then random legal actions until the game
//! ends or a turn limit. Pawn entries come with their step in the same
//! table or in the next one, Bishop entries with their send-back, and
//! surrounded Queens are taken off in a table of their own or (when the
//! table can show it) together with the action that surrounded them. The
//! game is the tables an input would report, so it replays through the
//! referee or writes out as a table script.
//!
//! The generator never plays what the referee could read two ways: the
//! first action is no King step (with only the Kings out, either King's
//! step looks the same up to a shift, and the start's orientation may be
//! new), a
//! Pawn's step in its own table is only taken when the turn-over reading
//! could not also take that table as the next action, and a Queen is only
//! taken off with the action when it is not the piece that action moved.

use crate::event::ActionKind;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

use super::{Action, ORIENTATIONS, Options, SIDES, Spot, Twelve, action_event};
use crate::event::EventBody;
use crate::games::{Game, Verdict};
use crate::observation::Observation;
use crate::setup::GameSetup;
use crate::table::{Card, Cell, Piece, Table};

/// One table of a random game.
#[derive(Clone, Debug)]
pub struct Step {
    pub table: Table,
    /// The state the table is judged in.
    pub before: Twelve,
    /// The action the table shows; `None` for the start, for a table that
    /// only takes Queens off, and for a Bishop's send-back done in a table
    /// of its own (the table before showed the Bishop alone, with the
    /// entry as its action).
    pub action: Option<Action>,
    /// The table also takes off Queens the action surrounded.
    pub removal: bool,
    /// What the referee announces for this table, in order (for a Pawn
    /// placement whose step may follow, once a later table decides).
    pub events: Vec<EventBody>,
}

#[derive(Clone, Debug)]
pub struct RandomGame {
    pub seed: u64,
    pub opts: Options,
    pub steps: Vec<Step>,
    pub end: Twelve,
}

/// Options drawn from every combination.
pub fn random_options(rng: &mut impl Rng) -> Options {
    *Options::all().choose(rng).expect("sixteen combinations")
}

/// The state after a table, when the game accepts it as it stands.
pub fn advance(game: &Twelve, table: &Table) -> Option<Twelve> {
    let changes = game.table().diff(table, Cell::default());
    if changes.is_empty() {
        return Some(game.clone());
    }
    match game.judge(&changes) {
        Verdict::Advance { game, .. } => Some(game),
        Verdict::Ambiguous(rs) => rs.into_iter().next().map(|r| r.game),
        Verdict::Flag(_) => None,
    }
}

/// Plays a random legal game of at most `max_turns` actions.
pub fn random_game(seed: u64, opts: Options, max_turns: usize) -> RandomGame {
    let mut rng = StdRng::seed_from_u64(seed);
    let orientation = *ORIENTATIONS.choose(&mut rng).expect("four");
    let mut game = Twelve::oriented(opts, orientation);
    let mut steps = vec![Step {
        table: game.table(),
        before: game.clone(),
        action: None,
        removal: false,
        events: vec![],
    }];
    // After a Pawn placement whose opponent passed, the Pawn's own step
    // would read as its entry step: not the next action then.
    let mut avoid: Option<Cell> = None;
    let mut turns = 0;
    while game.outcome().is_none() && turns < max_turns {
        if (0..2).any(|s| game.lingering(s).is_some()) {
            let mut next = game.clone();
            let events = take_off(&mut next);
            steps.push(Step {
                table: next.table(),
                before: game,
                action: None,
                removal: true,
                events,
            });
            game = next;
            continue;
        }
        let actions: Vec<Action> = game
            .legal_actions()
            .into_iter()
            .filter(|a| {
                !matches!(a, Action::Move { piece: Piece::Pawn, from, .. } if Some(*from) == avoid)
            })
            // With only the Kings out, a King's step is the other King's
            // opposite step shifted: who moved would stay unknown until the
            // first placement.
            .filter(|a| turns > 0 || !matches!(a, Action::Move { .. }))
            .collect();
        let Some(action) = pick(&actions, &mut rng) else {
            break;
        };
        turns += 1;
        avoid = None;
        // A Bishop's send-back, done by hand after the Bishop is down, seen
        // in a table of its own.
        if let Action::BishopEntry { at, send_back, .. } = action
            && rng.random_bool(0.4)
        {
            let (alone, mut alone_events) = game.apply_bishop_alone(at);
            alone_events.extend(super::judge::send_back_notice(&alone));
            let (sent, sent_events) = alone.apply_send_back(send_back);
            steps.push(Step {
                table: alone.table(),
                before: game,
                action: Some(action),
                removal: false,
                events: alone_events,
            });
            steps.push(Step {
                table: sent.table(),
                before: alone,
                action: None,
                removal: false,
                events: sent_events,
            });
            game = sent;
            continue;
        }
        let (closed, mut events) = game.apply(action);
        if rng.random_bool(0.4)
            && let Some((open, open_events)) = game.apply_open(action)
            && let Some(&step) = open.legal_actions().choose(&mut rng)
        {
            let (stepped, step_events) = open.apply(step);
            if advance(&closed, &stepped.table()).is_none() {
                steps.push(Step {
                    table: open.table(),
                    before: game.clone(),
                    action: Some(action),
                    removal: false,
                    events: open_events,
                });
                steps.push(Step {
                    table: stepped.table(),
                    before: open.clone(),
                    action: Some(step),
                    removal: false,
                    events: step_events,
                });
                game = stepped;
                continue;
            }
        }
        let mut next = closed;
        if let Action::Place {
            side,
            piece: Piece::Pawn,
            to,
        } = action
            && next.to_move() == side
        {
            avoid = Some(to);
        }
        // A Queen the action did not touch may come off with it.
        let untouched = (0..2).all(|s| match next.lingering(s) {
            Some(c) => game.position().spot(s, Piece::Queen) == Spot::At(c),
            None => true,
        });
        let removal =
            (0..2).any(|s| next.lingering(s).is_some()) && untouched && rng.random_bool(0.3);
        if removal {
            events.extend(take_off(&mut next));
        }
        steps.push(Step {
            table: next.table(),
            before: game,
            action: Some(action),
            removal,
            events,
        });
        game = next;
    }
    RandomGame {
        seed,
        opts,
        steps,
        end: game,
    }
}

/// Takes the lingering Queens off the table: the `remove_queen` events.
fn take_off(game: &mut Twelve) -> Vec<EventBody> {
    let mut events = Vec::new();
    for (s, &colour) in SIDES.iter().enumerate() {
        if let Some(c) = game.lingering[s].take() {
            let queen = Card::new(colour, Piece::Queen);
            events.push(action_event(
                s,
                ActionKind::RemoveQueen,
                queen,
                Some(c),
                None,
            ));
        }
    }
    events
}

/// A random action, weighted so that games move, enter Bishops and Pawns
/// and exchange rather than only fill the area.
fn pick(actions: &[Action], rng: &mut impl Rng) -> Option<Action> {
    let of = |f: &dyn Fn(&Action) -> bool| -> Vec<Action> {
        actions.iter().copied().filter(|a| f(a)).collect()
    };
    let groups = [
        (
            of(&|a| matches!(a, Action::Place { piece, .. } if *piece != Piece::Pawn)),
            3,
        ),
        (
            of(&|a| {
                matches!(
                    a,
                    Action::Place {
                        piece: Piece::Pawn,
                        ..
                    } | Action::PawnEntry { .. }
                )
            }),
            3,
        ),
        (of(&|a| matches!(a, Action::BishopEntry { .. })), 2),
        (
            of(&|a| matches!(a, Action::Move { .. } | Action::Step { .. })),
            6,
        ),
        (of(&|a| matches!(a, Action::Exchange { .. })), 1),
    ];
    let total: u32 = groups
        .iter()
        .filter(|(g, _)| !g.is_empty())
        .map(|(_, w)| w)
        .sum();
    if total == 0 {
        return None;
    }
    let mut roll = rng.random_range(0..total);
    for (g, w) in &groups {
        if g.is_empty() {
            continue;
        }
        if roll < *w {
            return g.choose(rng).copied();
        }
        roll -= w;
    }
    None
}

impl RandomGame {
    /// The tables in order, as an input reports them.
    pub fn observations(&self) -> Vec<Observation> {
        self.steps
            .iter()
            .map(|s| Observation::Table(s.table.clone()))
            .collect()
    }

    /// The setup the game was played from (its options; the start is the
    /// first table).
    pub fn setup(&self) -> GameSetup {
        GameSetup::Twelve(super::Setup {
            options: self.opts,
            ..Default::default()
        })
    }
}

/// The mid-game state of a seeded game with the most legal actions: the
/// referee's heaviest position (for benchmarks).
pub fn busiest_position(seed: u64, opts: Options) -> Twelve {
    let g = random_game(seed, opts, 120);
    g.steps
        .iter()
        .filter(|s| s.before.outcome().is_none())
        .max_by_key(|s| s.before.legal_actions().len())
        .map(|s| s.before.clone())
        .unwrap_or(g.end)
}
