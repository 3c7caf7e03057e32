//! Twelve referee benchmarks (divan): listing the legal actions, judging
//! one settled table (a legal action, and an illegal one that must be
//! explained), and refereeing a whole random game.
//!
//! `cargo bench --bench twelve`. Positions come from seeded random legal
//! games, stopped where the player to act has the most legal actions: the
//! referee's heaviest position.

use arbiter::games::twelve::{Options, SIDES, Twelve};
use arbiter::games::{Game, Verdict};
use arbiter::referee::Referee;
use arbiter::table::{Card, Cell, Piece, Table, Token};
use arbiter_testkit::games::twelve::random::{busiest_position, random_game};
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

fn midgame() -> Twelve {
    busiest_position(3, Options::default())
}

#[divan::bench]
fn legal_actions(b: Bencher) {
    let g = midgame();
    b.bench(|| black_box(&g).legal_actions().len());
}

/// Whether the player to act can act at all: what every turn's end asks
/// (TW-3.2).
#[divan::bench]
fn has_legal_action(b: Bencher) {
    let g = midgame();
    b.bench(|| black_box(&g).has_legal_action());
}

/// Judging the table a legal move leaves (the common case).
#[divan::bench]
fn judge_legal_move(b: Bencher) {
    let g = midgame();
    let action = *g
        .legal_actions()
        .iter()
        .rev()
        .find(|a| matches!(a, arbiter::games::twelve::Action::Move { .. }))
        .expect("a move");
    let table = g.apply(action).0.table();
    let changes = g.table().diff(&table, Cell::default());
    b.bench(|| match black_box(&g).judge(black_box(&changes)) {
        Verdict::Advance { .. } => 1,
        _ => panic!("a legal action"),
    });
}

/// Judging a Pawn placement no rule allows (touching no piece of its
/// colour): the attempt is found and checked, then every placement cell is
/// tried with an entry step before the placement is explained, the
/// costliest path there is.
#[divan::bench]
fn judge_illegal_placement(b: Bencher) {
    // The busiest position of a game where the mover still holds a Pawn.
    let g = (0..100)
        .map(|seed| busiest_position(seed, Options::default()))
        .find(|g| g.supply(g.to_move()).contains(&Piece::Pawn))
        .expect("a Pawn in hand");
    let side = g.to_move();
    let pos = g.position();
    let (lo, hi) = pos.bbox().expect("pieces in play");
    let cell = (lo.row - 1..=hi.row + 1)
        .flat_map(|r| (lo.col - 1..=hi.col + 1).map(move |c| Cell::new(c, r)))
        .find(|&c| {
            pos.at(c).is_none() && pos.side_in_play(side).all(|(_, o)| o.king_distance(c) > 2)
        })
        .expect("a cell away from the mover's pieces");
    let mut table: Table = g.table();
    table.set(cell, Some(Token::Up(Card::new(SIDES[side], Piece::Pawn))));
    let changes = g.table().diff(&table, Cell::default());
    b.bench(|| match black_box(&g).judge(black_box(&changes)) {
        Verdict::Flag(_) => 1,
        _ => panic!("an illegal placement"),
    });
}

/// A whole random game through the referee, every table: the longest of
/// the first fifty seeds.
#[divan::bench]
fn referee_random_game(b: Bencher) {
    let g = (0..50)
        .map(|seed| random_game(seed, Options::default(), 200))
        .max_by_key(|g| g.steps.len())
        .expect("fifty games");
    let obs = g.observations();
    b.counter(divan::counter::ItemsCount::new(obs.len()))
        .bench(|| {
            let mut r = Referee::new(Twelve::new(g.opts));
            for (i, o) in obs.iter().enumerate() {
                black_box(r.observe(i, o));
            }
            r.finish(obs.len());
            r.game().outcome().is_some()
        });
}

/// The generator's own step, for comparison: applying a known action and
/// ending the turn (victory, Queen removal, the next player's pass check).
#[divan::bench]
fn apply_action(b: Bencher) {
    let g = midgame();
    let action = g.legal_actions()[0];
    b.bench(|| black_box(&g).apply(black_box(action)).1.len());
}
