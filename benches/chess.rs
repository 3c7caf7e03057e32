//! Chess core benchmarks (divan): perft from the standard test positions,
//! for arbiter's [`Position::perft`] and, as the yardstick, for cozy-chess
//! (a fast legal-move generator) counted the same way: legal moves only,
//! the last ply counted in bulk without making its moves.
//!
//! `cargo bench --bench chess`. Both engines run the same cases, so one run
//! shows the ratio; the throughput column is perft nodes per second.

use std::fmt;

use arbiter::games::doublecross::chess::Position;
use divan::counter::ItemsCount;
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

/// One perft run: a named position, a depth, and its published node count
/// (checked once per benchmark, so a fast wrong answer cannot pass).
struct Case {
    name: &'static str,
    fen: &'static str,
    depth: u32,
    nodes: u64,
}

impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.name, self.depth)
    }
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
const POSITION_5: &str = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8";

const CASES: [Case; 6] = [
    Case {
        name: "start",
        fen: START,
        depth: 4,
        nodes: 197_281,
    },
    Case {
        name: "start",
        fen: START,
        depth: 5,
        nodes: 4_865_609,
    },
    Case {
        name: "kiwipete",
        fen: KIWIPETE,
        depth: 3,
        nodes: 97_862,
    },
    Case {
        name: "kiwipete",
        fen: KIWIPETE,
        depth: 4,
        nodes: 4_085_603,
    },
    Case {
        name: "position5",
        fen: POSITION_5,
        depth: 3,
        nodes: 62_379,
    },
    Case {
        name: "position5",
        fen: POSITION_5,
        depth: 4,
        nodes: 2_103_487,
    },
];

// Runs of depth 5 and 4 take tens of milliseconds; 20 samples of one run
// each keep the whole suite to well under a minute.
#[divan::bench(args = &CASES, sample_count = 20, sample_size = 1)]
fn arbiter(bencher: Bencher, case: &Case) {
    let pos = Position::from_fen(case.fen).unwrap();
    assert_eq!(pos.perft(case.depth), case.nodes, "{case}");
    bencher
        .counter(ItemsCount::new(case.nodes))
        .bench(|| black_box(&pos).perft(black_box(case.depth)));
}

#[divan::bench(args = &CASES, sample_count = 20, sample_size = 1)]
fn cozy_chess(bencher: Bencher, case: &Case) {
    let board = cozy_chess::Board::from_fen(case.fen, false).unwrap();
    assert_eq!(cozy_perft(&board, case.depth), case.nodes, "{case}");
    bencher
        .counter(ItemsCount::new(case.nodes))
        .bench(|| cozy_perft(black_box(&board), black_box(case.depth)));
}

/// cozy-chess's own perft, as in its examples: `PieceMoves::len` counts the
/// last ply.
fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut nodes = 0;
    if depth == 1 {
        board.generate_moves(|moves| {
            nodes += moves.len() as u64;
            false
        });
    } else {
        board.generate_moves(|moves| {
            for mv in moves {
                let mut child = board.clone();
                child.play_unchecked(mv);
                nodes += cozy_perft(&child, depth - 1);
            }
            false
        });
    }
    nodes
}
