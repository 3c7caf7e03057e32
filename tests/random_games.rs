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

use arbiter::event::{Event, EventBody};
use arbiter::games::Verdict;
use arbiter::games::enprise::random::{RandomGame, Turn, random_game};
use arbiter::games::enprise::{Action, EnPrise, Sq};
use arbiter::observation::Observation;
use arbiter::referee::Referee;
use arbiter::replay::replay;
use arbiter::script::Script;
use arbiter::table::{Card, Cell, Piece, Table, Token};
use proptest::prelude::*;

fn actions_of(events: &[Event]) -> Vec<(usize, String, String, Option<Card>)> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Action(a) if a.action != "pass" => {
                Some((e.step, a.player.clone(), a.action.clone(), a.card))
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

/// The tables a turn leaves: its action's, and the mated player's cards
/// turned in a table of their own when they were.
fn tables(t: &Turn) -> impl Iterator<Item = &Table> {
    std::iter::once(&t.table).chain(&t.then)
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
            && summon.action == "summon_king"
            && pass.action == "pass"
            && down.action == "place_vacant"
            && down.player == summon.player
        {
            let mut escape = down.clone();
            escape.action = "escape_square".into();
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
    let text = game.to_script();
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
const LEGAL_FOUND: [u64; 1] = [
    // Black passed right after White's summon; White's face-down pawn reads
    // as White's escape square.
    12553497139297686990,
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

/// The physical mistakes the property test injects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mistake {
    DropSwap,
    DropFlip,
    OutOfOrder,
    KnightAcrossGap,
    TouchingNothing,
    NextToEnemyKing,
}

/// One mistake injected into a game: the wrong table shown instead of the
/// table of turn `at`, and the flag kind and cell it must raise.
struct Injection {
    at: usize,
    wrong: Table,
    kind: &'static str,
    cell: Cell,
}

fn inject(game: &RandomGame, mistake: Mistake, pick: usize) -> Option<Injection> {
    let n = game.turns.len();
    (0..n).map(|k| (k + pick) % n).find_map(|at| {
        let t = &game.turns[at];
        // The mistake is made once any mated player's cards are turned.
        let before = &t.before.with_flips_done();
        let mut wrong = before.table();
        let (kind, cell) = match (mistake, t.action) {
            (
                Mistake::DropSwap,
                Action::Move {
                    card,
                    from,
                    to,
                    captured: None,
                    ..
                },
            ) => {
                wrong.set(from, None);
                wrong.set(to, Some(Token::Up(card)));
                ("missed_swap", from)
            }
            (
                Mistake::DropFlip,
                Action::Move {
                    card,
                    from,
                    to,
                    captured: Some(c),
                    ..
                },
            ) => {
                wrong.set(from, Some(Token::Up(c)));
                wrong.set(to, Some(Token::Up(card)));
                ("missed_flip", from)
            }
            (
                Mistake::OutOfOrder,
                Action::Place {
                    card,
                    to,
                    down: false,
                    ..
                },
            ) => {
                let other = [
                    Piece::Queen,
                    Piece::Rook,
                    Piece::Bishop,
                    Piece::Knight,
                    Piece::Pawn,
                ]
                .into_iter()
                .find(|&p| p != card.piece)?;
                wrong.set(to, Some(Token::Up(Card::new(card.colour, other))));
                ("wrong_card", to)
            }
            (Mistake::KnightAcrossGap, _)
                if !before.escape_pending() && !before.must_summon(before.to_move()) =>
            {
                let (from, to, card) = knight_across_gap(before)?;
                wrong.set(from, Some(Token::Down));
                wrong.set(to, Some(Token::Up(card)));
                ("illegal_move", from)
            }
            (Mistake::TouchingNothing, Action::Place { card, down, .. })
                if !before.escape_pending() && before.card_count() > 0 =>
            {
                let (lo, _) = wrong.bounds()?;
                let far = lo.offset(-3, -3);
                wrong.set(far, Some(if down { Token::Down } else { Token::Up(card) }));
                ("illegal_placement", far)
            }
            (
                Mistake::NextToEnemyKing,
                Action::Place {
                    card, down: false, ..
                },
            ) if !before.escape_pending() => {
                let cell = beside_enemy_king(before, card)?;
                wrong.set(cell, Some(Token::Up(card)));
                ("illegal_placement", cell)
            }
            _ => return None,
        };
        Some(Injection {
            at,
            wrong,
            kind,
            cell,
        })
    })
}

/// A knight of the player to move with a leap to an existing square whose
/// two L routes both have a gap.
fn knight_across_gap(g: &EnPrise) -> Option<(Cell, Cell, Card)> {
    let me = g.to_move();
    let table = g.table();
    for (from, tok) in table.iter() {
        let Token::Up(card) = tok else { continue };
        if card.colour != me || card.piece != Piece::Knight {
            continue;
        }
        for (dc, dr) in arbiter::games::board::KNIGHT_LEAPS {
            let to = from.offset(dc, dr);
            let dest_ok = match g.at(to) {
                Sq::Vacant => true,
                Sq::Piece(c) => c.colour != me && c.piece != Piece::King,
                Sq::Empty => false,
            };
            let routes = arbiter::games::board::knight_routes((dc, dr));
            let broken = routes
                .iter()
                .all(|r| r.iter().any(|&(c, rr)| !g.at(from.offset(c, rr)).exists()));
            if dest_ok && broken {
                return Some((from, to, card));
            }
        }
    }
    None
}

/// An empty or vacant cell touching an opponent's king where `card` would
/// otherwise be a fine placement (touching the board, not covering a piece).
fn beside_enemy_king(g: &EnPrise, card: Card) -> Option<Cell> {
    g.player_colours()
        .iter()
        .filter(|&&c| c != card.colour)
        .find_map(|&c| {
            let k = g.king_cell(c)?;
            arbiter::games::board::DIRECTIONS
                .iter()
                .map(|&(dc, dr)| k.offset(dc, dr))
                .find(|&cell| !matches!(g.at(cell), Sq::Piece(_)))
        })
}

const MISTAKES: [Mistake; 6] = [
    Mistake::DropSwap,
    Mistake::DropFlip,
    Mistake::OutOfOrder,
    Mistake::KnightAcrossGap,
    Mistake::TouchingNothing,
    Mistake::NextToEnemyKing,
];

/// Plays `game` through a referee with `inj` shown in place of turn
/// `inj.at`, then the mended table, then the rest of the game.
/// With `take_back`, the players first restore the table as it was before
/// the mistake (the flag clears as taken back), then make the action properly.
fn check_injection(
    game: &RandomGame,
    mistake: Mistake,
    inj: &Injection,
    take_back: bool,
) -> Result<(), String> {
    let mut referee = Referee::new(EnPrise::new(
        &game.players,
        game.plans.clone(),
        Default::default(),
    ));
    let mut step = 0;
    let mut observe = |table: &Table| {
        let ev = referee.observe(step, &Observation::Table(table.clone()));
        step += 1;
        ev
    };
    let seed = game.seed;
    for table in game.turns[..inj.at].iter().flat_map(tables) {
        if !flags(&observe(table)).is_empty() {
            return Err(format!("seed {seed}: flag before the mistake"));
        }
    }
    let ev = observe(&inj.wrong);
    let fl = flags(&ev);
    let [flag] = fl.as_slice() else {
        return Err(format!(
            "seed {seed} {mistake:?}: expected one flag, got {ev:?}"
        ));
    };
    let EventBody::Flag(f) = &flag.body else {
        unreachable!()
    };
    if f.kind.as_str() != inj.kind || !f.cells.contains(&inj.cell) {
        return Err(format!(
            "seed {seed} {mistake:?} at turn {}: expected {} at {:?}, got {f:?}",
            inj.at, inj.kind, inj.cell
        ));
    }
    if take_back {
        let ev = observe(&game.turns[inj.at].before.table());
        let cleared = ev.iter().any(|e| {
            matches!(
                &e.body,
                EventBody::Cleared {
                    how: arbiter::event::How::TakenBack,
                    ..
                }
            )
        });
        if !cleared || ev.len() != 1 {
            return Err(format!(
                "seed {seed} {mistake:?}: takeback not recognised: {ev:?}"
            ));
        }
    }
    let ev = observe(&game.turns[inj.at].table);
    let cleared = ev
        .iter()
        .any(|e| matches!(&e.body, EventBody::Cleared { .. }));
    // Once taken back there is nothing left to clear.
    if cleared == take_back || !flags(&ev).is_empty() {
        return Err(format!(
            "seed {seed} {mistake:?}: mending did not clear: {ev:?}"
        ));
    }
    // The mended action (after any reading left open from the turn before).
    let want = game.turns[inj.at].events.iter().find_map(|e| match e {
        EventBody::Action(a) => Some(a.clone()),
        _ => None,
    });
    let has_want = |ev: &[arbiter::event::Event]| {
        ev.iter()
            .any(|e| matches!(&e.body, EventBody::Action(a) if Some(a) == want.as_ref()))
    };
    // A face-down card left open from the turn before (escape square or
    // the next player's pawn) may still be open after the mend: then the
    // action is announced with the reading, once a later turn decides it.
    let mut seen = ev.clone();
    let mut next = inj.at + 1;
    if let Some(table) = &game.turns[inj.at].then {
        seen.extend(observe(table));
    }
    while !has_want(&seen) && next < game.turns.len() && next <= inj.at + 3 {
        let ev: Vec<_> = tables(&game.turns[next]).flat_map(&mut observe).collect();
        if !flags(&ev).is_empty() {
            return Err(format!(
                "seed {seed} {mistake:?}: flag after mending: {ev:?}"
            ));
        }
        seen.extend(ev);
        next += 1;
    }
    if !has_want(&seen) {
        return Err(format!(
            "seed {seed} {mistake:?}: mended as {seen:?}, not {want:?}"
        ));
    }
    for table in game.turns[next..].iter().flat_map(tables) {
        if !flags(&observe(table)).is_empty() {
            return Err(format!("seed {seed} {mistake:?}: flag after mending"));
        }
    }
    Ok(())
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
        let found = (0..6).map(|k| MISTAKES[(which + k) % 6]).find_map(|m| inject(&game, m, pick).map(|inj| (m, inj)));
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
    let mut counts = [0usize; 6];
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
        let found = (0..6)
            .map(|k| MISTAKES[(which + k) % 6])
            .find_map(|m| inject(&game, m, pick).map(|inj| (m, inj)));
        let (mistake, inj) = found.expect("the case still injects a mistake");
        if let Err(e) = check_injection(&game, mistake, &inj, pick % 2 == 1) {
            panic!("{e}");
        }
    }
}
