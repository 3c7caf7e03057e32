//! DoubleCross referee benchmarks (divan): listing a drawn card's legal
//! actions, judging one settled board (a legal move, an illegal one that
//! must be explained), and refereeing a whole random game.
//!
//! `cargo bench --bench doublecross`. Positions come from random legal
//! games (seeded), stopped at a turn where a Wild Move (every piece of both
//! colours may move) is in hand: the largest action lists the game has.

use arbiter::games::Game;
use arbiter::games::doublecross::chess::{MoveKind, Side};
use arbiter::games::doublecross::deck::{DcCard, Joust, JoustMode};
use arbiter::games::doublecross::{Action, DoubleCross, Options, table_of};
use arbiter::observation::Observation;
use arbiter::referee::Referee;
use arbiter::table::Cell;
use arbiter_testkit::games::doublecross::random::{RandomGame, random_game};
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

fn long_game() -> RandomGame {
    let opts = Options {
        joust: JoustMode::Recycle,
        ..Options::default()
    };
    random_game(7, opts, 200)
}

/// The state of a seeded game with the most actions in hand (often a Wild
/// Move: every piece of both colours may move), the referee's worst case.
fn midgame() -> DoubleCross {
    let g = long_game();
    g.steps
        .iter()
        .filter_map(|s| {
            s.before
                .card_to_act()
                .map(|c| (s.before.options(c).len(), s))
        })
        .max_by_key(|(n, _)| *n)
        .map(|(_, s)| s.before.clone())
        .expect("a long game")
}

#[divan::bench]
fn options_wild_move(b: Bencher) {
    let g = midgame();
    let card = DcCard::Joust(Joust::WildMove);
    b.bench(|| black_box(g.options(black_box(card))).len());
}

#[divan::bench]
fn options_card_in_hand(b: Bencher) {
    let g = midgame();
    let card = g.card_to_act().unwrap();
    b.bench(|| black_box(g.options(black_box(card))).len());
}

/// Judging the board a legal action leaves (the common case).
#[divan::bench]
fn judge_legal_move(b: Bencher) {
    let g = midgame();
    let card = g.card_to_act().unwrap();
    let actions = g.options(card);
    let action = *actions.last().unwrap();
    let table = table_of(&g.after(action));
    let changes = g.table().diff(&table, Cell::default());
    b.bench(|| match black_box(&g).judge(black_box(&changes)) {
        arbiter::games::Verdict::Advance { .. } => 1,
        _ => panic!("a legal action"),
    });
}

/// Judging a board no action explains: every action's board is compared,
/// partial matches are sought, then the mistake is explained.
#[divan::bench]
fn judge_illegal_move(b: Bencher) {
    let g = midgame();
    let pos = g.position();
    let mut moves = Vec::new();
    for side in [Side::White, Side::Black] {
        pos.gen_moves(side, None, Default::default(), &mut moves);
    }
    let card = g.card_to_act().unwrap();
    let legal: Vec<_> = g
        .options(card)
        .into_iter()
        .map(|a| table_of(&g.after(a)))
        .collect();
    let wrong = moves
        .into_iter()
        .filter(|m| m.kind == MoveKind::Normal)
        .map(|m| {
            let mut p = pos.clone();
            p.play(m);
            table_of(&p)
        })
        .find(|t| !legal.contains(t))
        .expect("a move the card does not allow");
    let changes = g.table().diff(&wrong, Cell::default());
    b.bench(|| match black_box(&g).judge(black_box(&changes)) {
        arbiter::games::Verdict::Flag(_) => 1,
        _ => panic!("an illegal move"),
    });
}

/// A whole game through the referee: every draw, board and call.
#[divan::bench]
fn referee_random_game(b: Bencher) {
    let g = long_game();
    let obs: Vec<Observation> = g.steps.iter().map(|s| s.observation.clone()).collect();
    b.counter(divan::counter::ItemsCount::new(obs.len()))
        .bench(|| {
            let mut r = Referee::new(DoubleCross::new(g.opts.clone()));
            for (i, o) in obs.iter().enumerate() {
                black_box(r.observe(i, o));
            }
            r.game().is_over()
        });
}

/// The generator's own step, for comparison: applying a known action.
#[divan::bench]
fn play_action(b: Bencher) {
    let g = midgame();
    let card = g.card_to_act().unwrap();
    let action: Action = g.options(card)[0];
    b.bench(|| black_box(&g).play(black_box(action)).1.len());
}
