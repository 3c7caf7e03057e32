//! The chess core under DoubleCross: a bitboard position, move generation,
//! `play`, FEN and SAN. In the standard-chess mode ([`Position::legal_moves`])
//! it is ordinary chess and is proven against the published perft counts;
//! DoubleCross builds its pseudo-legal rules ([`Position::gen_moves`] with
//! [`Rules`]) on the same generator.
//!
//! Squares are `0..64`, a1 = 0, b1 = 1, ..., h8 = 63 (file + 8 * rank).
//!
//! # Attack tables
//!
//! Knight, king and pawn attacks are `const` tables computed at compile
//! time. Sliders use "fancy" magic bitboards: for each square, the blockers
//! that matter (the ray squares short of the board edge) are multiplied by a
//! magic number whose top bits index a per-square slice of one shared table.
//! The magic numbers were found offline by the usual random search and are
//! pasted below, so building the tables ([`Tables::build`], behind a
//! `LazyLock`) is a single pass of ray walks (a few milliseconds) with no
//! search; the build checks that no two blocker sets with different attacks
//! share an entry, so a wrong magic fails loudly instead of generating wrong
//! moves. `between` and `line` tables serve check evasion and pins in the
//! legal generator.
//!
//! # Two generators
//!
//! [`Position::gen_moves`] is pseudo-legal, for DoubleCross, where kings can
//! be captured and either side can move. [`Position::legal_moves`] and
//! [`Position::perft`] use a check-mask and pin-mask legal generator (only en
//! passant, rare and hard to reason about with discovered checks along the
//! rank, is verified by playing it), which lets `perft` count the last ply
//! from destination bitboards without making the moves.

use std::sync::LazyLock;

use crate::games::board::{DIRECTIONS, KNIGHT_LEAPS, leaps};
use crate::table::{Cell, Colour, Piece};

pub type Square = u8;

/// The two sides of a chessboard (the *colours* of pieces; in DoubleCross
/// which player controls which side can change).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    White,
    Black,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }
    pub fn index(self) -> usize {
        self as usize
    }
    pub fn colour(self) -> Colour {
        match self {
            Side::White => Colour::White,
            Side::Black => Colour::Black,
        }
    }
    pub fn from_colour(c: Colour) -> Option<Side> {
        match c {
            Colour::White => Some(Side::White),
            Colour::Black => Some(Side::Black),
            _ => None,
        }
    }
}

/// Castling-right bits.
pub const WHITE_KINGSIDE: u8 = 1;
pub const WHITE_QUEENSIDE: u8 = 2;
pub const BLACK_KINGSIDE: u8 = 4;
pub const BLACK_QUEENSIDE: u8 = 8;

/// "e4" for 28.
pub fn square_name(sq: Square) -> String {
    let mut s = String::with_capacity(2);
    s.push(file_char(sq));
    // `sq / 8` is at most 31, so this never overflows even off the board.
    s.push(char::from(b'1' + sq / 8));
    s
}

fn file_char(sq: Square) -> char {
    char::from(b'a' + sq % 8)
}

/// 28 for "e4".
pub fn parse_square(s: &str) -> Option<Square> {
    match s.as_bytes() {
        &[f @ b'a'..=b'h', r @ b'1'..=b'8'] => Some((f - b'a') + 8 * (r - b'1')),
        _ => None,
    }
}

/// The table cell of a square: file a is column 0, rank 8 is row 0.
pub fn cell_of(sq: Square) -> Cell {
    Cell::new(i32::from(sq % 8), 7 - i32::from(sq / 8))
}

/// The square of a table cell, when it lies on the 8x8 board.
pub fn square_of(cell: Cell) -> Option<Square> {
    let on_board = 0..8;
    if on_board.contains(&cell.col) && on_board.contains(&cell.row) {
        Some((cell.col + 8 * (7 - cell.row)) as Square)
    } else {
        None
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// A move or capture (what stands on `to`, if anything, is captured).
    Normal,
    /// A pawn's two-square first step.
    DoubleStep,
    /// The pawn on the square behind `to` is captured.
    EnPassant,
    /// `from`/`to` are the king's; the rook's come from [`Move::rook_squares`].
    Castle,
    /// A pawn reaching its last rank becomes this piece.
    Promotion(Piece),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub from: Square,
    pub to: Square,
    pub kind: MoveKind,
}

impl Move {
    /// For a castle: the rook's origin and destination.
    pub fn rook_squares(self) -> Option<(Square, Square)> {
        if self.kind != MoveKind::Castle {
            return None;
        }
        match self.to {
            G1 => Some((H1, F1)),
            C1 => Some((A1, D1)),
            G8 => Some((H8, F8)),
            C8 => Some((A8, D8)),
            _ => None,
        }
    }

    /// Long algebraic notation as UCI writes it: "e2e4", "e7e8q", castles
    /// as the king's move ("e1g1").
    pub fn uci(self) -> String {
        let mut s = square_name(self.from);
        s.push_str(&square_name(self.to));
        if let MoveKind::Promotion(p) = self.kind {
            s.push(p.letter().to_ascii_lowercase());
        }
        s
    }
}

/// How [`Position::gen_moves`] departs from standard chess.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rules {
    /// DoubleCross (DC-4.3): castling has no check conditions (the king may
    /// start in, pass through or land in check).
    pub castle_ignoring_check: bool,
}

const A1: Square = 0;
const B1: Square = 1;
const C1: Square = 2;
const D1: Square = 3;
const E1: Square = 4;
const F1: Square = 5;
const G1: Square = 6;
const H1: Square = 7;
const A8: Square = 56;
const B8: Square = 57;
const C8: Square = 58;
const D8: Square = 59;
const E8: Square = 60;
const F8: Square = 61;
const G8: Square = 62;
const H8: Square = 63;

const RANK_1: u64 = 0xff;
const RANK_3: u64 = 0xff << 16;
const RANK_6: u64 = 0xff << 40;
const RANK_8: u64 = 0xff << 56;
/// Where a pawn move ends as a promotion (either side's last rank: a pawn
/// never moves backwards, so each side can only reach its own).
const BACK_RANKS: u64 = RANK_1 | RANK_8;

const PROMOTIONS: [Piece; 4] = [Piece::Queen, Piece::Rook, Piece::Bishop, Piece::Knight];

const fn bit(sq: Square) -> u64 {
    1 << sq
}

/// The squares of a bitboard, lowest first.
#[derive(Clone, Copy)]
struct Squares(u64);

impl Iterator for Squares {
    type Item = Square;
    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let sq = self.0.trailing_zeros() as Square;
        self.0 &= self.0 - 1;
        Some(sq)
    }
}

const ROOK_DIRS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i8, i8); 4] = [(1, 1), (-1, 1), (1, -1), (-1, -1)];

static KNIGHT_ATTACKS: [u64; 64] = leaps(&KNIGHT_LEAPS);
static KING_ATTACKS: [u64; 64] = leaps(&DIRECTIONS);
/// `PAWN_ATTACKS[side][sq]`: the squares a pawn of `side` on `sq` attacks.
/// Read with the other side, it gives the squares from which a pawn of
/// `side` attacks `sq`.
static PAWN_ATTACKS: [[u64; 64]; 2] = [leaps(&[(-1, 1), (1, 1)]), leaps(&[(-1, -1), (1, -1)])];

/// Slider attacks by walking rays: the reference the magic tables are
/// filled from.
fn slide(sq: Square, occ: u64, dirs: &[(i8, i8)]) -> u64 {
    let mut attacks = 0;
    for &(df, dr) in dirs {
        let (mut f, mut r) = ((sq % 8) as i8, (sq / 8) as i8);
        loop {
            f += df;
            r += dr;
            if !(0..8).contains(&f) || !(0..8).contains(&r) {
                break;
            }
            let b = 1u64 << (r * 8 + f);
            attacks |= b;
            if occ & b != 0 {
                break;
            }
        }
    }
    attacks
}

/// The blockers that can change a slider's attacks: its rays without the
/// last square of each (a piece on the edge blocks nothing beyond it).
fn relevant_blockers(sq: Square, dirs: &[(i8, i8)]) -> u64 {
    let mut mask = 0;
    for &(df, dr) in dirs {
        let (mut f, mut r) = ((sq % 8) as i8, (sq / 8) as i8);
        while (0..8).contains(&(f + 2 * df)) && (0..8).contains(&(r + 2 * dr)) {
            f += df;
            r += dr;
            mask |= 1u64 << (r * 8 + f);
        }
    }
    mask
}

/// Magic multipliers for rook attacks, one per square (see the module docs).
#[rustfmt::skip]
const ROOK_MAGICS: [u64; 64] = [
    0x2080_0020_8040_0010, 0x00c0_0020_0140_1000, 0x2100_1100_0840_2002, 0x0880_0800_8104_1000,
    0x0200_0200_2004_1008, 0x2300_0400_0801_0012, 0x0c00_2830_0400_8201, 0x0180_0100_0040_7a80,
    0x0168_8000_8040_0020, 0x0010_4000_4020_1000, 0x1001_0020_0100_1048, 0x1001_0024_0810_0100,
    0x0801_0004_0801_0012, 0x4001_0002_0900_0400, 0x08a2_0004_c802_0001, 0x2002_8011_4500_2280,
    0x0080_8600_2100_4200, 0x0010_00c0_0940_2002, 0x00b0_0020_0400_2800, 0x100a_8080_1002_0800,
    0x8101_0100_0800_0410, 0x0244_0080_0200_0480, 0x0000_0400_1081_0208, 0x2000_0200_0044_8534,
    0x4104_4004_8000_8033, 0x0000_8101_0020_4000, 0x0440_4309_0020_0010, 0x4600_2409_0010_0100,
    0x0060_0800_8004_0080, 0x0001_0003_0008_0400, 0x0004_0844_0001_1002, 0x0023_0402_0000_8041,
    0x0580_0500_4300_2080, 0x0400_8040_0280_2008, 0x0001_0020_0100_4010, 0x1000_2009_0100_1000,
    0x4410_8008_0180_0c00, 0xa012_0038_0600_1004, 0x0020_1001_0400_8802, 0x0004_8084_0200_0041,
    0x0010_4001_7089_8000, 0x0080_5000_2000_4004, 0x1040_4080_1202_0020, 0x8010_0400_0800_4040,
    0x2001_0801_0011_0004, 0x0000_0200_0400_8080, 0x0021_0108_1004_0002, 0x0800_008c_4302_0024,
    0x0000_8000_2100_5100, 0x0070_2010_4000_8080, 0x0000_d042_8200_6a00, 0x0010_0144_0008_0240,
    0x0001_0801_1005_0100, 0x0012_0008_1024_0600, 0x0402_0008_0104_0200, 0x0281_0010_8a00_4100,
    0x0050_8003_0010_2045, 0x8208_2100_4012_0882, 0x8010_6001_0118_3441, 0x020b_0009_1000_6045,
    0x0241_0010_0248_0005, 0x0081_0004_0088_0241, 0x0000_0090_0802_4124, 0x0048_1229_8041_0402,
];
/// Magic multipliers for bishop attacks, one per square.
#[rustfmt::skip]
const BISHOP_MAGICS: [u64; 64] = [
    0x0848_0208_2204_0013, 0x8010_a400_8582_1200, 0x0008_0084_3084_0822, 0x0808_0481_0804_0000,
    0x1304_0421_0000_8104, 0x5001_0120_1020_4023, 0x8104_8801_b820_0420, 0x200a_0080_8401_2000,
    0x0040_1020_0104_2084, 0x840a_5050_4242_8020, 0x0000_7001_0220_2920, 0x4410_1c0c_1080_0002,
    0x0040_0404_2200_0000, 0x0180_0208_0209_0202, 0x4020_0208_1104_1202, 0x0001_0430_8c04_2000,
    0x4140_6610_0242_4400, 0x0028_0120_0801_0460, 0x0188_0621_0200_2a00, 0x0014_0048_4010_2008,
    0x0105_0002_9040_0002, 0x8001_0222_0041_0400, 0x104a_0419_1801_3446, 0x008a_0000_8200_8238,
    0x04a0_0600_0810_0430, 0x0008_2200_0882_0801, 0x2508_0412_0800_5010, 0x4008_0802_0020_2020,
    0x2441_0010_1300_4000, 0x0030_0080_6040_7000, 0x4008_1080_0042_0800, 0x0012_0210_5029_0100,
    0x0210_0804_8220_0500, 0xcc01_1120_4810_0480, 0x0020_4028_0650_0440, 0x0004_8e00_8058_0080,
    0x0040_1020_2002_0080, 0x0028_0104_4008_0807, 0x4601_0411_0800_8800, 0x8040_810e_0410_4200,
    0x9012_1011_0400_088a, 0xa003_0802_1208_1050, 0x00c1_0040_4840_1004, 0x9000_00a0_1440_0800,
    0x0008_0210_4040_5401, 0x4020_0082_0600_2090, 0x0004_1904_2403_0100, 0x0424_008a_0202_6250,
    0x8004_0882_5090_0040, 0x1c00_4300_88a0_4200, 0x0001_0200_9404_0001, 0x8040_2100_2088_0061,
    0x2010_0404_5044_2032, 0x0800_8408_5004_4001, 0x0004_0408_0214_0004, 0x0004_080a_0422_2020,
    0x8088_8021_1002_2000, 0x1081_a104_1611_4400, 0x0205_010a_2406_0820, 0x0000_0007_2041_1080,
    0x1008_0002_0843_0400, 0x580c_0260_2881_0840, 0x8020_2044_1020_a110, 0x12c0_0224_0102_0018,
];

#[derive(Clone, Copy, Default)]
struct Magic {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: usize,
}

impl Magic {
    #[inline(always)]
    fn index(&self, occ: u64) -> usize {
        self.offset + ((occ & self.mask).wrapping_mul(self.magic) >> self.shift) as usize
    }
}

struct Tables {
    rook: [Magic; 64],
    bishop: [Magic; 64],
    /// Every square's attack sets for both slider kinds, sliced by
    /// `Magic::offset`.
    attacks: Vec<u64>,
    /// The squares strictly between two squares on a common line, else 0.
    between: Vec<[u64; 64]>,
    /// The whole line (edge to edge) through two squares, else 0.
    line: Vec<[u64; 64]>,
}

static TABLES: LazyLock<Tables> = LazyLock::new(Tables::build);

/// Fetched once per generator call: every `LazyLock` access is an atomic
/// check, too many for the inner loops.
fn tables() -> &'static Tables {
    &TABLES
}

impl Tables {
    fn build() -> Tables {
        let mut attacks = Vec::new();
        let mut fill = |dirs: &[(i8, i8)], magics: &[u64; 64]| {
            let mut out = [Magic::default(); 64];
            for sq in 0..64u8 {
                let mask = relevant_blockers(sq, dirs);
                let bits = mask.count_ones();
                let m = Magic {
                    mask,
                    magic: magics[sq as usize],
                    shift: 64 - bits,
                    offset: attacks.len(),
                };
                attacks.resize(attacks.len() + (1 << bits), 0);
                let mut filled = vec![false; 1 << bits];
                // Every subset of the mask (Carry-Rippler enumeration).
                let mut occ = 0u64;
                loop {
                    let want = slide(sq, occ, dirs);
                    let i = m.index(occ);
                    if filled[i - m.offset] {
                        assert_eq!(attacks[i], want, "bad magic for square {sq}");
                    }
                    filled[i - m.offset] = true;
                    attacks[i] = want;
                    occ = occ.wrapping_sub(mask) & mask;
                    if occ == 0 {
                        break;
                    }
                }
                out[sq as usize] = m;
            }
            out
        };
        let rook = fill(&ROOK_DIRS, &ROOK_MAGICS);
        let bishop = fill(&BISHOP_DIRS, &BISHOP_MAGICS);

        let mut between = vec![[0; 64]; 64];
        let mut line = vec![[0; 64]; 64];
        for a in 0..64u8 {
            for b in 0..64u8 {
                if a == b {
                    continue;
                }
                for dirs in [&ROOK_DIRS, &BISHOP_DIRS] {
                    if slide(a, 0, dirs) & bit(b) != 0 {
                        between[a as usize][b as usize] =
                            slide(a, bit(b), dirs) & slide(b, bit(a), dirs);
                        line[a as usize][b as usize] =
                            (slide(a, 0, dirs) & slide(b, 0, dirs)) | bit(a) | bit(b);
                    }
                }
            }
        }
        Tables {
            rook,
            bishop,
            attacks,
            between,
            line,
        }
    }

    #[inline(always)]
    fn rook_attacks(&self, sq: Square, occ: u64) -> u64 {
        self.attacks[self.rook[sq as usize].index(occ)]
    }

    #[inline(always)]
    fn bishop_attacks(&self, sq: Square, occ: u64) -> u64 {
        self.attacks[self.bishop[sq as usize].index(occ)]
    }
}

/// One castle: the right it needs and the squares involved.
struct CastleSpec {
    right: u8,
    king_from: Square,
    king_to: Square,
    rook_from: Square,
    /// Must be empty: everything between king and rook.
    empty: u64,
    /// Must not be attacked in standard chess: the king's start, the square
    /// it passes over and where it lands.
    path: [Square; 3],
}

/// `CASTLES[side]`: kingside, then queenside.
const CASTLES: [[CastleSpec; 2]; 2] = [
    [
        CastleSpec {
            right: WHITE_KINGSIDE,
            king_from: E1,
            king_to: G1,
            rook_from: H1,
            empty: bit(F1) | bit(G1),
            path: [E1, F1, G1],
        },
        CastleSpec {
            right: WHITE_QUEENSIDE,
            king_from: E1,
            king_to: C1,
            rook_from: A1,
            empty: bit(B1) | bit(C1) | bit(D1),
            path: [E1, D1, C1],
        },
    ],
    [
        CastleSpec {
            right: BLACK_KINGSIDE,
            king_from: E8,
            king_to: G8,
            rook_from: H8,
            empty: bit(F8) | bit(G8),
            path: [E8, F8, G8],
        },
        CastleSpec {
            right: BLACK_QUEENSIDE,
            king_from: E8,
            king_to: C8,
            rook_from: A8,
            empty: bit(B8) | bit(C8) | bit(D8),
            path: [E8, D8, C8],
        },
    ],
];

/// The rights that survive a move from or to each square: the rook's
/// right goes when anything leaves or lands on its corner.
const CASTLE_KEEP: [u8; 64] = {
    let mut keep = [0xf; 64];
    keep[A1 as usize] = !WHITE_QUEENSIDE;
    keep[H1 as usize] = !WHITE_KINGSIDE;
    keep[A8 as usize] = !BLACK_QUEENSIDE;
    keep[H8 as usize] = !BLACK_KINGSIDE;
    keep
};

const fn side_rights(side: Side) -> u8 {
    match side {
        Side::White => WHITE_KINGSIDE | WHITE_QUEENSIDE,
        Side::Black => BLACK_KINGSIDE | BLACK_QUEENSIDE,
    }
}

/// Where generated moves go: a sink sees a piece's destinations as one
/// bitboard, so that counting (perft's last ply) never expands them.
trait Sink {
    /// Moves of the piece on `from` to each square of `targets`; for a pawn
    /// the move kinds follow from the geometry (double steps, promotions).
    fn targets(&mut self, from: Square, targets: u64, pawn: bool);
    fn one(&mut self, mv: Move);
}

struct Push<'a>(&'a mut Vec<Move>);

impl Sink for Push<'_> {
    #[inline(always)]
    fn targets(&mut self, from: Square, targets: u64, pawn: bool) {
        for to in Squares(targets) {
            if !pawn {
                self.0.push(Move {
                    from,
                    to,
                    kind: MoveKind::Normal,
                });
            } else if bit(to) & BACK_RANKS != 0 {
                for p in PROMOTIONS {
                    self.0.push(Move {
                        from,
                        to,
                        kind: MoveKind::Promotion(p),
                    });
                }
            } else {
                let kind = if from.abs_diff(to) == 16 {
                    MoveKind::DoubleStep
                } else {
                    MoveKind::Normal
                };
                self.0.push(Move { from, to, kind });
            }
        }
    }

    fn one(&mut self, mv: Move) {
        self.0.push(mv);
    }
}

struct Count(u64);

impl Sink for Count {
    #[inline(always)]
    fn targets(&mut self, _from: Square, targets: u64, pawn: bool) {
        let promotions = if pawn {
            (targets & BACK_RANKS).count_ones()
        } else {
            0
        };
        self.0 += u64::from(targets.count_ones() + 3 * promotions);
    }

    fn one(&mut self, _mv: Move) {
        self.0 += 1;
    }
}

/// A FEN that is no position: which field, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FenError(pub String);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    by_side: [u64; 2],
    by_piece: [u64; 6],
    pub castling: u8,
    /// The square a pawn passed over with a double step on the last move.
    pub ep: Option<Square>,
    pub turn: Side,
    pub halfmove: u32,
    pub fullmove: u32,
}

impl Position {
    pub fn empty() -> Position {
        Position {
            by_side: [0; 2],
            by_piece: [0; 6],
            castling: 0,
            ep: None,
            turn: Side::White,
            halfmove: 0,
            fullmove: 1,
        }
    }

    pub fn startpos() -> Position {
        Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
            .expect("the start position's FEN is valid")
    }

    /// Reads a position from FEN (6 fields, or 4 without the clocks).
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.len() != 4 && fields.len() != 6 {
            return Err(FenError(format!(
                "FEN {fen:?} has {} fields; expected 6 (or 4, without the clocks)",
                fields.len()
            )));
        }
        let mut pos = Position::empty();

        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 8 {
            return Err(FenError(format!(
                "FEN board {:?} has {} ranks; expected 8",
                fields[0],
                ranks.len()
            )));
        }
        for (i, text) in ranks.iter().enumerate() {
            let rank = 7 - i as u8;
            let mut file = 0u8;
            for c in text.chars() {
                if let Some(d) = c.to_digit(10).filter(|d| (1..=8).contains(d)) {
                    file += d as u8;
                } else {
                    let side = if c.is_ascii_uppercase() {
                        Side::White
                    } else {
                        Side::Black
                    };
                    let piece = Piece::from_letter(c.to_ascii_uppercase()).ok_or_else(|| {
                        FenError(format!(
                            "FEN rank {} has a bad piece letter {c:?}",
                            rank + 1
                        ))
                    })?;
                    if file < 8 {
                        pos.set(file + 8 * rank, Some((side, piece)));
                    }
                    file += 1;
                }
                if file > 8 {
                    return Err(FenError(format!(
                        "FEN rank {} ({text:?}) is longer than 8 squares",
                        rank + 1
                    )));
                }
            }
            if file != 8 {
                return Err(FenError(format!(
                    "FEN rank {} ({text:?}) covers {file} squares; expected 8",
                    rank + 1
                )));
            }
        }

        pos.turn = match fields[1] {
            "w" => Side::White,
            "b" => Side::Black,
            t => {
                return Err(FenError(format!(
                    "FEN side to move {t:?} is not \"w\" or \"b\""
                )));
            }
        };

        if fields[2] != "-" {
            for c in fields[2].chars() {
                let right = match c {
                    'K' => WHITE_KINGSIDE,
                    'Q' => WHITE_QUEENSIDE,
                    'k' => BLACK_KINGSIDE,
                    'q' => BLACK_QUEENSIDE,
                    _ => {
                        return Err(FenError(format!(
                            "FEN castling rights {:?} contain {c:?}",
                            fields[2]
                        )));
                    }
                };
                if pos.castling & right != 0 {
                    return Err(FenError(format!(
                        "FEN castling rights {:?} repeat {c:?}",
                        fields[2]
                    )));
                }
                pos.castling |= right;
            }
        }

        if fields[3] != "-" {
            let sq = parse_square(fields[3]).ok_or_else(|| {
                FenError(format!(
                    "FEN en-passant square {:?} is not a square",
                    fields[3]
                ))
            })?;
            if sq / 8 != 2 && sq / 8 != 5 {
                return Err(FenError(format!(
                    "FEN en-passant square {:?} is not on rank 3 or 6",
                    fields[3]
                )));
            }
            pos.ep = Some(sq);
        }

        if fields.len() == 6 {
            pos.halfmove = fields[4].parse().map_err(|_| {
                FenError(format!(
                    "FEN halfmove clock {:?} is not a number",
                    fields[4]
                ))
            })?;
            pos.fullmove = fields[5].parse().map_err(|_| {
                FenError(format!("FEN move number {:?} is not a number", fields[5]))
            })?;
        }
        Ok(pos)
    }

    pub fn fen(&self) -> String {
        let mut s = String::with_capacity(90);
        for rank in (0..8u8).rev() {
            let mut gap = 0;
            for file in 0..8u8 {
                match self.piece_at(file + 8 * rank) {
                    None => gap += 1,
                    Some((side, piece)) => {
                        if gap > 0 {
                            s.push(char::from(b'0' + gap));
                            gap = 0;
                        }
                        let c = piece.letter();
                        s.push(if side == Side::White {
                            c
                        } else {
                            c.to_ascii_lowercase()
                        });
                    }
                }
            }
            if gap > 0 {
                s.push(char::from(b'0' + gap));
            }
            if rank > 0 {
                s.push('/');
            }
        }
        s.push_str(if self.turn == Side::White {
            " w "
        } else {
            " b "
        });
        if self.castling == 0 {
            s.push('-');
        }
        for (right, c) in [
            (WHITE_KINGSIDE, 'K'),
            (WHITE_QUEENSIDE, 'Q'),
            (BLACK_KINGSIDE, 'k'),
            (BLACK_QUEENSIDE, 'q'),
        ] {
            if self.castling & right != 0 {
                s.push(c);
            }
        }
        s.push(' ');
        match self.ep {
            Some(sq) => s.push_str(&square_name(sq)),
            None => s.push('-'),
        }
        s.push_str(&format!(" {} {}", self.halfmove, self.fullmove));
        s
    }

    pub fn piece_at(&self, sq: Square) -> Option<(Side, Piece)> {
        let b = bit(sq);
        let side = if self.by_side[0] & b != 0 {
            Side::White
        } else if self.by_side[1] & b != 0 {
            Side::Black
        } else {
            return None;
        };
        self.piece_type_at(sq).map(|p| (side, p))
    }

    #[inline]
    fn piece_type_at(&self, sq: Square) -> Option<Piece> {
        let b = bit(sq);
        Piece::ALL
            .into_iter()
            .find(|&p| self.by_piece[p as usize] & b != 0)
    }

    pub fn set(&mut self, sq: Square, what: Option<(Side, Piece)>) {
        let b = bit(sq);
        for bb in self.by_side.iter_mut().chain(self.by_piece.iter_mut()) {
            *bb &= !b;
        }
        if let Some((side, piece)) = what {
            self.by_side[side.index()] |= b;
            self.by_piece[piece as usize] |= b;
        }
    }

    pub fn pieces(&self, side: Side, piece: Piece) -> u64 {
        self.by_side[side.index()] & self.by_piece[piece as usize]
    }

    pub fn side_bb(&self, side: Side) -> u64 {
        self.by_side[side.index()]
    }

    pub fn occupied(&self) -> u64 {
        self.by_side[0] | self.by_side[1]
    }

    /// The king of `side` (the lowest one, should an edited position hold
    /// several).
    pub fn king(&self, side: Side) -> Option<Square> {
        Squares(self.pieces(side, Piece::King)).next()
    }

    pub fn attackers(&self, sq: Square, by: Side) -> u64 {
        self.attackers_with(tables(), sq, by, self.occupied())
    }

    /// `by`'s pieces attacking `sq` when the board's occupancy (which only
    /// blocks sliders) is `occ`.
    #[inline(always)]
    fn attackers_with(&self, t: &Tables, sq: Square, by: Side, occ: u64) -> u64 {
        let s = sq as usize;
        let queens = self.by_piece[Piece::Queen as usize];
        let diagonal = self.by_piece[Piece::Bishop as usize] | queens;
        let straight = self.by_piece[Piece::Rook as usize] | queens;
        let any = (PAWN_ATTACKS[by.other().index()][s] & self.by_piece[Piece::Pawn as usize])
            | (KNIGHT_ATTACKS[s] & self.by_piece[Piece::Knight as usize])
            | (KING_ATTACKS[s] & self.by_piece[Piece::King as usize])
            | (t.bishop_attacks(sq, occ) & diagonal)
            | (t.rook_attacks(sq, occ) & straight);
        any & self.by_side[by.index()]
    }

    /// A pawn's pushes and captures (not en passant) by `side`, capturing
    /// pieces of `theirs`.
    #[inline(always)]
    fn pawn_targets(side: Side, from: Square, occ: u64, theirs: u64) -> u64 {
        let b = bit(from);
        let empty = !occ;
        let (single, double) = match side {
            Side::White => {
                let single = (b << 8) & empty;
                (single, ((single & RANK_3) << 8) & empty)
            }
            Side::Black => {
                let single = (b >> 8) & empty;
                (single, ((single & RANK_6) >> 8) & empty)
            }
        };
        single | double | (PAWN_ATTACKS[side.index()][from as usize] & theirs)
    }

    /// The pawns of `side` that can capture en passant, and the square they
    /// capture on. Besides the ep square's rank, this asks for the ep
    /// square to be empty and a pawn of the other side behind it, so an
    /// edited position cannot produce a capture of nothing.
    fn ep_capturers(&self, side: Side) -> Option<(u64, Square)> {
        let ep = self.ep?;
        let (rank, victim) = match side {
            Side::White => (5, ep.wrapping_sub(8)),
            Side::Black => (2, ep.wrapping_add(8)),
        };
        if ep / 8 != rank
            || self.occupied() & bit(ep) != 0
            || self.pieces(side.other(), Piece::Pawn) & bit(victim) == 0
        {
            return None;
        }
        let from = PAWN_ATTACKS[side.other().index()][ep as usize] & self.pieces(side, Piece::Pawn);
        (from != 0).then_some((from, ep))
    }

    /// The castles of `side` available by the rights, the pieces' places
    /// and empty squares, and, unless `ignore_check`, no attacked square on
    /// the king's path.
    fn gen_castles<S: Sink>(&self, t: &Tables, side: Side, ignore_check: bool, sink: &mut S) {
        let occ = self.occupied();
        for c in &CASTLES[side.index()] {
            if self.castling & c.right != 0
                && self.pieces(side, Piece::King) & bit(c.king_from) != 0
                && self.pieces(side, Piece::Rook) & bit(c.rook_from) != 0
                && occ & c.empty == 0
                && (ignore_check
                    || c.path
                        .iter()
                        .all(|&sq| self.attackers_with(t, sq, side.other(), occ) == 0))
            {
                sink.one(Move {
                    from: c.king_from,
                    to: c.king_to,
                    kind: MoveKind::Castle,
                });
            }
        }
    }

    fn gen_pseudo<S: Sink>(
        &self,
        t: &Tables,
        side: Side,
        piece: Option<Piece>,
        rules: Rules,
        sink: &mut S,
    ) {
        let ours = self.side_bb(side);
        let theirs = self.side_bb(side.other());
        let occ = ours | theirs;
        let wanted = |p: Piece| piece.is_none_or(|w| w == p);
        if wanted(Piece::Pawn) {
            for from in Squares(self.pieces(side, Piece::Pawn)) {
                sink.targets(from, Self::pawn_targets(side, from, occ, theirs), true);
            }
            if let Some((froms, ep)) = self.ep_capturers(side) {
                for from in Squares(froms) {
                    sink.one(Move {
                        from,
                        to: ep,
                        kind: MoveKind::EnPassant,
                    });
                }
            }
        }
        if wanted(Piece::Knight) {
            for from in Squares(self.pieces(side, Piece::Knight)) {
                sink.targets(from, KNIGHT_ATTACKS[from as usize] & !ours, false);
            }
        }
        if wanted(Piece::Bishop) {
            for from in Squares(self.pieces(side, Piece::Bishop)) {
                sink.targets(from, t.bishop_attacks(from, occ) & !ours, false);
            }
        }
        if wanted(Piece::Rook) {
            for from in Squares(self.pieces(side, Piece::Rook)) {
                sink.targets(from, t.rook_attacks(from, occ) & !ours, false);
            }
        }
        if wanted(Piece::Queen) {
            for from in Squares(self.pieces(side, Piece::Queen)) {
                let attacks = t.bishop_attacks(from, occ) | t.rook_attacks(from, occ);
                sink.targets(from, attacks & !ours, false);
            }
        }
        if wanted(Piece::King) {
            for from in Squares(self.pieces(side, Piece::King)) {
                sink.targets(from, KING_ATTACKS[from as usize] & !ours, false);
            }
            self.gen_castles(t, side, rules.castle_ignoring_check, sink);
        }
    }

    pub fn gen_moves(&self, side: Side, piece: Option<Piece>, rules: Rules, out: &mut Vec<Move>) {
        self.gen_pseudo(tables(), side, piece, rules, &mut Push(out));
    }

    /// Whether `mv`, by the side to move, leaves none of that side's kings
    /// attacked, by playing it.
    fn leaves_king_safe(&self, t: &Tables, mv: Move) -> bool {
        let mut after = self.clone();
        after.play(mv);
        let us = self.turn;
        let occ = after.occupied();
        Squares(after.pieces(us, Piece::King))
            .all(|k| after.attackers_with(t, k, us.other(), occ) == 0)
    }

    /// Standard chess moves for the side to move.
    fn gen_legal<S: Sink>(&self, t: &Tables, sink: &mut S) {
        let us = self.turn;
        let them = us.other();
        let kings = self.pieces(us, Piece::King);
        if kings.count_ones() != 1 {
            // Pins and check masks assume one king; with none (or several,
            // in an edited position) filter the pseudo-legal moves by
            // playing them.
            let mut moves = Vec::new();
            self.gen_pseudo(t, us, None, Rules::default(), &mut Push(&mut moves));
            for mv in moves {
                if self.leaves_king_safe(t, mv) {
                    sink.one(mv);
                }
            }
            return;
        }
        let k = kings.trailing_zeros() as Square;
        let ours = self.side_bb(us);
        let theirs = self.side_bb(them);
        let occ = ours | theirs;

        // The king may not step onto an attacked square; it is taken off
        // the board for the test so that it cannot hide behind itself from
        // a slider checking it along the line it retreats on.
        let without_king = occ ^ kings;
        let mut king_targets = 0;
        for to in Squares(KING_ATTACKS[k as usize] & !ours) {
            if self.attackers_with(t, to, them, without_king) == 0 {
                king_targets |= bit(to);
            }
        }
        if king_targets != 0 {
            sink.targets(k, king_targets, false);
        }

        let checkers = self.attackers_with(t, k, them, occ);
        if checkers.count_ones() > 1 {
            return;
        }
        // Every other move must capture the single checker or block it.
        let check_mask = if checkers == 0 {
            !0
        } else {
            t.between[k as usize][checkers.trailing_zeros() as usize] | checkers
        };

        // Their sliders seeing our king through our pieces: with exactly
        // one of ours in between, that piece is pinned to the line.
        let queens = self.pieces(them, Piece::Queen);
        let snipers = (t.rook_attacks(k, theirs) & (self.pieces(them, Piece::Rook) | queens))
            | (t.bishop_attacks(k, theirs) & (self.pieces(them, Piece::Bishop) | queens));
        let mut pinned = 0;
        for s in Squares(snipers) {
            let blockers = t.between[k as usize][s as usize] & occ;
            if blockers.count_ones() == 1 {
                pinned |= blockers & ours;
            }
        }
        let line = &t.line[k as usize];
        let allowed = |from: Square| {
            if pinned & bit(from) != 0 {
                check_mask & line[from as usize]
            } else {
                check_mask
            }
        };

        let targets = !ours;
        for from in Squares(self.pieces(us, Piece::Pawn)) {
            let to = Self::pawn_targets(us, from, occ, theirs) & allowed(from);
            if to != 0 {
                sink.targets(from, to, true);
            }
        }
        // A pinned knight can never stay on its line.
        for from in Squares(self.pieces(us, Piece::Knight) & !pinned) {
            let to = KNIGHT_ATTACKS[from as usize] & targets & check_mask;
            if to != 0 {
                sink.targets(from, to, false);
            }
        }
        for from in Squares(self.pieces(us, Piece::Bishop)) {
            let to = t.bishop_attacks(from, occ) & targets & allowed(from);
            if to != 0 {
                sink.targets(from, to, false);
            }
        }
        for from in Squares(self.pieces(us, Piece::Rook)) {
            let to = t.rook_attacks(from, occ) & targets & allowed(from);
            if to != 0 {
                sink.targets(from, to, false);
            }
        }
        for from in Squares(self.pieces(us, Piece::Queen)) {
            let to =
                (t.bishop_attacks(from, occ) | t.rook_attacks(from, occ)) & targets & allowed(from);
            if to != 0 {
                sink.targets(from, to, false);
            }
        }
        if let Some((froms, ep)) = self.ep_capturers(us) {
            for from in Squares(froms) {
                let mv = Move {
                    from,
                    to: ep,
                    kind: MoveKind::EnPassant,
                };
                // Removing two pawns from one rank can expose the king
                // along it, which pin masks do not see.
                if self.leaves_king_safe(t, mv) {
                    sink.one(mv);
                }
            }
        }
        if checkers == 0 {
            self.gen_castles(t, us, false, sink);
        }
    }

    pub fn legal_moves(&self) -> Vec<Move> {
        let mut moves = Vec::with_capacity(64);
        self.gen_legal(tables(), &mut Push(&mut moves));
        moves
    }

    /// Plays `mv` for whichever side's piece stands on `from` (DoubleCross
    /// lets either player move either colour); `turn` flips all the same.
    /// Whatever stands on `to` is captured, and a `Normal` pawn move onto
    /// the last rank leaves a pawn there (DoubleCross's delayed promotion).
    pub fn play(&mut self, mv: Move) {
        let moved = self.piece_at(mv.from);
        let mover = moved.map_or(self.turn, |(side, _)| side);
        let victim_sq = match mv.kind {
            MoveKind::EnPassant => match mover {
                Side::White => mv.to.wrapping_sub(8),
                Side::Black => mv.to.wrapping_add(8),
            },
            _ => mv.to,
        };
        let captured = if mv.kind == MoveKind::Castle || victim_sq >= 64 {
            None
        } else {
            self.piece_at(victim_sq)
        };
        if captured.is_some() {
            self.set(victim_sq, None);
        }
        if let Some((side, piece)) = moved {
            let placed = match mv.kind {
                MoveKind::Promotion(p) => p,
                _ => piece,
            };
            self.by_side[side.index()] ^= bit(mv.from) | bit(mv.to);
            self.by_piece[piece as usize] ^= bit(mv.from);
            self.by_piece[placed as usize] ^= bit(mv.to);
            if let Some((rook_from, rook_to)) = mv.rook_squares() {
                let rook = self.piece_at(rook_from);
                self.set(rook_from, None);
                self.set(rook_to, rook);
            }
            if piece == Piece::King {
                self.castling &= !side_rights(side);
            }
        }
        self.castling &= CASTLE_KEEP[mv.from as usize] & CASTLE_KEEP[mv.to as usize];
        self.ep = (mv.kind == MoveKind::DoubleStep).then(|| (mv.from + mv.to) / 2);
        let pawn_move = matches!(moved, Some((_, Piece::Pawn)));
        self.halfmove = if pawn_move || captured.is_some() {
            0
        } else {
            self.halfmove + 1
        };
        if self.turn == Side::Black {
            self.fullmove += 1;
        }
        self.turn = self.turn.other();
    }

    /// Whether a king of the side to move is attacked.
    pub fn is_check(&self) -> bool {
        let t = tables();
        let occ = self.occupied();
        Squares(self.pieces(self.turn, Piece::King))
            .any(|k| self.attackers_with(t, k, self.turn.other(), occ) != 0)
    }

    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        // One move buffer per ply, reused across the whole tree.
        let mut buffers = vec![Vec::with_capacity(64); depth as usize];
        self.perft_from(tables(), depth, &mut buffers)
    }

    fn perft_from(&self, t: &Tables, depth: u32, buffers: &mut [Vec<Move>]) -> u64 {
        if depth == 1 {
            let mut count = Count(0);
            self.gen_legal(t, &mut count);
            return count.0;
        }
        let (moves, deeper) = buffers
            .split_first_mut()
            .expect("one buffer per remaining ply");
        moves.clear();
        self.gen_legal(t, &mut Push(moves));
        let mut nodes = 0;
        for &mv in moves.iter() {
            let mut after = self.clone();
            after.play(mv);
            nodes += after.perft_from(t, depth - 1, deeper);
        }
        nodes
    }

    /// SAN without a check suffix. A move whose `from` is empty (not one
    /// this position can make) comes out in UCI form, so that it is at
    /// least readable.
    pub fn san(&self, mv: Move, rivals: &[Move]) -> String {
        let Some((side, piece)) = self.piece_at(mv.from) else {
            return mv.uci();
        };
        if mv.kind == MoveKind::Castle {
            return if mv.to % 8 > mv.from % 8 {
                "O-O"
            } else {
                "O-O-O"
            }
            .to_string();
        }
        let capture = mv.kind == MoveKind::EnPassant || self.occupied() & bit(mv.to) != 0;
        let mut s = String::with_capacity(8);
        if piece == Piece::Pawn {
            // A pawn changes file only by capturing; its file alone then
            // tells it from any other pawn capturing on the same square.
            if capture || mv.from % 8 != mv.to % 8 {
                s.push(file_char(mv.from));
                s.push('x');
            }
            s.push_str(&square_name(mv.to));
            if let MoveKind::Promotion(p) = mv.kind {
                s.push('=');
                s.push(p.letter());
            }
            return s;
        }
        s.push(piece.letter());
        let mut ambiguous = false;
        let mut same_file = false;
        let mut same_rank = false;
        for r in rivals {
            if r.to == mv.to && r.from != mv.from && self.piece_at(r.from) == Some((side, piece)) {
                ambiguous = true;
                same_file |= r.from % 8 == mv.from % 8;
                same_rank |= r.from / 8 == mv.from / 8;
            }
        }
        if ambiguous {
            let name = square_name(mv.from);
            if !same_file {
                s.push_str(&name[..1]);
            } else if !same_rank {
                s.push_str(&name[1..]);
            } else {
                s.push_str(&name);
            }
        }
        if capture {
            s.push('x');
        }
        s.push_str(&square_name(mv.to));
        s
    }

    pub fn san_standard(&self, mv: Move) -> String {
        let mut s = self.san(mv, &self.legal_moves());
        let mut after = self.clone();
        after.play(mv);
        if after.is_check() {
            s.push(if after.legal_moves().is_empty() {
                '#'
            } else {
                '+'
            });
        }
        s
    }

    pub fn parse_san(&self, san: &str, candidates: &[Move]) -> Option<Move> {
        let bare = |s: &str| s.trim_end_matches(['+', '#', '!', '?']).to_string();
        let wanted = bare(san.trim());
        let mut found = None;
        for &mv in candidates {
            if bare(&self.san(mv, candidates)) == wanted {
                if found.is_some_and(|f| f != mv) {
                    return None;
                }
                found = Some(mv);
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap()
    }

    fn sq(name: &str) -> Square {
        parse_square(name).unwrap()
    }

    fn mv(from: &str, to: &str, kind: MoveKind) -> Move {
        Move {
            from: sq(from),
            to: sq(to),
            kind,
        }
    }

    fn pseudo(p: &Position, side: Side, piece: Option<Piece>, rules: Rules) -> Vec<Move> {
        let mut out = Vec::new();
        p.gen_moves(side, piece, rules, &mut out);
        out
    }

    #[test]
    fn fen_round_trips() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            KIWIPETE,
            "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w Kq d6 0 3",
            "8/8/8/8/8/8/8/8 b - - 99 150",
            "P6p/8/8/8/8/8/8/p6P b - e3 0 1",
        ] {
            assert_eq!(pos(fen).fen(), fen);
        }
        assert_eq!(
            Position::startpos().fen(),
            pos(KIWIPETE).fen().replace(
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
            )
        );
        // Four fields: the clocks default.
        let short = pos("8/8/8/8/8/8/8/K6k w - -");
        assert_eq!((short.halfmove, short.fullmove), (0, 1));
        assert_eq!(short.fen(), "8/8/8/8/8/8/8/K6k w - - 0 1");
    }

    #[test]
    fn bad_fen_is_a_clear_error() {
        for (fen, says) in [
            ("", "0 fields"),
            ("8/8/8/8/8/8/8/8 w -", "3 fields"),
            ("8/8/8/8/8/8/8/8 w - - 0", "5 fields"),
            ("8/8/8/8/8/8/8 w - - 0 1", "7 ranks"),
            ("8/8/8/8/8/8/8/8/8 w - - 0 1", "9 ranks"),
            ("8/8/8/8/8/8/8/7 w - - 0 1", "covers 7 squares"),
            ("8/8/8/8/8/8/8/ppppppppp w - - 0 1", "longer than 8"),
            ("8/8/8/8/8/8/8/44p w - - 0 1", "longer than 8"),
            ("8/8/8/8/8/8/8/9 w - - 0 1", "bad piece letter '9'"),
            ("8/8/8/8/8/8/8/7x w - - 0 1", "bad piece letter 'x'"),
            ("8/8/8/8/8/8/8/8 x - - 0 1", "side to move"),
            ("8/8/8/8/8/8/8/8 w KX - 0 1", "contain 'X'"),
            ("8/8/8/8/8/8/8/8 w KK - 0 1", "repeat 'K'"),
            ("8/8/8/8/8/8/8/8 w - e9 0 1", "not a square"),
            ("8/8/8/8/8/8/8/8 w - e4 0 1", "not on rank 3 or 6"),
            ("8/8/8/8/8/8/8/8 w - - x 1", "halfmove clock"),
            ("8/8/8/8/8/8/8/8 w - - 0 -1", "move number"),
            ("8/8/8/8/8/8/8/8 w - - 0 99999999999", "move number"),
        ] {
            let err = Position::from_fen(fen).expect_err(fen).to_string();
            assert!(err.contains(says), "{fen:?}: {err:?} should say {says:?}");
        }
    }

    #[test]
    fn mangled_fen_never_panics() {
        // Random single-byte damage to valid FENs: every result is either a
        // position that writes back out, or an error.
        let mut rng = StdRng::seed_from_u64(3);
        let alphabet = b"KQRBNPkqrbnp0123456789/ -wbx";
        for _ in 0..3000 {
            let mut bytes = KIWIPETE.as_bytes().to_vec();
            for _ in 0..rng.random_range(1..4) {
                let i = rng.random_range(0..bytes.len());
                match rng.random_range(0..3) {
                    0 => bytes[i] = alphabet[rng.random_range(0..alphabet.len())],
                    1 => {
                        bytes.remove(i);
                    }
                    _ => bytes.insert(i, alphabet[rng.random_range(0..alphabet.len())]),
                }
            }
            let fen = String::from_utf8(bytes).unwrap();
            if let Ok(p) = Position::from_fen(&fen) {
                assert_eq!(pos(&p.fen()), p, "{fen}");
            }
        }
    }

    #[test]
    fn squares_and_cells() {
        assert_eq!(square_name(28), "e4");
        assert_eq!(square_name(0), "a1");
        assert_eq!(square_name(63), "h8");
        assert_eq!(parse_square("e4"), Some(28));
        for bad in ["", "e", "i1", "a9", "a0", "e44", "E4"] {
            assert_eq!(parse_square(bad), None, "{bad:?}");
        }
        assert_eq!(cell_of(sq("e4")), Cell::new(4, 4));
        assert_eq!(cell_of(sq("a8")), Cell::new(0, 0));
        assert_eq!(cell_of(sq("h1")), Cell::new(7, 7));
        for s in 0..64 {
            assert_eq!(parse_square(&square_name(s)), Some(s));
            assert_eq!(square_of(cell_of(s)), Some(s));
        }
        for off in [(-1, 0), (8, 0), (0, -1), (0, 8)] {
            assert_eq!(square_of(Cell::new(off.0, off.1)), None);
        }
        assert_eq!(Side::from_colour(Side::Black.colour()), Some(Side::Black));
        assert_eq!(Side::from_colour(Colour::Red), None);
    }

    #[test]
    fn attackers_of_any_square() {
        let p = pos(KIWIPETE);
        let names = |bb: u64| Squares(bb).map(square_name).collect::<Vec<_>>();
        // d5 holds a white pawn: black attacks it with e6 pawn, b6 and f6
        // knights; white defends it with e4 pawn and c3 knight.
        assert_eq!(
            names(p.attackers(sq("d5"), Side::Black)),
            ["b6", "e6", "f6"]
        );
        assert_eq!(names(p.attackers(sq("d5"), Side::White)), ["c3", "e4"]);
        // Black pawns attack downward: the h3 pawn hits g2.
        assert_eq!(names(p.attackers(sq("g2"), Side::Black)), ["h3"]);
        // Sliders stop at the first piece: the a6 bishop reaches the e2
        // bishop (over b5, c4, d3) but not f1 behind it.
        assert!(p.attackers(sq("e2"), Side::Black) & bit(sq("a6")) != 0);
        assert!(p.attackers(sq("f1"), Side::Black) & bit(sq("a6")) == 0);
    }

    #[test]
    fn king_captures_are_generated() {
        // The white rook attacks the black king (black is to move, so the
        // position is illegal in chess, but DoubleCross gets there).
        let p = pos("4k3/8/8/8/8/8/8/K3R3 b - - 0 1");
        let moves = pseudo(&p, Side::White, None, Rules::default());
        assert!(moves.contains(&mv("e1", "e8", MoveKind::Normal)));
        // Only pieces of the other side are captured.
        assert!(!moves.iter().any(|m| m.to == sq("a1")));
    }

    #[test]
    fn castling_ignoring_check() {
        // The black rook on f8 attacks f1: standard chess forbids O-O (the
        // king passes over f1) but not O-O-O.
        let p = pos("r4rk1/8/8/8/8/8/8/R3K2R w KQ - 0 1");
        let o_o = mv("e1", "g1", MoveKind::Castle);
        let o_o_o = mv("e1", "c1", MoveKind::Castle);
        let standard = pseudo(&p, Side::White, Some(Piece::King), Rules::default());
        assert!(!standard.contains(&o_o) && standard.contains(&o_o_o));
        assert!(!p.legal_moves().contains(&o_o) && p.legal_moves().contains(&o_o_o));
        let dc = Rules {
            castle_ignoring_check: true,
        };
        let moves = pseudo(&p, Side::White, Some(Piece::King), dc);
        assert!(moves.contains(&o_o) && moves.contains(&o_o_o));
        // Even out of check: a rook on e8 checks the king.
        let p = pos("4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1");
        assert!(p.is_check());
        assert!(!pseudo(&p, Side::White, None, Rules::default()).contains(&o_o));
        assert!(pseudo(&p, Side::White, None, dc).contains(&o_o));
        // Not through a piece, without the right, or without the rook.
        for fen in [
            "6k1/8/8/8/8/8/8/R3KB1R w KQ - 0 1",
            "6k1/8/8/8/8/8/8/R3K2R w Q - 0 1",
            "6k1/8/8/8/8/8/8/R3K2N w KQ - 0 1",
        ] {
            assert!(
                !pseudo(&pos(fen), Side::White, None, dc).contains(&o_o),
                "{fen}"
            );
        }
        assert_eq!(o_o.rook_squares(), Some((sq("h1"), sq("f1"))));
        assert_eq!(o_o_o.rook_squares(), Some((sq("a1"), sq("d1"))));
        assert_eq!(
            mv("e8", "g8", MoveKind::Castle).rook_squares(),
            Some((sq("h8"), sq("f8")))
        );
        assert_eq!(
            mv("e8", "c8", MoveKind::Castle).rook_squares(),
            Some((sq("a8"), sq("d8")))
        );
        assert_eq!(mv("e1", "g1", MoveKind::Normal).rook_squares(), None);

        let mut after = p.clone();
        after.play(o_o);
        assert_eq!(after.fen(), "4r1k1/8/8/8/8/8/8/R4RK1 b - - 1 1");
    }

    #[test]
    fn pawns_go_their_own_way_whoever_is_to_move() {
        let p = Position::startpos();
        assert_eq!(p.turn, Side::White);
        let black = pseudo(&p, Side::Black, Some(Piece::Pawn), Rules::default());
        assert_eq!(black.len(), 16);
        assert!(black.contains(&mv("e7", "e6", MoveKind::Normal)));
        assert!(black.contains(&mv("e7", "e5", MoveKind::DoubleStep)));
        assert!(black.iter().all(|m| m.to < m.from));
        let mut after = p.clone();
        after.play(mv("e7", "e5", MoveKind::DoubleStep));
        assert_eq!(after.ep, Some(sq("e6")));
        assert_eq!(after.piece_at(sq("e5")), Some((Side::Black, Piece::Pawn)));
        assert_eq!(after.turn, Side::Black);
        // Only of the piece type asked for, and appended.
        let mut out = vec![mv("a1", "a2", MoveKind::Normal)];
        p.gen_moves(Side::White, Some(Piece::Knight), Rules::default(), &mut out);
        assert_eq!(out.len(), 5);
    }

    #[test]
    fn en_passant_only_for_the_right_side() {
        // White just played c2-c4 beside a black pawn on d4.
        let p = pos("4k3/8/8/8/2Pp4/8/8/4K3 b - c3 0 1");
        let ep = mv("d4", "c3", MoveKind::EnPassant);
        assert!(pseudo(&p, Side::Black, None, Rules::default()).contains(&ep));
        assert!(p.legal_moves().contains(&ep));
        assert!(
            !pseudo(&p, Side::White, None, Rules::default())
                .iter()
                .any(|m| m.kind == MoveKind::EnPassant)
        );
        let mut after = p.clone();
        after.play(ep);
        assert_eq!(after.fen(), "4k3/8/8/8/8/2p5/8/4K3 w - - 0 2");
        // A white pawn next to the passed square of a white double step
        // cannot capture it (rank 3 is black's ep rank).
        let p = pos("4k3/8/8/8/2PP4/8/8/4K3 w - c3 0 1");
        assert!(
            !pseudo(&p, Side::White, None, Rules::default())
                .iter()
                .any(|m| m.kind == MoveKind::EnPassant)
        );
        // White's ep rank is 6, once black has double-stepped.
        let p = pos("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1");
        assert!(
            pseudo(&p, Side::White, None, Rules::default()).contains(&mv(
                "e5",
                "d6",
                MoveKind::EnPassant
            ))
        );
        assert!(
            !pseudo(&p, Side::Black, None, Rules::default())
                .iter()
                .any(|m| m.kind == MoveKind::EnPassant)
        );
    }

    #[test]
    fn promotions_and_delayed_promotion() {
        let p = pos("3r3k/4P3/8/8/8/8/8/K7 w - - 0 1");
        let moves = pseudo(&p, Side::White, Some(Piece::Pawn), Rules::default());
        let kinds = |to| {
            moves
                .iter()
                .filter(|m| m.to == sq(to))
                .map(|m| m.kind)
                .collect::<Vec<_>>()
        };
        let promos = PROMOTIONS.map(MoveKind::Promotion).to_vec();
        assert_eq!(kinds("e8"), promos);
        assert_eq!(kinds("d8"), promos);
        let mut q = p.clone();
        q.play(mv("e7", "d8", MoveKind::Promotion(Piece::Knight)));
        assert_eq!(q.fen(), "3N3k/8/8/8/8/8/8/K7 b - - 0 1");
        // DoubleCross's delayed promotion: the pawn just stands there.
        let mut q = p.clone();
        q.play(mv("e7", "e8", MoveKind::Normal));
        assert_eq!(q.piece_at(sq("e8")), Some((Side::White, Piece::Pawn)));
        assert_eq!(q.fen(), "3rP2k/8/8/8/8/8/8/K7 b - - 0 1");
        // ...and has no moves there.
        assert!(pseudo(&q, Side::White, Some(Piece::Pawn), Rules::default()).is_empty());
    }

    #[test]
    fn play_updates_rights_and_clocks() {
        let mut p = pos("r3k2r/8/8/8/8/8/6n1/R3K2R b KQkq - 5 9");
        // Capturing the h1 rook takes away white's kingside right.
        p.play(mv("g2", "h4", MoveKind::Normal));
        assert_eq!((p.castling, p.halfmove, p.fullmove), (0xf, 6, 10));
        p.play(mv("h1", "h4", MoveKind::Normal));
        assert_eq!(p.castling, 0xf & !WHITE_KINGSIDE);
        assert_eq!(p.halfmove, 0);
        // A rook moving from a corner, then a king moving.
        p.play(mv("a8", "a7", MoveKind::Normal));
        assert_eq!(p.castling, WHITE_QUEENSIDE | BLACK_KINGSIDE);
        p.play(mv("e1", "d1", MoveKind::Normal));
        assert_eq!(p.castling, BLACK_KINGSIDE);
        assert_eq!(p.fen(), "4k2r/r7/8/8/7R/8/8/R2K4 b k - 2 11");
        // Black's move by the other player in DoubleCross: `turn` just flips.
        p.play(mv("a1", "a2", MoveKind::Normal));
        assert_eq!(p.turn, Side::White);
        assert_eq!(p.fullmove, 12);
    }

    #[test]
    fn standard_moves_without_a_king() {
        let p = pos("4k3/8/8/8/8/8/8/R7 w - - 0 1");
        assert_eq!(p.king(Side::White), None);
        assert_eq!(p.legal_moves().len(), 14);
        assert!(!p.is_check());
        assert_eq!(pos("4k3/8/8/8/8/8/8/4R2K b - - 0 1").perft(1), 4);
    }

    fn san_of(fen: &str, from: &str, to: &str) -> String {
        let p = pos(fen);
        let m = *p
            .legal_moves()
            .iter()
            .find(|m| m.from == sq(from) && m.to == sq(to))
            .unwrap_or_else(|| panic!("{from}{to} is legal in {fen}"));
        p.san_standard(m)
    }

    #[test]
    fn known_san() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(san_of(start, "e2", "e4"), "e4");
        assert_eq!(san_of(start, "g1", "f3"), "Nf3");
        let black = KIWIPETE.replace(" w ", " b ");
        assert_eq!(san_of(&black, "b6", "d5"), "Nbxd5");
        assert_eq!(san_of(&black, "f6", "d5"), "Nfxd5");
        assert_eq!(san_of(KIWIPETE, "e1", "c1"), "O-O-O");
        assert_eq!(san_of(KIWIPETE, "e1", "g1"), "O-O");
        assert_eq!(san_of(KIWIPETE, "d5", "e6"), "dxe6");
        // By rank, and by both.
        assert_eq!(san_of("7k/8/8/R7/8/8/8/R6K w - - 0 1", "a1", "a3"), "R1a3");
        assert_eq!(
            san_of("6k1/8/8/8/8/Q7/8/Q1Q4K w - - 0 1", "a1", "b2"),
            "Qa1b2"
        );
        assert_eq!(
            san_of("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5", "d6"),
            "exd6"
        );
        let p = pos("k7/4P3/8/8/8/8/8/4K3 w - - 0 1");
        let promo = mv("e7", "e8", MoveKind::Promotion(Piece::Queen));
        assert_eq!(p.san_standard(promo), "e8=Q+");
        assert_eq!(p.san(mv("e7", "e8", MoveKind::Normal), &[]), "e8");
        let scholar = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";
        assert_eq!(san_of(scholar, "h5", "f7"), "Qxf7#");
        let m = mv("h5", "f7", MoveKind::Normal);
        let legal = pos(scholar).legal_moves();
        assert_eq!(pos(scholar).parse_san("Qxf7#", &legal), Some(m));
        assert_eq!(pos(scholar).parse_san("Qxf7", &legal), Some(m));
        assert_eq!(pos(scholar).parse_san("Qf7", &legal), None);
    }

    #[test]
    fn parse_san_needs_a_unique_match() {
        // DoubleCross candidates of both sides: "e4" (e3-e4 for white,
        // e5-e4 for black) is ambiguous.
        let p = pos("4k3/8/8/4p3/8/4P3/8/4K3 w - - 0 1");
        let mut both = Vec::new();
        p.gen_moves(Side::White, None, Rules::default(), &mut both);
        p.gen_moves(Side::Black, None, Rules::default(), &mut both);
        assert_eq!(p.parse_san("e4", &both), None);
        assert_eq!(
            p.parse_san("Kd2", &both),
            Some(mv("e1", "d2", MoveKind::Normal))
        );
        assert_eq!(
            p.parse_san("Kd7", &both),
            Some(mv("e8", "d7", MoveKind::Normal))
        );
    }

    #[test]
    fn san_parses_back_over_random_games() {
        let mut rng = StdRng::seed_from_u64(1);
        for game in 0..30 {
            let mut p = if game % 2 == 0 {
                Position::startpos()
            } else {
                pos(KIWIPETE)
            };
            for _ in 0..80 {
                let legal = p.legal_moves();
                if legal.is_empty() {
                    break;
                }
                for &m in &legal {
                    let san = p.san_standard(m);
                    assert_eq!(p.parse_san(&san, &legal), Some(m), "{san} in {}", p.fen());
                    assert_eq!(p.parse_san(&p.san(m, &legal), &legal), Some(m));
                }
                p.play(legal[rng.random_range(0..legal.len())]);
            }
        }
    }

    #[test]
    fn pseudo_legal_superset_of_legal() {
        // The standard generator is the pseudo-legal one filtered.
        let mut rng = StdRng::seed_from_u64(2);
        let mut p = pos(KIWIPETE);
        for _ in 0..200 {
            let legal = p.legal_moves();
            let pseudo = pseudo(&p, p.turn, None, Rules::default());
            let filtered: Vec<Move> = pseudo
                .iter()
                .copied()
                .filter(|&m| p.leaves_king_safe(tables(), m))
                .collect();
            let mut a = legal.clone();
            let mut b = filtered;
            a.sort_by_key(|m| (m.from, m.to, format!("{:?}", m.kind)));
            b.sort_by_key(|m| (m.from, m.to, format!("{:?}", m.kind)));
            assert_eq!(a, b, "{}", p.fen());
            if legal.is_empty() {
                p = pos(KIWIPETE);
            } else {
                p.play(legal[rng.random_range(0..legal.len())]);
            }
        }
    }
}
