//! The coded deck's fiducial codes: which AprilTag names which card, where
//! a card carries its two codes, and reading them off a frame with the
//! AprilTag 3 detector.
//!
//! Every face and the back of the printable deck carry two codes of the
//! `tag25h9` family (35 codes, any two at least 9 bits apart, so the
//! detector corrects up to 4 wrong cells and still names no other code): one
//! upright in the top-left corner, one turned 180° in the bottom-right, so
//! a thumb over a corner still leaves one. A code is 7×7 cells (a black
//! border around 5×5 data cells) in a quiet ring of white one cell wide.
//! Finding a card and naming it are one step: a code decoded is a card
//! found, its homography the card's pose, and the card's outline follows
//! from where the code lies on it ([`CodeLayout`]).
//!
//! Code `i` for `i < 30` is the face of colour `i / 6` and piece `i % 6`
//! (in the order of [`Colour::ALL`] and [`Piece::ALL`]); code 30 is the
//! back. Codes 31–34 name nothing: a card that shows one is not ours.
//!
//! Why this family and size: see docs/architecture.md ("The coded deck"),
//! with the decode rates that chose them (`examples/code_size.rs`).

use std::cell::RefCell;

use apriltag::{Detector, Family, Image};
use image::RgbImage;

use arbiter_core::table::{Card, Colour, Piece, Token};

/// Cells across a code with its quiet ring (the family's total width).
pub const CODE_CELLS: usize = 9;
/// Cells across the black border, the square the detector finds.
pub const BORDER_CELLS: usize = 7;
/// The code that names the back.
pub const BACK_CODE: u16 = 30;
/// Codes that name a card (the 30 faces and the back).
const DECK_CODES: u16 = 31;

/// A code read with more wrong cells than this is not trusted: the card is
/// `??`. The family's distance (9) lets the detector correct 4; each
/// corrected cell is a cell the camera saw wrong, and at 3 a code is a
/// third of the way to another one.
pub const MOST_CORRECTED: usize = 2;
/// A code alone on its card (the other covered, or none: a quad of a
/// cloth's pattern or another deck's print) counts only read with no cell
/// corrected. Photos of other decks and tables hold quads within two cells
/// of a code (2 in 268 real photos of other decks, 20 within three); within none,
/// a quad is a code by chance about once in 250,000, and two codes of one
/// card at their places on it never are.
pub const MOST_CORRECTED_ALONE: usize = 0;
/// What the detector is asked to correct (up to [`MOST_CORRECTED`] is read,
/// beyond it is reported as unsure rather than left unseen).
const DETECTOR_CORRECTS: usize = 3;

/// What a code names: a face, or the back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Named {
    Face(Card),
    Back,
}

impl Named {
    pub fn token(self) -> Token {
        match self {
            Named::Face(card) => Token::Up(card),
            Named::Back => Token::Down,
        }
    }
}

/// The code printed on `named`.
pub fn code_of(named: Named) -> u16 {
    match named {
        Named::Back => BACK_CODE,
        Named::Face(card) => {
            let c = Colour::ALL.iter().position(|&k| k == card.colour);
            let p = Piece::ALL.iter().position(|&k| k == card.piece);
            (c.unwrap_or(0) * Piece::ALL.len() + p.unwrap_or(0)) as u16
        }
    }
}

/// What code `id` names, if anything of ours.
pub fn named_by(id: u16) -> Option<Named> {
    if id == BACK_CODE {
        return Some(Named::Back);
    }
    if id >= DECK_CODES {
        return None;
    }
    let n = Piece::ALL.len() as u16;
    let colour = *Colour::ALL.get(usize::from(id / n))?;
    Some(Named::Face(Card::new(
        colour,
        Piece::ALL[usize::from(id % n)],
    )))
}

/// The family's codes and cell layout, read once from the detector's own
/// table (so what is printed is what it decodes).
struct FamilyTable {
    codes: Vec<u64>,
    /// Each data bit's cell, (x, y) inside the black border, most
    /// significant bit first.
    bits: Vec<(usize, usize)>,
}

fn family_table() -> &'static FamilyTable {
    static TABLE: std::sync::OnceLock<FamilyTable> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        // SAFETY: `tag25h9_create` returns a fully initialised family whose
        // `codes` holds `ncodes` words and `bit_x`/`bit_y` `nbits` entries;
        // they are copied out before `tag25h9_destroy` frees it.
        unsafe {
            let f = apriltag_sys::tag25h9_create();
            let fam = &*f;
            let codes = std::slice::from_raw_parts(fam.codes, fam.ncodes as usize).to_vec();
            let n = fam.nbits as usize;
            let xs = std::slice::from_raw_parts(fam.bit_x, n);
            let ys = std::slice::from_raw_parts(fam.bit_y, n);
            let bits = xs
                .iter()
                .zip(ys)
                .map(|(&x, &y)| (x as usize, y as usize))
                .collect();
            apriltag_sys::tag25h9_destroy(f);
            FamilyTable { codes, bits }
        }
    })
}

/// Code `id`'s cells with its quiet ring, `[row][col]`, `true` for white:
/// what is printed, upright.
pub fn code_cells(id: u16) -> [[bool; CODE_CELLS]; CODE_CELLS] {
    let table = family_table();
    // The quiet ring white, the rest black until the bits are set.
    let mut cells = [[false; CODE_CELLS]; CODE_CELLS];
    for (r, row) in cells.iter_mut().enumerate() {
        for (c, cell) in row.iter_mut().enumerate() {
            *cell = r == 0 || c == 0 || r == CODE_CELLS - 1 || c == CODE_CELLS - 1;
        }
    }
    let code = table.codes[usize::from(id)];
    let n = table.bits.len();
    // The black border starts one cell in, past the quiet ring.
    for (i, &(x, y)) in table.bits.iter().enumerate() {
        if code >> (n - 1 - i) & 1 == 1 {
            cells[y + 1][x + 1] = true;
        }
    }
    cells
}

/// Where the two codes lie on a card, in the card's own units (any: the
/// print's pixels, or 1 for the card's width).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CodeLayout {
    /// The card's width and height.
    pub card: (f32, f32),
    /// One code cell's side.
    pub cell: f32,
    /// The black border's distance from the card's top and left edges (for
    /// the top-left code; the other is turned 180° about the card's centre).
    pub inset: f32,
}

impl CodeLayout {
    /// The black border's side.
    pub fn border(&self) -> f32 {
        self.cell * BORDER_CELLS as f32
    }

    /// A point of the card, in the card's units, in the top-left code's
    /// coordinates (the detector's: -1 to 1 across the black border, y
    /// down the code's rows).
    fn in_code(&self, (x, y): (f32, f32)) -> (f32, f32) {
        let b = self.border();
        (
            2.0 * (x - self.inset) / b - 1.0,
            2.0 * (y - self.inset) / b - 1.0,
        )
    }

    /// A point of the card's other code, given in that code's own
    /// coordinates, in this code's: the two are turned 180° about the
    /// card's centre.
    pub fn in_other_code(&self, (x, y): (f32, f32)) -> (f32, f32) {
        let c = self.in_code((self.card.0 / 2.0, self.card.1 / 2.0));
        (2.0 * c.0 - x, 2.0 * c.1 - y)
    }

    /// The card's corners in a code's coordinates, top-left, top-right,
    /// bottom-right, bottom-left as seen from that code (the code turned
    /// 180° sees the card turned too, which reads the same).
    fn corners_in_code(&self) -> [(f32, f32); 4] {
        let (w, h) = self.card;
        [(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)].map(|p| self.in_code(p))
    }
}

/// One code the detector read.
#[derive(Clone, Debug, PartialEq)]
pub struct CodeSeen {
    pub id: u16,
    /// Cells the detector corrected.
    pub corrected: usize,
    /// The detector's decision margin (how far the cells were from their
    /// threshold, on average).
    pub margin: f32,
    /// The code's coordinates (see [`CodeLayout`]) to frame pixels.
    pub homography: [[f64; 3]; 3],
}

impl CodeSeen {
    /// A point in the code's coordinates, in the frame.
    pub fn project(&self, (x, y): (f32, f32)) -> (f32, f32) {
        let h = &self.homography;
        let (x, y) = (f64::from(x), f64::from(y));
        let w = h[2][0] * x + h[2][1] * y + h[2][2];
        let px = (h[0][0] * x + h[0][1] * y + h[0][2]) / w;
        let py = (h[1][0] * x + h[1][1] * y + h[1][2]) / w;
        (px as f32, py as f32)
    }

    /// The outline of the card this code is printed on, laid out as
    /// `layout`: top-left, top-right, bottom-right, bottom-left of the card
    /// as this code sees it.
    pub fn card_outline(&self, layout: &CodeLayout) -> [(f32, f32); 4] {
        layout.corners_in_code().map(|p| self.project(p))
    }
}

thread_local! {
    /// The detector, one per thread (it holds C state and is not `Send`);
    /// made on first use.
    static DETECTOR: RefCell<Option<Detector>> = const { RefCell::new(None) };
}

/// How the detector works: the whole frame, the quads looked for at half
/// resolution and their edges refined at full (a code's cell of 3.5 px or
/// more is found so; see the decode-rate curve in docs/architecture.md),
/// one thread.
fn new_detector() -> Detector {
    let mut d = Detector::builder()
        .add_family_bits(Family::tag_25h9(), DETECTOR_CORRECTS)
        .build()
        .expect("a detector with one family builds");
    d.set_thread_number(1);
    d.set_decimation(2.0);
    d.set_refine_edges(true);
    d.set_sigma(0.0);
    d
}

/// Every code of ours in `frame` (a code that names nothing of ours is
/// left out).
pub fn detect(frame: &RgbImage) -> Vec<CodeSeen> {
    let (w, h) = (frame.width() as usize, frame.height() as usize);
    if w < CODE_CELLS || h < CODE_CELLS {
        return Vec::new();
    }
    let Ok(mut image) = Image::zeros_with_alignment(w, h, 96) else {
        return Vec::new();
    };
    let stride = image.stride();
    let buf = image.as_slice_mut();
    for (y, row) in frame.as_raw().chunks_exact(w * 3).enumerate() {
        let out = &mut buf[y * stride..y * stride + w];
        for (o, p) in out.iter_mut().zip(row.chunks_exact(3)) {
            // Rec. 601 luma in integers.
            let l = 77 * u32::from(p[0]) + 150 * u32::from(p[1]) + 29 * u32::from(p[2]);
            *o = (l >> 8) as u8;
        }
    }
    DETECTOR.with(|cell| {
        let mut slot = cell.borrow_mut();
        let detector = slot.get_or_insert_with(new_detector);
        detector
            .detect(&image)
            .into_iter()
            .filter_map(|d| {
                let id = u16::try_from(d.id()).ok()?;
                named_by(id)?;
                let m = d.homography();
                let data = m.data();
                let homography = [
                    [data[0], data[1], data[2]],
                    [data[3], data[4], data[5]],
                    [data[6], data[7], data[8]],
                ];
                Some(CodeSeen {
                    id,
                    corrected: d.hamming(),
                    margin: d.decision_margin(),
                    homography,
                })
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_card_and_the_back_have_a_code_of_their_own() {
        let mut seen = std::collections::HashSet::new();
        for colour in Colour::ALL {
            for piece in Piece::ALL {
                let named = Named::Face(Card::new(colour, piece));
                let id = code_of(named);
                assert!(id < BACK_CODE);
                assert_eq!(named_by(id), Some(named));
                assert!(seen.insert(id));
            }
        }
        assert_eq!(named_by(code_of(Named::Back)), Some(Named::Back));
        assert_eq!(seen.len(), 30);
        for spare in DECK_CODES..35 {
            assert_eq!(named_by(spare), None);
        }
    }

    #[test]
    fn a_code_has_its_quiet_ring_and_black_border() {
        let table = family_table();
        assert_eq!(table.codes.len(), 35);
        assert_eq!(table.bits.len(), 25);
        for id in 0..35 {
            let cells = code_cells(id);
            for (r, row) in cells.iter().enumerate() {
                for (c, &white) in row.iter().enumerate() {
                    let ring = r.min(c).min(8 - r).min(8 - c);
                    match ring {
                        0 => assert!(white, "{id}: the quiet ring at {r},{c}"),
                        1 => assert!(!white, "{id}: the border at {r},{c}"),
                        _ => {}
                    }
                }
            }
        }
        // Two codes differ in at least nine data cells.
        for a in 0..35u16 {
            for b in 0..a {
                let (ca, cb) = (code_cells(a), code_cells(b));
                let differ = (0..9)
                    .flat_map(|r| (0..9).map(move |c| (r, c)))
                    .filter(|&(r, c)| ca[r][c] != cb[r][c])
                    .count();
                assert!(differ >= 9, "{a} {b}: {differ}");
            }
        }
    }
}
