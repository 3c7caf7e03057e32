//! DoubleCross property tests: random legal games (random draws, random
//! legal actions, Joust off, once and recycled, the other options at random)
//! replay through the referee with no flag and end in the game the
//! generator played; mistakes injected into them (a piece the card does not
//! designate moved, a castling rook left behind, an en passant pawn left on
//! the board, an illegal removal, a check not called) are flagged with the
//! right kind and cells, and mending them lets the game go on unchanged.

use arbiter::event::ActionKind;
use arbiter::event::{Event, EventBody, FlagKind, events_at as at};
use arbiter::games::Game;
use arbiter::games::doublecross::chess::{Move, MoveKind, Position, Side, cell_of};
use arbiter::games::doublecross::{Action, DoubleCross, Options, table_of};
use arbiter::observation::Observation;
use arbiter::referee::Referee;
use arbiter_testkit::Played;
use arbiter_testkit::games::doublecross::mistakes::{Kind, check_injection, inject, lively_game};
use arbiter_testkit::games::doublecross::random::{RandomGame, random_game, random_options};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::StdRng;

fn replay_with(opts: &Options, obs: &[Observation]) -> (Vec<Event>, Referee<DoubleCross>) {
    let mut r = Referee::new(DoubleCross::new(opts.clone()));
    let mut events = r.start();
    for (i, o) in obs.iter().enumerate() {
        events.extend(r.observe(i, o));
    }
    (events, r)
}

fn flags(events: &[Event]) -> Vec<&Event> {
    events
        .iter()
        .filter(|e| matches!(e.body, EventBody::Flag(_)))
        .collect()
}

fn observations(g: &RandomGame) -> Vec<Observation> {
    g.steps.iter().map(|s| s.observation.clone()).collect()
}

fn game(seed: u64) -> RandomGame {
    let mut rng = StdRng::seed_from_u64(seed ^ 0x5eed);
    random_game(seed, random_options(&mut rng), 150)
}

/// Replays a random game and checks it is flag-free and ends where the
/// generator's game ended.
fn check_legal_game(g: &RandomGame) -> Result<(), String> {
    let (events, referee) = replay_with(&g.opts, &observations(g));
    if let Some(f) = flags(&events).first() {
        return Err(format!(
            "seed {}: a legal game raised {}\n{}",
            g.seed,
            f.to_json_line(),
            g.script()
        ));
    }
    let end = referee.game();
    if end.table() != g.end.table() || end.record() != g.end.record() {
        return Err(format!(
            "seed {}: the referee's game differs from the generator's",
            g.seed
        ));
    }
    // Every table the generator changed is announced as one action, and
    // no table step announces anything else.
    let actions = g.steps.iter().filter(|s| s.action.is_some()).count();
    let announced = events
        .iter()
        .filter(|e| {
            matches!(e.body, EventBody::Action(_))
                && matches!(g.steps[e.step].observation, Observation::Table(_))
        })
        .count();
    if announced != actions {
        return Err(format!(
            "seed {}: {actions} table actions, {announced} announced",
            g.seed
        ));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn random_legal_games_replay_with_no_flag(seed in any::<u64>()) {
        let g = game(seed);
        prop_assert!(check_legal_game(&g).is_ok(), "{}", check_legal_game(&g).unwrap_err());
    }
}

#[test]
fn a_sweep_of_games_covers_joust_modes_and_reaches_the_rules() {
    let mut kings_captured = 0;
    let mut jousts = 0;
    let mut castles = 0;
    let mut promotions = 0;
    for seed in 0..200u64 {
        let g = game(seed);
        check_legal_game(&g).unwrap();
        kings_captured += g.end.is_over() as usize;
        jousts += g
            .steps
            .iter()
            .filter(|s| matches!(&s.observation, Observation::Draw(d) if d.starts_with("joust:")))
            .count();
        for s in &g.steps {
            match s.action {
                Some(Action::Move(Move {
                    kind: MoveKind::Castle,
                    ..
                })) => castles += 1,
                Some(Action::Move(Move {
                    kind: MoveKind::Promotion(_),
                    ..
                }))
                | Some(Action::Promote { .. }) => promotions += 1,
                _ => {}
            }
        }
    }
    // The sweep is only worth something if games reach these rules.
    assert!(kings_captured >= 20, "{kings_captured} games ended");
    assert!(jousts >= 20, "{jousts} Joust cards drawn");
    assert!(
        castles + promotions >= 5,
        "{castles} castles, {promotions} promotions"
    );
}

/// A game where castles and en passant are taken whenever the card allows.
fn board_after(before: &Position, f: impl FnOnce(&mut Position)) -> Observation {
    let mut p = before.clone();
    f(&mut p);
    Observation::Table(table_of(&p))
}

/// Each kind of mistake, injected into many games: flagged with its kind
/// at its cells, cleared when the board is mended or restored, and the
/// rest of the game as before.
fn injected(kind: Kind, games: u64, lively: bool) -> usize {
    let mut done = 0;
    for seed in 0..games {
        let g = if lively {
            lively_game(seed)
        } else {
            game(seed)
        };
        if let Some(inj) = inject(&g, kind, 0) {
            check_injection(&g, &inj).unwrap();
            done += 1;
        }
    }
    done
}

#[test]
fn a_piece_the_card_does_not_designate_is_an_illegal_move() {
    let n = injected(Kind::Undesignated, 40, false);
    assert!(n >= 30, "only {n} games had a move to spoil");
}

#[test]
fn a_castling_rook_left_behind_and_an_en_passant_pawn_left_are_incomplete() {
    let castles = injected(Kind::CastleRookLeft, 80, true);
    let passants = injected(Kind::EnPassantPawnLeft, 80, true);
    assert!(castles >= 5, "only {castles} castles");
    assert!(passants >= 3, "only {passants} en passant captures");
}

#[test]
fn a_removal_without_an_uncalled_check_is_illegal_and_undone() {
    let n = injected(Kind::Removal, 40, false);
    assert!(n >= 30, "only {n} games tried");
}

#[test]
fn a_check_left_uncalled_is_flagged_at_the_next_draw_and_its_piece_may_be_removed() {
    let mut lapsed = 0;
    let mut removed = 0;
    for seed in 0..80u64 {
        let g = game(seed);
        let Some(c) = g.steps.iter().position(
            |s| matches!(&s.observation, Observation::Call { call, .. } if call == "check"),
        ) else {
            continue;
        };
        let mut obs = observations(&g);
        obs.remove(c);
        let after_call = &g.steps[c].before;
        let (events, _) = replay_with(&g.opts, &obs[..c.min(obs.len())]);
        assert!(flags(&events).is_empty(), "seed {seed}");
        // The opponent draws: the check is logged and the right lapses.
        let Some(next_draw) = (c..obs.len()).find(|&j| matches!(obs[j], Observation::Draw(_)))
        else {
            continue;
        };
        if next_draw == c {
            let (events, _) = replay_with(&g.opts, &obs[..=c]);
            let here = at(&events, c);
            assert!(
                matches!(here.first(), Some(EventBody::Flag(f)) if f.kind == FlagKind::UncalledCheck),
                "seed {seed}: {here:?}"
            );
            assert!(here.iter().any(
                |b| matches!(b, EventBody::Notice { kind, .. } if kind == "removal_right_lapsed")
            ));
            lapsed += 1;
        }
        // Or the opponent removes the checking piece before drawing.
        let pos = after_call.position();
        let start = after_call.turn_start().unwrap();
        let x = arbiter_new_check_attacker(start, pos);
        if let Some(x) = x {
            let mut with_removal = obs[..c].to_vec();
            with_removal.push(board_after(pos, |p| p.set(x, None)));
            let (events, r) = replay_with(&g.opts, &with_removal);
            let here = at(&events, c);
            assert!(
                matches!(here.first(), Some(EventBody::Action(a)) if a.action == ActionKind::Remove),
                "seed {seed}: {here:?}"
            );
            assert!(
                here.iter()
                    .any(|b| matches!(b, EventBody::Flag(f) if f.kind == FlagKind::UncalledCheck))
            );
            if !r.game().is_over() {
                assert!(r.game().awaits_draw());
            }
            removed += 1;
        }
    }
    assert!(lapsed >= 5, "{lapsed} lapsed rights");
    assert!(removed >= 5, "{removed} removals");
}

/// An attacker of a new check, found independently of the engine's own
/// bookkeeping: a piece that attacks a King of the other colour now and
/// either moved this turn or did not attack it at the turn's start.
fn arbiter_new_check_attacker(start: &Position, end: &Position) -> Option<u8> {
    for side in [Side::White, Side::Black] {
        let Some(k) = end.king(side) else { continue };
        let now = end.attackers(k, side.other());
        for x in 0..64u8 {
            if now & (1 << x) == 0 {
                continue;
            }
            let moved =
                start.piece_at(x) != end.piece_at(x) || start.piece_at(k) != end.piece_at(k);
            let before =
                start.king(side) == Some(k) && start.attackers(k, side.other()) & (1 << x) != 0;
            if moved || !before {
                return Some(x);
            }
        }
    }
    None
}

#[test]
fn the_standard_start_needs_no_setup_and_a_wrong_one_is_unexplained() {
    let mut start = Position::startpos();
    let (events, _) = replay_with(&Options::default(), &[Observation::Table(table_of(&start))]);
    assert!(flags(&events).is_empty());
    start.set(12, None);
    let (events, _) = replay_with(&Options::default(), &[Observation::Table(table_of(&start))]);
    let f = flags(&events);
    assert!(
        matches!(&f[..], [Event { body: EventBody::Flag(fl), .. }] if fl.kind == FlagKind::Unexplained && fl.cells == vec![cell_of(12)]),
        "{f:?}"
    );
}
