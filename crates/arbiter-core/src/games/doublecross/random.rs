//! Random legal DoubleCross games, for property tests, benchmarks and demos:
//! random draws from what the pile can hold, a random legal action for each,
//! check called whenever one is due, and Save King played or declined at
//! random. The game is the observations an input would report, so it can
//! be replayed through the referee or written out as a table script.

use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

use super::deck::{DcCard, Joust};
use super::{Action, DoubleCross, Options, PLAYERS, new_checks, table_of};
use crate::games::{Game, Verdict};
use crate::observation::Observation;
use crate::setup::GameSetup;
use crate::table::Table;

/// One observation of a random game and the state it leads to.
#[derive(Clone, Debug)]
pub struct Step {
    pub observation: Observation,
    /// The state before the observation.
    pub before: DoubleCross,
    /// The action taken, for a table step that is one.
    pub action: Option<Action>,
}

#[derive(Clone, Debug)]
pub struct RandomGame {
    pub seed: u64,
    pub opts: Options,
    pub steps: Vec<Step>,
    pub end: DoubleCross,
}

impl RandomGame {
    /// The setup the game was played from.
    pub fn setup(&self) -> GameSetup {
        GameSetup::DoubleCross(super::Setup {
            options: super::SetupOptions::from(&self.opts),
            ..Default::default()
        })
    }

    /// The observations in order, as an input reports them.
    pub fn observations(&self) -> Vec<Observation> {
        self.steps.iter().map(|s| s.observation.clone()).collect()
    }
}

/// Plays a random legal game for at most `max_turns` turns.
pub fn random_game(seed: u64, opts: Options, max_turns: usize) -> RandomGame {
    random_game_with(seed, opts, max_turns, &|_, _| None)
}

/// As [`random_game`], with `prefer` choosing the action where it likes one
/// (a test that needs castles or en passant asks for them).
pub fn random_game_with(
    seed: u64,
    opts: Options,
    max_turns: usize,
    prefer: &dyn Fn(&DoubleCross, &[Action]) -> Option<Action>,
) -> RandomGame {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut game = DoubleCross::new(opts.clone());
    let mut steps = vec![Step {
        observation: Observation::Table(game.table()),
        before: game.clone(),
        action: None,
    }];
    let mut turns = 0;
    while !game.is_over() && turns < max_turns {
        let (obs, action) = if let Some(holder) = game.save_king_pending() {
            let call = if rng.random_bool(0.7) {
                "save-king"
            } else {
                "decline-save-king"
            };
            (
                Observation::Call {
                    call: call.into(),
                    by: Some(PLAYERS[holder].into()),
                },
                None,
            )
        } else if game.awaits_draw() {
            let cards = game.drawable();
            let Some(&card) = cards.choose(&mut rng) else {
                break;
            };
            turns += 1;
            (Observation::Draw(card.to_string()), None)
        } else if let Some(card) = game.card_to_act() {
            let actions = game.options(card);
            let Some(action) =
                prefer(&game, &actions).or_else(|| pick(&actions, &game, &mut rng).copied())
            else {
                break;
            };
            let table = table_of(&game.after(action));
            assert!(
                table != game.table(),
                "seed {seed}: {action:?} leaves the board as it is"
            );
            (Observation::Table(table), Some(action))
        } else {
            break;
        };
        let next = match advance(&game, &obs) {
            Some(g) => g,
            None => panic!("seed {seed}: the game refused its own legal step {obs:?}"),
        };
        steps.push(Step {
            observation: obs,
            before: game.clone(),
            action,
        });
        let mover = game.to_move;
        game = next;
        // Check is called whenever the turn left a new one (DC-6.3).
        if action.is_some() && !game.is_over() && game.save_king_pending().is_none() {
            let due = game
                .turn
                .as_ref()
                .is_some_and(|t| !new_checks(&t.start, &game.pos).is_empty());
            if due {
                let obs = Observation::Call {
                    call: "check".into(),
                    by: Some(PLAYERS[mover].into()),
                };
                let next = advance(&game, &obs).expect("a due call is accepted");
                steps.push(Step {
                    observation: obs,
                    before: game.clone(),
                    action: None,
                });
                game = next;
            }
        }
    }
    RandomGame {
        seed,
        opts,
        steps,
        end: game,
    }
}

/// The state after one observation, when the game accepts it.
pub fn advance(game: &DoubleCross, obs: &Observation) -> Option<DoubleCross> {
    let verdict = match obs {
        Observation::Table(t) => {
            let changes = game.table().diff(t, crate::table::Cell::default());
            if changes.is_empty() {
                return Some(game.clone());
            }
            game.judge(&changes)
        }
        other => game.judge_input(other),
    };
    match verdict {
        Verdict::Advance { game, .. } => Some(game),
        _ => None,
    }
}

/// Captures and promotions a little more often than chance, so games reach
/// the interesting rules (king capture, promotion) within a few dozen turns.
fn pick<'a>(actions: &'a [Action], game: &DoubleCross, rng: &mut StdRng) -> Option<&'a Action> {
    if rng.random_bool(0.4) {
        let lively: Vec<&Action> = actions
            .iter()
            .filter(|a| match a {
                Action::Move(m) => {
                    game.pos.piece_at(m.to).is_some()
                        || !matches!(m.kind, super::chess::MoveKind::Normal)
                }
                _ => true,
            })
            .collect();
        if let Some(a) = lively.choose(rng) {
            return Some(a);
        }
    }
    actions.choose(rng)
}

/// A table for a script step, as the players must leave it.
pub fn table(game: &DoubleCross) -> Table {
    game.table()
}

/// The options a property test runs under: Joust off, once or recycled, and
/// the other options at random.
pub fn random_options(rng: &mut impl Rng) -> Options {
    let joust = *[
        super::deck::JoustMode::Off,
        super::deck::JoustMode::Once,
        super::deck::JoustMode::Recycle,
    ]
    .choose(rng)
    .expect("three modes");
    Options {
        joust,
        delayed_promotion: rng.random_bool(0.3),
        free_self_removal: rng.random_bool(0.2),
        announce_checks: rng.random_bool(0.3),
        ..Options::default()
    }
}

/// Whether a card is a Joust card (for statistics in tests).
pub fn is_joust(card: DcCard) -> bool {
    matches!(card, DcCard::Joust(_))
}

pub const SAVE_KING: DcCard = DcCard::Joust(Joust::SaveKing);
