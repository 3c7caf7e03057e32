//! Enochian Chess referee benchmarks (divan): legal-move generation for
//! one army, judging one settled table (a legal move, and an illegal one
//! that must be explained), and refereeing a whole random game.
//!
//! `cargo bench --bench enochian`. Positions come from seeded random legal
//! games, stopped where the acting army has the most legal moves.

use arbiter::games::enochian::{Enochian, Options, cell_of};
use arbiter::games::{Game, Verdict};
use arbiter::referee::Referee;
use arbiter::table::{Cell, Piece, Token};
use arbiter_testkit::games::enochian::random::{busiest_position, random_game};
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

fn midgame() -> Enochian {
    busiest_position(3, Options::default())
}

#[divan::bench]
fn legal_moves(b: Bencher) {
    let g = midgame();
    b.bench(|| black_box(&g).legal_moves().len());
}

/// Judging the table a legal move leaves (the common case).
#[divan::bench]
fn judge_legal_move(b: Bencher) {
    let g = midgame();
    let m = *g.legal_moves().last().expect("a move");
    let table = g.play(m).0.settled().table();
    let changes = g.table().diff(&table, Cell::default());
    b.bench(|| match black_box(&g).judge(black_box(&changes)) {
        Verdict::Advance { .. } => 1,
        _ => panic!("a legal move"),
    });
}

/// Judging a rook (or other slider) sent where it cannot go: every legal
/// move is tried, then the attempt is explained.
#[divan::bench]
fn judge_illegal_move(b: Bencher) {
    let g = midgame();
    let p = g.position();
    let a = g.acting();
    let (from, u) = p
        .all_units()
        .find(|(_, u)| u.army == a && u.kind != Piece::King)
        .expect("a piece");
    let moves = g.legal_moves();
    let to = (0..64u8)
        .find(|&t| p.token(t).is_none() && !moves.iter().any(|m| m.from == from && m.to == t))
        .expect("an empty square it cannot reach");
    let mut table = g.table();
    table.set(cell_of(from), None);
    table.set(cell_of(to), Some(Token::Up(u.card())));
    let changes = g.table().diff(&table, Cell::default());
    b.bench(|| match black_box(&g).judge(black_box(&changes)) {
        Verdict::Flag(_) => 1,
        _ => panic!("an illegal move"),
    });
}

/// A whole random game through the referee, every observation: the
/// longest of the first twenty seeds.
#[divan::bench]
fn referee_random_game(b: Bencher) {
    let g = (0..20)
        .map(|seed| random_game(seed, Options::default(), 300))
        .max_by_key(|g| g.steps.len())
        .expect("twenty games");
    let obs = g.observations();
    b.counter(divan::counter::ItemsCount::new(obs.len()))
        .bench(|| {
            let mut r = Referee::new(Enochian::new(g.opts));
            for (i, o) in obs.iter().enumerate() {
                black_box(r.observe(i, o));
            }
            r.finish(obs.len());
            r.game().is_over()
        });
}

/// The generator's own step: playing a known move with all its effects
/// and the next army's turn start.
#[divan::bench]
fn play_move(b: Bencher) {
    let g = midgame();
    let m = g.legal_moves()[0];
    b.bench(|| black_box(&g).play(black_box(m)).1.len());
}
