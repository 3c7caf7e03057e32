//! En Prise benchmarks (divan): legal-action generation, judging one settled
//! observation, and replaying a whole game script.
//!
//! `cargo bench --bench enprise`. Boards come from random games
//! (`position_with_cards`): about 30 cards with 2 players and about 60 with
//! 4 (two players hold 32 cards at most, three 48, so 60 needs four).
//! Target: judging one observation of a 60-card board in under 50 µs.

use arbiter::event::EventBody;
use arbiter::games::enprise::{Action, EnPrise};
use arbiter::observation::Observation;
use arbiter::referee::Referee;
use arbiter::replay::replay;
use arbiter::script::Script;
use arbiter::table::{Cell, Table};
use arbiter_testkit::Played;
use arbiter_testkit::games::enprise::random::{position_with_cards, random_game};
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

/// Board sizes benchmarked, in cards.
const CARDS: [usize; 2] = [30, 60];

/// A mid-game position with `cards` cards: 2 players for 30, 4 for 60. The
/// seeds are picked so that the player to act has many legal actions, both
/// moves and placements (2 players, seed 5: 119 actions; 4 players, seed 80:
/// 131); the first seeds reach these counts with only a few king moves left.
fn position(cards: usize) -> EnPrise {
    let (seed, players) = if cards <= 30 { (5, 2) } else { (80, 4) };
    let state =
        position_with_cards(seed, players, cards).expect("a random game reaches that many cards");
    assert!(state.card_count() >= cards && state.outcome().is_none());
    state
}

/// The kind of action whose resulting table is judged.
#[derive(Clone, Copy)]
enum Kind {
    /// A piece moves (or captures): two cells change.
    Move,
    /// The next Battleplan card is put down: one cell changes.
    Place,
}

/// The first listed legal action of `kind` in `state`, with the table it
/// leaves.
fn action_table(state: &EnPrise, kind: Kind) -> (Action, Table) {
    let actions = state.legal_actions();
    let action = actions
        .iter()
        .copied()
        .find(|a| match kind {
            Kind::Move => matches!(a, Action::Move { .. }),
            Kind::Place => matches!(a, Action::Place { .. }),
        })
        .expect("the position offers both moves and placements");
    (action, state.apply(action).state.table())
}

/// A whole-table shift: the cloth or the camera moved.
const SHIFT: Cell = Cell::new(7, -3);

/// Times `Referee::observe` of the table `kind` leaves (shifted by `shift`),
/// on a fresh referee per iteration (built outside the timing).
fn judge(bencher: Bencher, cards: usize, kind: Kind, shift: Cell) {
    let state = position(cards);
    let (action, table) = action_table(&state, kind);
    let obs = Observation::Table(table.shifted(shift));
    // The referee must read the observation as the action, not flag it.
    let events = Referee::new(state.clone()).observe(1, &obs);
    assert!(
        events
            .iter()
            .any(|e| matches!(&e.body, EventBody::Action(a) if a.action == action.name())),
        "{action} not read back: {events:?}"
    );
    bencher
        .with_inputs(|| Referee::new(state.clone()))
        .bench_local_refs(|referee| referee.observe(1, black_box(&obs)));
}

#[divan::bench(args = CARDS)]
fn legal_actions(bencher: Bencher, cards: usize) {
    let state = position(cards);
    bencher.bench_local(|| black_box(&state).legal_actions());
}

#[divan::bench(args = CARDS)]
fn judge_move(bencher: Bencher, cards: usize) {
    judge(bencher, cards, Kind::Move, Cell::default());
}

#[divan::bench(args = CARDS)]
fn judge_move_shifted(bencher: Bencher, cards: usize) {
    judge(bencher, cards, Kind::Move, SHIFT);
}

#[divan::bench(args = CARDS)]
fn judge_place(bencher: Bencher, cards: usize) {
    judge(bencher, cards, Kind::Place, Cell::default());
}

#[divan::bench(args = CARDS)]
fn judge_place_shifted(bencher: Bencher, cards: usize) {
    judge(bencher, cards, Kind::Place, SHIFT);
}

/// The slow path: a move shown with its SWAP missed, which the referee must
/// tell from every legal reading under every candidate shift before flagging.
#[divan::bench(args = CARDS)]
fn judge_missed_swap(bencher: Bencher, cards: usize) {
    let state = position(cards);
    let (action, _) = action_table(&state, Kind::Move);
    let Action::Move { card, from, to, .. } = action else {
        unreachable!()
    };
    let mut table = state.table();
    table.set(from, None);
    table.set(to, Some(arbiter::table::Token::Up(card)));
    let obs = Observation::Table(table.shifted(SHIFT));
    let events = Referee::new(state.clone()).observe(1, &obs);
    assert!(
        events
            .iter()
            .any(|e| matches!(&e.body, EventBody::Flag(f) if f.kind.as_str() == "missed_swap")),
        "{events:?}"
    );
    bencher
        .with_inputs(|| Referee::new(state.clone()))
        .bench_local_refs(|referee| referee.observe(1, black_box(&obs)));
}

/// The slowest path: cards swapped at random places, which nothing explains.
#[divan::bench(args = CARDS)]
fn judge_unexplained(bencher: Bencher, cards: usize) {
    let state = position(cards);
    let mut table = state.table();
    let cells: Vec<Cell> = table.iter().map(|(c, _)| c).collect();
    let (a, b) = (cells[1], cells[cells.len() - 2]);
    let (ta, tb) = (table.get(a), table.get(b));
    table.set(a, None);
    table.set(b, ta);
    table.set(cells[cells.len() / 2], tb);
    let obs = Observation::Table(table);
    let events = Referee::new(state.clone()).observe(1, &obs);
    assert!(
        events.iter().any(|e| matches!(&e.body, EventBody::Flag(_))),
        "{events:?}"
    );
    bencher
        .with_inputs(|| Referee::new(state.clone()))
        .bench_local_refs(|referee| referee.observe(1, black_box(&obs)));
}

/// A seed whose 2-player random game lasts the full 200 turns.
const REPLAY_SEED: u64 = 0;
const REPLAY_TURNS: usize = 200;

fn replay_script() -> Script {
    let game = random_game(REPLAY_SEED, 2, REPLAY_TURNS);
    assert_eq!(
        game.turns.len(),
        REPLAY_TURNS,
        "seed {REPLAY_SEED} ends early"
    );
    Script::parse("random.toml", &game.script()).expect("a random game's script loads")
}

/// Replaying a whole 200-turn game (script parsed outside the timing).
#[divan::bench]
fn replay_200_turns(bencher: Bencher) {
    let script = replay_script();
    bencher.bench_local(|| replay(black_box(&script)).expect("replays"));
}

/// Parsing the same 200-step script, for comparison.
#[divan::bench]
fn parse_200_turns(bencher: Bencher) {
    let text = random_game(REPLAY_SEED, 2, REPLAY_TURNS).script();
    bencher.bench_local(|| Script::parse("random.toml", black_box(&text)).expect("loads"));
}
