//! Random legal Enochian games, for property tests, benchmarks and demos:
//! from the default array, random legal moves (captures, king captures,
//! throne moves and promotions weighted up), the die rolled in divination
//! mode, and now and then a call the rules allow (an exchange proposed and
//! answered, a withdrawal, a draw agreed). Owed steps (EN-PRO-3 swaps,
//! returning kings) are made with the move, in a table of their own, or
//! with the next move. The game is the observations an input would report,
//! so it replays through the referee or writes out as a table script.

use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

use super::rules::{KingState, Move, THRONES, ally};
use super::{Enochian, Mode, Options};
use crate::event::ActionKind;
use crate::event::EventBody;
use crate::games::{Game, Verdict};
use crate::observation::Observation;
use crate::setup::GameSetup;
use crate::table::Piece;

/// What a step of a random game shows.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Move(Move),
    /// A table making owed steps only.
    Owed,
    Roll(u8),
    Call(String, u8),
}

#[derive(Clone, Debug)]
pub struct Step {
    pub observation: Observation,
    /// The state the observation is judged in.
    pub before: Enochian,
    pub kind: Kind,
    /// What the referee announces for it, in order.
    pub events: Vec<EventBody>,
}

#[derive(Clone, Debug)]
pub struct RandomGame {
    pub seed: u64,
    pub opts: Options,
    pub steps: Vec<Step>,
    pub end: Enochian,
}

/// Options drawn at random: either mode, with or without the die.
pub fn random_options(rng: &mut impl Rng) -> Options {
    Options {
        mode: if rng.random_bool(0.5) {
            Mode::FourPlayer
        } else {
            Mode::TwoPlayer
        },
        divination: rng.random_bool(0.5),
        rerolls: rng.random_range(0..=3),
    }
}

fn weight(g: &Enochian, m: &Move) -> u32 {
    let p = g.position();
    let victims: Vec<_> = p.units_at(m.to).collect();
    let mut w = 2;
    if !m.join && !victims.is_empty() {
        w += 6;
        if victims.iter().any(|v| v.kind == Piece::King) {
            w += 40;
        }
    }
    if m.join {
        w += 4;
    }
    if m.promo.is_some() {
        w += 10;
    }
    if m.kind == Piece::King && THRONES[ally(g.acting()) as usize].contains(&m.to) {
        w += 30;
    }
    if m.kind == Piece::Pawn {
        w += 2;
    }
    w
}

fn pick(g: &Enochian, moves: &[Move], rng: &mut impl Rng) -> Option<Move> {
    let total: u32 = moves.iter().map(|m| weight(g, m)).sum();
    if total == 0 {
        return None;
    }
    let mut r = rng.random_range(0..total);
    for m in moves {
        let w = weight(g, m);
        if r < w {
            return Some(*m);
        }
        r -= w;
    }
    None
}

/// Plays a random legal game of at most `max_steps` observations.
pub fn random_game(seed: u64, opts: Options, max_steps: usize) -> RandomGame {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut game = Enochian::new(opts);
    let mut steps = Vec::new();
    while game.outcome().is_none() && steps.len() < max_steps {
        if !game.owed().is_empty() && rng.random_bool(0.3) {
            let next = game.settled();
            steps.push(Step {
                observation: Observation::Table(next.table()),
                before: game.clone(),
                kind: Kind::Owed,
                events: vec![],
            });
            game = next;
            continue;
        }
        let calls: Vec<Observation> = game
            .offered_inputs()
            .into_iter()
            .filter(|o| match o {
                Observation::Call { call, .. } => match call.as_str() {
                    "withdraw" => rng.random_bool(0.02),
                    "agree-draw" => rng.random_bool(0.04),
                    _ => true,
                },
                _ => false,
            })
            .collect();
        if !calls.is_empty()
            && rng.random_bool(0.5)
            && let Some(call) = calls.choose(&mut rng)
        {
            let Observation::Call { call: name, by } = call else {
                unreachable!()
            };
            let by = super::rules::army_named(by.as_deref().unwrap_or("")).unwrap_or(0);
            let Verdict::Advance { game: next, events } = game.judge_input(call) else {
                panic!("an offered call is accepted")
            };
            steps.push(Step {
                observation: call.clone(),
                before: game.clone(),
                kind: Kind::Call(name.clone(), by),
                events,
            });
            game = next;
            continue;
        }
        if game.awaits_roll() {
            let n = rng.random_range(1..=6u8);
            let obs = Observation::Roll(n);
            let Verdict::Advance { game: next, events } = game.judge_input(&obs) else {
                panic!("a roll is awaited")
            };
            steps.push(Step {
                observation: obs,
                before: game.clone(),
                kind: Kind::Roll(n),
                events,
            });
            game = next;
            continue;
        }
        let moves = game.allowed_moves();
        let Some(m) = pick(&game, &moves, &mut rng) else {
            break;
        };
        let (mut next, events) = game.play(m);
        let events = [game.intro_events().to_vec(), events].concat();
        if rng.random_bool(0.6) {
            next = next.settled();
        }
        steps.push(Step {
            observation: Observation::Table(next.table()),
            before: game.clone(),
            kind: Kind::Move(m),
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

impl RandomGame {
    pub fn observations(&self) -> Vec<Observation> {
        self.steps.iter().map(|s| s.observation.clone()).collect()
    }

    /// The setup the game was played from.
    pub fn setup(&self) -> GameSetup {
        GameSetup::Enochian(super::Setup {
            options: self.opts,
            ..Default::default()
        })
    }

    /// How often the rules came up: for tests that the sweep reaches them.
    pub fn count(&self, action: ActionKind) -> usize {
        self.steps
            .iter()
            .flat_map(|s| &s.events)
            .filter(|e| matches!(e, EventBody::Action(a) if a.action == action))
            .count()
    }

    pub fn notices(&self, kind: &str) -> usize {
        self.steps
            .iter()
            .flat_map(|s| &s.events)
            .filter(|e| matches!(e, EventBody::Notice { kind: k, .. } if k == kind))
            .count()
    }
}

/// The state of a seeded game where the acting army has the most legal
/// moves: the referee's heaviest position (for benchmarks).
pub fn busiest_position(seed: u64, opts: Options) -> Enochian {
    let g = random_game(seed, opts, 300);
    g.steps
        .iter()
        .map(|s| &s.before)
        .filter(|b| b.outcome().is_none() && !b.awaits_roll())
        .max_by_key(|b| b.legal_moves().len())
        .cloned()
        .unwrap_or(g.end)
}

/// Whether an army's king is a prisoner (for tests).
pub fn is_prisoner(g: &Enochian, a: u8) -> bool {
    matches!(g.position().armies[a as usize].king, KingState::Prisoner(_))
}
