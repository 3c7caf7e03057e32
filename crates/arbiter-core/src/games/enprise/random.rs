//! Random legal games, for property tests, benchmarks and demos: shuffled
//! Battleplans, then random legal actions until the game ends or a turn
//! limit. A game can be written out as a table script.

use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

use super::{Action, EnPrise, Options};
use crate::event::EventBody;
use crate::observation::Observation;
use crate::setup::GameSetup;
use crate::table::{Colour, Piece, Table};

/// One action of a random game and what followed it.
#[derive(Clone, Debug)]
pub struct Turn {
    /// The state the action was taken in.
    pub before: EnPrise,
    pub action: Action,
    /// The events `apply` announced (the action itself first).
    pub events: Vec<EventBody>,
    /// The table the players leave afterwards. After a mate (EP-MATE) it
    /// may still show the mated player's cards face-up: their flip is the
    /// action's second part, done by hand in `then` or with the next action.
    pub table: Table,
    /// A table between this action and the next: the mated player's cards
    /// turned face-down, and nothing else.
    pub then: Option<Table>,
}

#[derive(Clone, Debug)]
pub struct RandomGame {
    pub seed: u64,
    pub players: Vec<Colour>,
    pub plans: Vec<Vec<Piece>>,
    pub turns: Vec<Turn>,
    pub end: EnPrise,
}

pub use super::setup::random_battleplan;

/// Plays a random legal game of `n_players` (2 to 4) for at most `max_turns`
/// actions.
pub fn random_game(seed: u64, n_players: usize, max_turns: usize) -> RandomGame {
    let mut rng = StdRng::seed_from_u64(seed);
    let players: Vec<Colour> =
        [Colour::White, Colour::Black, Colour::Red, Colour::Blue][..n_players].to_vec();
    let plans: Vec<Vec<Piece>> = players
        .iter()
        .map(|_| random_battleplan(&mut rng))
        .collect();
    let mut game = EnPrise::new(&players, plans.clone(), Options::default());
    let mut turns = Vec::new();
    while turns.len() < max_turns && game.outcome().is_none() {
        let Some(action) = pick(&game, &mut rng) else {
            break;
        };
        let applied = game.apply(action);
        let mut events = applied.events;
        let (owed, _) = applied.state.owed_flips();
        let (next, table, then) = if owed.is_empty() {
            let table = applied.state.table();
            (applied.state, table, None)
        } else {
            // The flip done with the action, in a table of its own, or with
            // the next action.
            let flipped = applied.state.with_flips_done();
            match rng.random_range(0..3) {
                0 => {
                    let table = flipped.table();
                    (flipped, table, None)
                }
                k => {
                    events.extend(super::judge::pending_notice(&applied.state));
                    let table = applied.state.table();
                    if k == 1 {
                        let then = flipped.table();
                        (flipped, table, Some(then))
                    } else {
                        (applied.state, table, None)
                    }
                }
            }
        };
        turns.push(Turn {
            before: game,
            action,
            events,
            table,
            then,
        });
        game = next;
    }
    RandomGame {
        seed,
        players,
        plans,
        turns,
        end: game,
    }
}

/// A random legal action, weighted so that games move and capture rather
/// than only grow. Never a reading the referee could take two ways: after a
/// summoning, a declined escape square is not followed by a face-down pawn,
/// which would look the same on the table.
fn pick(game: &EnPrise, rng: &mut impl Rng) -> Option<Action> {
    let actions = game.legal_actions();
    if actions.is_empty() {
        return None;
    }
    let escapes: Vec<Action> = actions
        .iter()
        .copied()
        .filter(|a| matches!(a, Action::Escape { .. }))
        .collect();
    let rest: Vec<Action> = actions
        .iter()
        .copied()
        .filter(|a| !matches!(a, Action::Escape { .. }))
        .collect();
    if !escapes.is_empty() && (rest.is_empty() || rng.random_bool(0.7)) {
        return escapes.choose(rng).copied();
    }
    if rest.is_empty() {
        return actions.choose(rng).copied();
    }
    let of = |f: fn(&Action) -> bool| -> Vec<Action> { rest.iter().copied().filter(f).collect() };
    let groups = [
        (
            of(|a| {
                matches!(
                    a,
                    Action::Move {
                        captured: Some(_),
                        ..
                    }
                )
            }),
            4,
        ),
        (of(|a| matches!(a, Action::Move { captured: None, .. })), 3),
        (of(|a| matches!(a, Action::Summon { .. })), 1),
        (of(|a| matches!(a, Action::Place { .. })), 4),
    ];
    let total: u32 = groups
        .iter()
        .filter(|(g, _)| !g.is_empty())
        .map(|(_, w)| w)
        .sum();
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
    unreachable!("the weights cover the roll")
}

impl RandomGame {
    /// The setup the game was played from: its players and Battleplans.
    pub fn setup(&self) -> GameSetup {
        let battleplans = self
            .players
            .iter()
            .zip(&self.plans)
            .map(|(&c, plan)| {
                let letters: Vec<String> = plan.iter().map(|p| p.letter().to_string()).collect();
                (c, letters.join(" "))
            })
            .collect();
        GameSetup::EnPrise(super::Setup {
            players: Some(self.players.clone()),
            battleplans,
            ..Default::default()
        })
    }

    /// Every table in order, as an input reports them: one per action, and
    /// the tables an action's second part leaves.
    pub fn observations(&self) -> Vec<Observation> {
        self.turns
            .iter()
            .flat_map(|t| std::iter::once(&t.table).chain(&t.then))
            .map(|t| Observation::Table(t.clone()))
            .collect()
    }
}

/// A mid-game position with about `cards` cards on the table, from a random
/// game (for benchmarks). Tries seeds from `seed` on until one gets there;
/// `None` if a thousand do not (a board of `n` players holds at most 16n).
pub fn position_with_cards(seed: u64, n_players: usize, cards: usize) -> Option<EnPrise> {
    (seed..seed.saturating_add(1000)).find_map(|s| {
        let g = random_game(s, n_players, 400);
        g.turns
            .iter()
            .find(|t| t.before.card_count() >= cards && t.before.outcome().is_none())
            .map(|t| t.before.clone())
    })
}
