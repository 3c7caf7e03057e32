//! Twelve property tests.
//!
//! - Random legal games (every option combination, random start
//!   orientation, Pawn steps in the same table or the next, Bishop
//!   send-backs, exchanges, Queen removals alone or with the action) replay
//!   through the referee with zero flags, announce exactly the generator's
//!   events, and end in the generator's final state; also with every table
//!   shifted at random (the cloth moved).
//! - Every legal action the engine lists is read back as that action from
//!   its table, shifted or not.
//! - Mistakes injected into those games are flagged with the right kind,
//!   rule and cells, and mending them lets the game go on unchanged.
//! - Random tables never panic the judge.

use arbiter::event::ActionKind;
use arbiter::event::{Event, EventBody, FlagKind, How};
use arbiter::games::twelve::{Action, Options, Phase, SIDES, Twelve};
use arbiter::games::{Game, Verdict};
use arbiter::observation::Observation;
use arbiter::referee::Referee;
use arbiter::table::{Card, Cell, Colour, Piece, Table, Token};
use arbiter_testkit::Played;
use arbiter_testkit::games::twelve::mistakes::{
    Kind, Mistake, at, check_injection, check_queen_left, make, plain_states, removal_tables, with,
};
use arbiter_testkit::games::twelve::random::{RandomGame, random_game, random_options};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn replay_with(opts: Options, obs: &[Observation]) -> (Vec<Event>, Referee<Twelve>) {
    let mut r = Referee::new(Twelve::new(opts));
    let mut events = r.start();
    for (i, o) in obs.iter().enumerate() {
        events.extend(r.observe(i, o));
    }
    events.extend(r.finish(obs.len().saturating_sub(1)));
    (events, r)
}

fn flags(events: &[Event]) -> Vec<&Event> {
    events
        .iter()
        .filter(|e| matches!(e.body, EventBody::Flag(_)))
        .collect()
}

fn game(seed: u64) -> RandomGame {
    let mut rng = StdRng::seed_from_u64(seed ^ 0x7e1e);
    random_game(seed, random_options(&mut rng), 80)
}

/// An event with its cells moved by `d`.
fn shifted(e: &EventBody, d: Cell) -> EventBody {
    let mut e = e.clone();
    match &mut e {
        EventBody::Action(a) => {
            a.from = a.from.map(|c| c.plus(d));
            a.to = a.to.map(|c| c.plus(d));
        }
        EventBody::Flag(f) => f.cells.iter_mut().for_each(|c| *c = c.plus(d)),
        _ => {}
    }
    e
}

/// Replays a random game (each table moved by `shift(i)`) and checks it is
/// flag-free, announces the generator's events and ends in its state.
fn check_legal_game(g: &RandomGame, shift: &dyn Fn(usize) -> Cell) -> Result<(), String> {
    let obs: Vec<Observation> = g
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| Observation::Table(s.table.shifted(shift(i))))
        .collect();
    let (events, referee) = replay_with(g.opts, &obs);
    if let Some(f) = flags(&events).first() {
        return Err(format!(
            "seed {}: a legal game raised {}\n{}",
            g.seed,
            f.to_json_line(),
            g.script()
        ));
    }
    // A standard game's first judged table fixes the board's frame: the
    // referee's cells may differ from the generator's by that one shift.
    let king = |t: &Twelve| t.position().cell_of(0, Piece::King).unwrap_or_default();
    let d = king(referee.game()).minus(king(&g.end));
    let got: Vec<&EventBody> = events.iter().skip(1).map(|e| &e.body).collect();
    let want: Vec<EventBody> = g
        .steps
        .iter()
        .flat_map(|s| s.events.iter())
        .map(|e| shifted(e, d))
        .collect();
    if got.iter().copied().ne(want.iter()) {
        return Err(format!(
            "seed {}: events differ\n got {got:?}\nwant {want:?}\n{}",
            g.seed,
            g.script()
        ));
    }
    if *referee.game() != g.end.shifted(d) {
        return Err(format!(
            "seed {}: the referee's game differs from the generator's\n{:?}\n{:?}",
            g.seed,
            referee.game(),
            g.end
        ));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_legal_games_replay_with_no_flag(seed in any::<u64>()) {
        let g = game(seed);
        let r = check_legal_game(&g, &|_| Cell::default());
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }

    /// Every table seen where the generator laid it, then again moved as a
    /// whole (the cloth slid): the move announces nothing.
    #[test]
    fn shifted_tables_change_nothing(seed in any::<u64>(), shifts in prop::collection::vec((-5i32..=5, -5i32..=5), 1..40)) {
        let g = game(seed);
        let mut obs = Vec::new();
        for (i, s) in g.steps.iter().enumerate() {
            let (c, r) = shifts[i % shifts.len()];
            obs.push(Observation::Table(s.table.clone()));
            obs.push(Observation::Table(s.table.shifted(Cell::new(c, r))));
        }
        let (events, referee) = replay_with(g.opts, &obs);
        prop_assert!(flags(&events).is_empty(), "seed {seed}: {:?}", flags(&events));
        let got: Vec<&EventBody> = events.iter().skip(1).map(|e| &e.body).collect();
        let want: Vec<&EventBody> = g.steps.iter().flat_map(|s| s.events.iter()).collect();
        prop_assert_eq!(got, want, "seed {}", seed);
        prop_assert_eq!(referee.game(), &g.end);
    }
}

/// Every action seen on a table moved as a whole. In Twelve's small tables
/// the first card is often the one that moved, so the referee tries each of
/// the first three cards of one table onto each of the first three of the
/// other (`candidate_offsets` in `referee.rs`).
/// Seed 9955 (the soak found it): a Bishop entry sends back the Black
/// Queen while the White Queen is surrounded and taken off in the same
/// table. Either Queen could be the one sent back; the readings stay open
/// until Black places its Queen again.
#[test]
fn two_queens_gone_with_a_bishop_entry_stay_two_readings() {
    for opts in Options::all() {
        let g = random_game(9955, opts, 80);
        check_legal_game(&g, &|_| Cell::default()).unwrap();
    }
}

#[test]
fn shifted_actions_are_read_in_the_board_frame() {
    let mut rng = StdRng::seed_from_u64(3);
    for seed in 0..200u64 {
        let g = game(seed);
        let shifts: Vec<Cell> = (0..g.steps.len())
            .map(|_| Cell::new(rng.random_range(-5..=5), rng.random_range(-5..=5)))
            .collect();
        check_legal_game(&g, &|i| shifts[i]).unwrap();
    }
}

#[test]
fn a_sweep_of_games_covers_every_option_and_reaches_the_rules() {
    let all = Options::all();
    let (mut ended, mut entries, mut steps_apart, mut bishops, mut exchanges) = (0, 0, 0, 0, 0);
    let (mut removals, mut removals_with, mut passes) = (0, 0, 0);
    for seed in 0..192u64 {
        let g = random_game(seed, all[seed as usize % all.len()], 80);
        check_legal_game(&g, &|_| Cell::default()).unwrap();
        ended += g.end.outcome().is_some() as usize;
        // Every Queen announced out is taken off by its owner's colour
        // before that colour's Queen is announced out again.
        let mut owed = [false; 2];
        for e in g.steps.iter().flat_map(|s| &s.events) {
            match e {
                EventBody::Notice { kind, message, .. } if kind == "queen_out" => {
                    let side = usize::from(message.contains("Black"));
                    assert!(!owed[side], "seed {seed}: {message} twice");
                    owed[side] = true;
                }
                EventBody::Action(a) if a.action == ActionKind::RemoveQueen => {
                    let side = usize::from(a.player == "black");
                    assert!(owed[side], "seed {seed}: removal never announced");
                    owed[side] = false;
                }
                _ => {}
            }
        }
        assert_eq!(
            owed, [false; 2],
            "seed {seed}: a Queen announced out stayed"
        );
        for s in &g.steps {
            match s.action {
                Some(Action::PawnEntry { .. }) => entries += 1,
                Some(Action::Step { .. }) => steps_apart += 1,
                Some(Action::BishopEntry { .. }) => bishops += 1,
                Some(Action::Exchange { .. }) => exchanges += 1,
                _ => {}
            }
            removals += (s.removal && s.action.is_none()) as usize;
            removals_with += (s.removal && s.action.is_some()) as usize;
            passes += s
                .events
                .iter()
                .filter(|e| matches!(e, EventBody::Action(a) if a.action == ActionKind::Pass))
                .count();
        }
    }
    println!(
        "ended {ended}, pawn entries {entries}+{steps_apart}, bishops {bishops}, exchanges {exchanges}, removals {removals}+{removals_with}, passes {passes}"
    );
    assert!(ended >= 40, "{ended} games ended");
    assert!(
        entries >= 20 && steps_apart >= 20,
        "{entries} {steps_apart}"
    );
    assert!(bishops >= 50, "{bishops}");
    assert!(exchanges >= 50, "{exchanges}");
    assert!(
        removals >= 5 && removals_with >= 2,
        "{removals} {removals_with}"
    );
    assert!(passes >= 5, "{passes} passes");
}

#[test]
fn every_listed_action_reads_back_as_itself() {
    let all = Options::all();
    let mut rng = StdRng::seed_from_u64(11);
    let (mut checked, mut ambiguous) = (0, 0);
    for seed in 0..32u64 {
        let g = random_game(seed, all[seed as usize % all.len()], 60);
        for (_, state) in plain_states(&g).step_by(3) {
            for action in state.legal_actions() {
                let (after, events) = state.apply(action);
                let table = after.table();
                // Through the referee, as the input reports it.
                let mut r = Referee::new(state.clone());
                let ev = r.observe(0, &Observation::Table(table.clone()));
                assert!(flags(&ev).is_empty(), "seed {seed}: {action}: {ev:?}");
                assert_eq!(r.game(), &after, "seed {seed}: {action}");
                // The judge, on the table shifted and aligned back.
                let d = Cell::new(rng.random_range(-9..=9), rng.random_range(-9..=9));
                let changes = state
                    .table()
                    .diff(&table.shifted(d), Cell::new(-d.col, -d.row));
                match state.judge(&changes) {
                    Verdict::Advance { game, events: got } => {
                        assert_eq!((&game, &got), (&after, &events), "seed {seed}: {action}");
                    }
                    Verdict::Ambiguous(readings) => {
                        // A Pawn placement: the turn over first, its step to come second.
                        assert!(matches!(action, Action::Place { .. }), "{action}");
                        assert_eq!(readings[0].game, after, "seed {seed}: {action}");
                        assert!(matches!(readings[1].game.phase(), Phase::Entry { .. }));
                        ambiguous += 1;
                    }
                    Verdict::Flag(f) => panic!("seed {seed}: {action} flagged: {}", f.message),
                }
                checked += 1;
            }
        }
    }
    println!("{checked} listed actions read back ({ambiguous} Pawn placements kept open)");
    assert!(checked >= 2000 && ambiguous >= 50, "{checked} {ambiguous}");
}

/// Runs `make` on the plain states of many random games until `want`
/// injections were checked; `make` gives the mistaken table and what to
/// expect, or `None` where the state offers no such mistake.
fn inject(want: usize, make: &dyn Fn(&RandomGame, usize, &Twelve) -> Option<Mistake>) -> usize {
    let all = Options::all();
    let mut done = 0;
    for seed in 0..400u64 {
        let g = random_game(seed, all[seed as usize % all.len()], 60);
        // One per game, from a step chosen by the seed, so that positions vary.
        let states: Vec<(usize, &Twelve)> = plain_states(&g)
            // A Pawn placement just before keeps two readings open: the
            // flag would then be chosen among both.
            .filter(|&(i, _)| {
                !matches!(
                    g.steps[i - 1].action,
                    Some(Action::Place {
                        piece: Piece::Pawn,
                        ..
                    })
                )
            })
            .collect();
        let n = states.len().max(1);
        for k in 0..states.len() {
            let (i, state) = states[(k + seed as usize) % n];
            if let Some((mistake, expect)) = make(&g, i, state) {
                check_injection(&g, i, mistake, &expect).unwrap();
                done += 1;
                break;
            }
        }
        if done >= want {
            break;
        }
    }
    done
}

#[test]
fn a_placement_touching_no_piece_of_its_colour_is_illegal() {
    let n = inject(25, &|_, _, state| make(Kind::TouchingNoOwn, state));
    assert!(n >= 25, "{n}");
}

#[test]
fn a_placement_beside_the_enemy_king_is_illegal() {
    let n = inject(25, &|_, _, state| make(Kind::BesideEnemyKing, state));
    assert!(n >= 25, "{n}");
}

#[test]
fn a_move_that_splits_its_colour_is_illegal() {
    let n = inject(25, &|_, _, state| make(Kind::SplittingMove, state));
    assert!(n >= 25, "{n}");
}

#[test]
fn a_slider_passing_an_enemy_piece_is_illegal() {
    let n = inject(25, &|_, _, state| make(Kind::SliderPassing, state));
    assert!(n >= 25, "{n}");
}

/// A Bishop entry seen in three tables instead of one: the Bishop alone
/// (accepted, its send-back pending, no flag), then the opponent's next
/// action with the send-back still undone (`incomplete_action`, TW-10.2,
/// at the Bishop, owed by the Bishop's side), then that action with the
/// send-back done, which mends it: the send-back and the action are
/// announced, and the rest of the game reads as it did.
#[test]
fn a_send_back_the_opponent_overtakes_is_incomplete_until_done() {
    let all = Options::all();
    let mut done = 0;
    for seed in 0..600u64 {
        let g = random_game(seed, all[seed as usize % all.len()], 60);
        let found = (1..g.steps.len().saturating_sub(1)).find_map(|i| {
            let Some(Action::BishopEntry {
                side,
                at: bishop,
                send_back,
            }) = g.steps[i].action
            else {
                return None;
            };
            // The entry in one table, then the opponent's own action, which
            // leaves the cell the piece was sent back from empty and does
            // not put that piece down again (a card lies in one place).
            let next = &g.steps[i + 1];
            let victim = g.steps[i].before.table().get(send_back);
            // Nor sends a piece back itself: a piece gone would then be
            // either side's send-back.
            let plain = next
                .action
                .is_some_and(|a| a.side() != side && !matches!(a, Action::BishopEntry { .. }))
                && !next.removal
                && !g.steps[i].removal
                && g.steps[i].before.phase() == Phase::Turn
                && next.table.get(send_back).is_none()
                && !next.table.iter().any(|(_, t)| Some(t) == victim);
            plain.then_some((i, side, bishop, send_back))
        });
        let Some((i, side, bishop, send_back)) = found else {
            continue;
        };
        let before = &g.steps[i].before;
        let victim = before.table().get(send_back);
        let alone = with(before, bishop, Card::new(SIDES[side], Piece::Bishop));
        let mut overtaken = g.steps[i + 1].table.clone();
        overtaken.set(send_back, victim);
        let clean = g.observations();
        let mut obs = clean.clone();
        obs[i] = Observation::Table(alone);
        obs.insert(i + 1, Observation::Table(overtaken));
        let (base, _) = replay_with(g.opts, &clean);
        let (got, _) = replay_with(g.opts, &obs);
        let ctx = format!("seed {seed}, table {i}");
        // The Bishop alone: placed, the send-back pending.
        let first = at(&got, i);
        assert!(
            matches!(first[..], [EventBody::Action(a), EventBody::Notice { kind, cells, .. }]
                if a.action == ActionKind::Place && a.to == Some(bishop) && kind == "pending" && cells.contains(&send_back)),
            "{ctx}: {first:?}"
        );
        // The opponent first: the send-back is owed.
        let second = at(&got, i + 1);
        let [EventBody::Flag(f)] = second[..] else {
            panic!("{ctx}: the overtaking table gave {second:?}");
        };
        assert_eq!(
            (f.kind, f.rule.as_str(), &f.cells, f.player.as_deref()),
            (
                FlagKind::IncompleteAction,
                "TW-10.2",
                &vec![bishop],
                Some(SIDES[side].name())
            ),
            "{ctx}: {}",
            f.message
        );
        // Done: cleared, then the send-back and the opponent's action, as
        // the entry and that action were announced without the mistake.
        let third = at(&got, i + 2);
        assert!(
            matches!(
                third.first(),
                Some(EventBody::Cleared {
                    kind: FlagKind::IncompleteAction,
                    how: How::Mended
                })
            ),
            "{ctx}: {third:?}"
        );
        let strip = |v: Vec<&EventBody>| -> Vec<EventBody> {
            v.into_iter()
                .filter(|b| !matches!(b, EventBody::Cleared { .. } | EventBody::Notice { .. }))
                .cloned()
                .collect()
        };
        let mut want = strip(at(&base, i));
        want.extend(strip(at(&base, i + 1)));
        let mut had = strip(first);
        had.extend(strip(third));
        assert_eq!(had, want, "{ctx}");
        for step in i + 2..clean.len() {
            assert_eq!(
                strip(at(&got, step + 1)),
                strip(at(&base, step)),
                "{ctx}: table {step}"
            );
        }
        done += 1;
        if done >= 25 {
            break;
        }
    }
    assert!(done >= 25, "{done}");
}

#[test]
fn moving_the_opponents_piece_is_the_wrong_player() {
    let n = inject(25, &|_, _, state| make(Kind::OpponentsPiece, state));
    assert!(n >= 25, "{n}");
}

#[test]
fn a_second_exchange_is_illegal() {
    let n = inject(10, &|_, _, state| make(Kind::SecondExchange, state));
    assert!(n >= 10, "{n}");
}

/// A Queen surrounded at the end of a turn, still on the table when the
/// next action is seen: `missing_removal`, and the game waits; the table
/// with the Queen taken off as well announces the removal and the action
/// (`mistakes::check_queen_left`).
#[test]
fn a_surrounded_queen_left_into_the_next_action_is_a_missing_removal() {
    let all = Options::all();
    let mut done = 0;
    for seed in 0..400u64 {
        let g = random_game(seed, all[seed as usize % all.len()], 80);
        let Some(&r) = removal_tables(&g).first() else {
            continue;
        };
        if let Err(e) = check_queen_left(&g, r) {
            panic!("{e}");
        }
        done += 1;
        if done >= 20 {
            break;
        }
    }
    assert!(done >= 20, "{done}");
}

/// Random tables, some near the expected one and some not, never panic
/// the referee, whatever the state (start, open Pawn step, Queen to take
/// off, game over).
#[test]
fn random_tables_never_panic_the_judge() {
    let mut rng = StdRng::seed_from_u64(5);
    let colours = [Colour::White, Colour::Black, Colour::Red];
    let all = Options::all();
    let mut states: Vec<Twelve> = vec![Twelve::new(Options::default())];
    for seed in 0..24u64 {
        let g = random_game(seed, all[seed as usize % all.len()], 60);
        states.extend(g.steps.iter().step_by(5).map(|s| s.before.clone()));
        states.push(g.end);
    }
    let mut judged = 0;
    for state in &states {
        let mut r = Referee::new(state.clone());
        for k in 0..30 {
            let mut t = if k % 2 == 0 {
                state.table()
            } else {
                Table::new()
            };
            for _ in 0..rng.random_range(1..6) {
                let cell = Cell::new(rng.random_range(-4..=5), rng.random_range(-4..=5));
                let token = match rng.random_range(0..10) {
                    0 => None,
                    1 => Some(Token::Down),
                    2 => Some(Token::Unreadable),
                    _ => {
                        let colour = colours[rng.random_range(0..colours.len())];
                        let piece = Piece::ALL[rng.random_range(0..6)];
                        Some(Token::Up(Card::new(colour, piece)))
                    }
                };
                t.set(cell, token);
            }
            r.observe(k, &Observation::Table(t.clone()));
            // The judge alone, on the raw differences too.
            let changes = state.table().diff(&t, Cell::default());
            if !changes.is_empty() {
                let _ = state.judge(&changes);
            }
            judged += 1;
        }
        r.finish(30);
    }
    assert!(judged > 3000, "{judged}");
}
