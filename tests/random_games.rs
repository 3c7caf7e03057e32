//! Property tests over random legal En Prise games.
//!
//! - Written out as table scripts, they replay with zero flags and the same
//!   actions, in the board's frame and under random whole-table shifts.
//! - Every listed legal action passes `check`, and the referee reads its
//!   table as exactly that action.
//! - One physical mistake injected (SWAP dropped, FLIP dropped, card out of
//!   order, knight across a gap, placement touching nothing, piece placed
//!   next to an enemy king) is flagged with the right kind and cell, and the
//!   game goes on once the table is mended.

use arbiter::event::ActionKind;
use arbiter::event::{Event, EventBody};
use arbiter::games::Verdict;
use arbiter::games::enprise::EnPrise;
use arbiter::observation::Observation;
use arbiter::referee::Referee;
use arbiter::replay::replay;
use arbiter::script::Script;
use arbiter::table::{Card, Cell, Table};
use arbiter_testkit::Played;
use arbiter_testkit::games::enprise::mistakes::{MISTAKES, check_injection, inject, tables};
use arbiter_testkit::games::enprise::random::random_game;
use proptest::prelude::*;

fn actions_of(events: &[Event]) -> Vec<(usize, String, String, Option<Card>)> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Action(a) if a.action != "pass" => {
                Some((e.step, a.player.clone(), a.action.to_string(), a.card))
            }
            _ => None,
        })
        .collect()
}

fn flags(events: &[Event]) -> Vec<&Event> {
    events
        .iter()
        .filter(|e| matches!(e.body, EventBody::Flag(_)))
        .collect()
}

fn players_for(seed: u64) -> usize {
    2 + (seed % 3) as usize
}

/// Two readings no table can tell apart, written one way: right after X
/// summons his king, "Y passes, then X places a pawn face-down at c" leaves
/// the same table and the same game as "X adds his escape square at c"
/// (the next Battleplan card face-down either way). The referee reads the
/// escape square, as the README says; the generator may have played the
/// other.
fn normalise(events: Vec<EventBody>) -> Vec<EventBody> {
    let mut out: Vec<EventBody> = Vec::with_capacity(events.len());
    let mut i = 0;
    while i < events.len() {
        if let (
            Some(EventBody::Action(summon)),
            EventBody::Action(pass),
            Some(EventBody::Action(down)),
        ) = (out.last(), &events[i], events.get(i + 1))
            && summon.action == ActionKind::SummonKing
            && pass.action == ActionKind::Pass
            && down.action == ActionKind::PlaceVacant
            && down.player == summon.player
        {
            let mut escape = down.clone();
            escape.action = ActionKind::EscapeSquare;
            out.push(EventBody::Action(escape));
            i += 2;
            continue;
        }
        out.push(events[i].clone());
        i += 1;
    }
    out
}

fn check_legal_replay(seed: u64) -> Result<(), String> {
    let game = random_game(seed, players_for(seed), 200);
    let text = game.script();
    let script = Script::parse("random.toml", &text).expect("a generated script loads");
    let events = replay(&script).expect("a generated script starts");
    if !flags(&events).is_empty() {
        return Err(format!("seed {seed}: {:?}\n{text}", flags(&events)));
    }
    let want = normalise(game.turns.iter().flat_map(|t| t.events.clone()).collect());
    let got = normalise(events.iter().skip(1).map(|e| e.body.clone()).collect());
    if got != want {
        let at = got.iter().zip(&want).take_while(|(g, w)| g == w).count();
        return Err(format!(
            "seed {seed}: event {at} differs: got {:?}, want {:?}",
            got.get(at),
            want.get(at)
        ));
    }
    Ok(())
}

/// Seeds the property found; kept so they stay fixed.
const LEGAL_FOUND: [u64; 2] = [
    // Black passed right after White's summon; White's face-down pawn reads
    // as White's escape square.
    12553497139297686990,
    // Four players: after White's summon, Black's face-down pawn opens a
    // line that mates Red, whose cards are turned with the next action.
    // The reading "White's escape square" must not be the only one taken.
    9416,
];

#[test]
fn legal_game_regressions() {
    for seed in LEGAL_FOUND {
        check_legal_replay(seed).unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// A random legal game, written as a script, replays with no flag, the
    /// same actions at the same cells, and the same checks and ending.
    #[test]
    fn legal_games_replay_with_zero_flags(seed in any::<u64>()) {
        let r = check_legal_replay(seed);
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }

    /// The same game with every observation shifted by a random offset (the
    /// camera moved) replays with no flag and the same actions.
    #[test]
    fn shifted_observations_change_nothing(seed in any::<u64>(), shifts in prop::collection::vec((-3i32..=3, -3i32..=3), 200)) {
        let game = random_game(seed, players_for(seed), 120);
        let mut referee = Referee::new(EnPrise::new(&game.players, game.plans.clone(), Default::default()));
        let mut events = Vec::new();
        let all: Vec<&Table> = game.turns.iter().flat_map(tables).collect();
        for (i, table) in all.iter().enumerate() {
            let (dc, dr) = shifts[i % shifts.len()];
            events.extend(referee.observe(i, &Observation::Table(table.shifted(Cell::new(dc, dr)))));
        }
        events.extend(referee.finish(all.len()));
        prop_assert!(flags(&events).is_empty(), "seed {seed}: {:?}", flags(&events));
        let want: Vec<(String, String)> = game.turns.iter().map(|t| (t.action.player().name().to_string(), t.action.name().to_string())).collect();
        let got: Vec<(String, String)> = actions_of(&events).into_iter().map(|(_, p, a, _)| (p, a)).collect();
        prop_assert_eq!(got, want);
    }

    /// Legal actions are legal: `check` accepts every listed action, and the
    /// referee recognises each one's table as that very action.
    #[test]
    fn legals_are_legal_and_recognised(seed in any::<u64>()) {
        let game = random_game(seed, players_for(seed), 150);
        for t in game.turns.iter().step_by(7) {
            let before = &t.before;
            for a in before.legal_actions() {
                prop_assert_eq!(before.check(a), Ok(()), "seed {}: {} listed but refused", seed, a);
            }
            // The chosen action's table is read as that action.
            let applied = before.apply(t.action);
            let changes = before.table().diff(&applied.state.table(), Cell::default());
            let first_action = |events: &[EventBody]| {
                events.iter().find(|e| matches!(e, EventBody::Action(a) if a.action != "pass")).cloned()
            };
            let want = Some(t.action.event());
            match arbiter::games::Game::judge(before, &changes) {
                Verdict::Advance { events, .. } => prop_assert_eq!(first_action(&events), want),
                // An escape square that could also be the next player's
                // face-down pawn: one of the readings is the action.
                Verdict::Ambiguous(readings) => {
                    prop_assert!(readings.len() >= 2);
                    prop_assert!(readings.iter().any(|r| first_action(&r.events) == want));
                }
                Verdict::Flag(f) => prop_assert!(false, "seed {seed}: {} flagged: {f:?}", t.action),
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// Each injected mistake is flagged with the right kind and cell; once the
    /// table shows the right position the flag clears, the action is
    /// recognised, and the rest of the game replays with no further flag.
    #[test]
    fn injected_mistakes_are_flagged_and_recover(seed in any::<u64>(), which in 0usize..6, pick in any::<usize>()) {
        let game = random_game(seed, players_for(seed), 200);
        // Try the chosen mistake first, then the others, so each case injects one.
        let found = (0..MISTAKES.len()).map(|k| MISTAKES[(which + k) % MISTAKES.len()]).find_map(|m| inject(&game, m, pick).map(|inj| (m, inj)));
        if let Some((mistake, inj)) = found {
            let r = check_injection(&game, mistake, &inj, pick % 2 == 1);
            prop_assert!(r.is_ok(), "{}", r.unwrap_err());
        }
    }
}

/// Every kind of mistake, injected into many games at several points: the
/// counts are printed for the record and each kind must really occur.
#[test]
fn every_kind_of_mistake_is_caught_across_many_games() {
    let mut counts = [0usize; MISTAKES.len()];
    let mut games = 0;
    for seed in 0..120u64 {
        let game = random_game(seed ^ 0x5eed, players_for(seed), 200);
        games += 1;
        for (k, &m) in MISTAKES.iter().enumerate() {
            for pick in [0, 37, 101] {
                if let Some(inj) = inject(&game, m, pick.min(game.turns.len().saturating_sub(1))) {
                    if let Err(e) = check_injection(&game, m, &inj, pick == 37) {
                        panic!("{e}");
                    }
                    counts[k] += 1;
                }
            }
        }
    }
    println!(
        "{games} games; injected and caught: {:?}",
        MISTAKES.iter().zip(counts).collect::<Vec<_>>()
    );
    for (m, n) in MISTAKES.iter().zip(counts) {
        assert!(n >= 20, "{m:?} was injected only {n} times");
    }
}

/// Cases the property tests once found, kept so they stay fixed: (seed,
/// which, pick) as proptest reported them.
const FOUND: [(u64, usize, usize); 1] = [
    // A face-down escape square still open when a far-off card was taken
    // back and the placement mended.
    (1345596371571642677, 4, 1125990458644142023),
];

#[test]
fn injected_mistake_regressions() {
    for &(seed, which, pick) in &FOUND {
        let game = random_game(seed, players_for(seed), 200);
        let found = (0..MISTAKES.len())
            .map(|k| MISTAKES[(which + k) % MISTAKES.len()])
            .find_map(|m| inject(&game, m, pick).map(|inj| (m, inj)));
        let (mistake, inj) = found.expect("the case still injects a mistake");
        if let Err(e) = check_injection(&game, mistake, &inj, pick % 2 == 1) {
            panic!("{e}");
        }
    }
}

/// Before every table of a game, each card the table moves or turns lifted
/// off alone: a hand at work, so no flag, and never a panic. Seed 3989
/// (four players) once panicked: a lifted card's table read as a move
/// from a cell whose card an elimination had just turned face-down.
#[test]
fn every_card_lifted_on_its_way_is_no_flag() {
    for (seed, players) in [(3989, 4), (7, 2), (11, 3), (12, 4)] {
        let game = random_game(seed, players, 200);
        let mut referee = Referee::new(EnPrise::new(
            &game.players,
            game.plans.clone(),
            Default::default(),
        ));
        let mut step = 0;
        for table in game.turns.iter().flat_map(tables) {
            let expected = referee.expected_table().clone();
            let leaving: Vec<Cell> = expected
                .iter()
                .filter(|&(c, t)| table.get(c).is_some_and(|now| now != t))
                .map(|(c, _)| c)
                .collect();
            for c in leaving {
                let mut lifted = expected.clone();
                lifted.set(c, None);
                let ev = referee.observe(step, &Observation::Table(lifted));
                step += 1;
                assert!(ev.is_empty(), "seed {seed}: {c} lifted: {ev:?}");
            }
            let ev = referee.observe(step, &Observation::Table(table.clone()));
            step += 1;
            assert!(flags(&ev).is_empty(), "seed {seed}: {ev:?}");
        }
    }
}
