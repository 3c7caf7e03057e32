//! The chess core's standard mode against the published perft counts
//! (chessprogramming.org "Perft Results"), and its legal moves, SAN and
//! `play` against cozy-chess on positions reached by random play.

use std::collections::BTreeSet;

use arbiter::games::doublecross::chess::{Move, Position};
use cozy_chess::util::{display_san_move, display_uci_move, parse_uci_move};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
const POSITION_3: &str = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";
const POSITION_4: &str = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
const POSITION_4_MIRRORED: &str =
    "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1";
const POSITION_5: &str = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8";
const POSITION_6: &str = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10";

/// Also a few positions with en passant and promotion subtleties, to make
/// the random playouts below visit them.
const EXTRA: [&str; 3] = [
    // En passant that would expose the king along the rank.
    "8/8/8/K2pP2q/8/8/8/7k w - d6 0 1",
    // Promotions with captures, and a pinned pawn.
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    // Checks by a pawn that can be taken en passant.
    "8/8/3k4/8/2pP4/8/8/4K3 b - d3 0 1",
];

fn check(fen: &str, counts: &[u64]) {
    let pos = Position::from_fen(fen).unwrap();
    for (i, &want) in counts.iter().enumerate() {
        let depth = i as u32 + 1;
        assert_eq!(pos.perft(depth), want, "perft({depth}) of {fen}");
    }
}

#[test]
fn perft_start() {
    check(START, &[20, 400, 8902, 197_281, 4_865_609]);
}

#[test]
fn perft_kiwipete() {
    check(KIWIPETE, &[48, 2039, 97_862, 4_085_603]);
}

#[test]
fn perft_position_3() {
    check(POSITION_3, &[14, 191, 2812, 43_238, 674_624]);
}

#[test]
fn perft_position_4() {
    check(POSITION_4, &[6, 264, 9467, 422_333]);
    check(POSITION_4_MIRRORED, &[6, 264, 9467, 422_333]);
}

#[test]
fn perft_position_5() {
    check(POSITION_5, &[44, 1486, 62_379, 2_103_487]);
}

#[test]
fn perft_position_6() {
    check(POSITION_6, &[46, 2079, 89_890, 3_894_594]);
}

/// Depth 1 counts the last ply from bitboards; it must agree with the moves
/// `legal_moves` lists.
#[test]
fn perft_1_is_the_number_of_legal_moves() {
    for fen in [
        START, KIWIPETE, POSITION_3, POSITION_4, POSITION_5, POSITION_6,
    ]
    .into_iter()
    .chain(EXTRA)
    {
        let pos = Position::from_fen(fen).unwrap();
        assert_eq!(pos.perft(1), pos.legal_moves().len() as u64, "{fen}");
    }
}

/// The first three FEN fields, which both libraries write alike (cozy-chess
/// writes an en-passant square only when a capture is possible).
fn fen_prefix(fen: &str) -> String {
    fen.split(' ').take(3).collect::<Vec<_>>().join(" ")
}

/// 200 random games of up to 120 plies from the positions above: at every
/// ply the legal moves, the position after a random one, and (every third
/// ply) the SAN of each move must match cozy-chess.
#[test]
fn random_playouts_match_cozy_chess() {
    let starts: Vec<&str> = [
        START, KIWIPETE, POSITION_3, POSITION_4, POSITION_5, POSITION_6,
    ]
    .into_iter()
    .chain(EXTRA)
    .collect();
    let mut rng = StdRng::seed_from_u64(7);
    let mut positions = 0;
    for game in 0..200 {
        let fen = starts[game % starts.len()];
        let mut pos = Position::from_fen(fen).unwrap();
        let mut board = cozy_chess::Board::from_fen(fen, false).unwrap();
        for _ in 0..120 {
            positions += 1;
            let ours = pos.legal_moves();
            let mut theirs = Vec::new();
            board.generate_moves(|moves| {
                theirs.extend(moves);
                false
            });
            let our_uci: BTreeSet<String> = ours.iter().map(|m| m.uci()).collect();
            let their_uci: BTreeSet<String> = theirs
                .iter()
                .map(|&m| display_uci_move(&board, m).to_string())
                .collect();
            assert_eq!(
                our_uci.len(),
                ours.len(),
                "duplicate moves in {}",
                pos.fen()
            );
            assert_eq!(our_uci, their_uci, "legal moves of {}", pos.fen());
            assert_eq!(
                fen_prefix(&pos.fen()),
                fen_prefix(&board.to_string()),
                "positions diverged"
            );
            assert_eq!(
                pos.is_check(),
                !board.checkers().is_empty(),
                "{}",
                pos.fen()
            );
            if ours.is_empty() {
                break;
            }
            // SAN costs two move generations per move: every third
            // position is plenty.
            for &mv in ours.iter().filter(|_| positions % 3 == 0) {
                let cozy = parse_uci_move(&board, &mv.uci()).unwrap();
                assert_eq!(
                    pos.san_standard(mv),
                    display_san_move(&board, cozy).to_string(),
                    "SAN of {} in {}",
                    mv.uci(),
                    pos.fen()
                );
            }
            let mv: Move = ours[rng.random_range(0..ours.len())];
            board.play(parse_uci_move(&board, &mv.uci()).unwrap());
            pos.play(mv);
        }
    }
    assert!(positions > 10_000, "only {positions} positions visited");
}
