//! The deck printed before the coded deck: the same glyphs and colour
//! bands, and a corner code of the project's own that the hand-made reader
//! reads off each rectified card. Kept so that a deck printed then can
//! still be learned and read (`arbiter deck learn`), and for the tests of
//! the reader that learned decks go through.
//!
//! A face is a white rounded-corner card with
//! - a border band in the player's colour whose *pattern* also names the
//!   colour (white: a thin plain line; black: a thick solid band; red:
//!   diagonal hatching; blue: a dotted band; yellow: a double line), so the
//!   colours part without hue;
//! - a large piece silhouette in the centre, filled in the player's colour
//!   with a dark outline, and small index silhouettes in the other two corners;
//! - the corner code in the top-left corner and, turned 180°, in the
//!   bottom-right corner, so either upright orientation shows a code the same
//!   way up in the top-left.
//!
//! The corner code is a 4×4 grid of square modules (module = 53 px, 1/14 of
//! the card width) on a white quiet zone. The grid corners are the finder:
//! top-left, top-right and bottom-left black, bottom-right white; they give
//! the reader its black and white levels. The other 12 modules, row by row,
//! carry a 12-bit word: bits 0–4 the card index (colour × 6 + piece, colours
//! and pieces in the order of `Colour::ALL` and `Piece::ALL`), bits 5–11 seven
//! parity checks over the index (a linear [12,5,4] code: one wrong module is
//! corrected, two are detected), XORed with a fixed whitening mask so no card
//! is an all-white grid. A set bit is a black module.

use image::{Rgb, RgbImage};
use imageproc::drawing::draw_filled_rect_mut;
use imageproc::rect::Rect;

use super::{CARD_H, CARD_W, INK, WHITE, blank, depth, draw_band, draw_glyph};
use arbiter_core::table::{Card, Colour, Piece};

/// Side of one code module.
const MODULE: u32 = 53;
/// Modules per side of the code grid.
const GRID: u32 = 4;
/// Offset of the code grid from the card's corner (leaves a quiet zone of
/// about half a module inside the band).
const CODE_AT: u32 = 90;
/// Side of the large central glyph.
const GLYPH: u32 = 400;

// ---- the corner code ------------------------------------------------------

/// Parity masks for the seven check bits (each check bit is the parity of the
/// index bits under its mask); the resulting code has minimum distance 4.
const CHECK_MASKS: [u16; 7] = [18, 1, 31, 29, 13, 22, 7];
/// XORed onto every word so that index 0 is not a blank grid.
const WHITENING: u16 = 0b1010_0110_1001;
/// Finder modules (row, col, black).
const FINDER: [(u32, u32, bool); 4] = [(0, 0, true), (0, 3, true), (3, 0, true), (3, 3, false)];
/// Number of card indices (5 colours × 6 pieces).
const INDICES: u16 = 30;

fn card_index(card: Card) -> u16 {
    let c = Colour::ALL
        .iter()
        .position(|&k| k == card.colour)
        .unwrap_or(0);
    let p = Piece::ALL
        .iter()
        .position(|&k| k == card.piece)
        .unwrap_or(0);
    (c * 6 + p) as u16
}

fn index_card(index: u16) -> Option<Card> {
    let colour = *Colour::ALL.get(usize::from(index / 6))?;
    let piece = Piece::ALL[usize::from(index % 6)];
    Some(Card::new(colour, piece))
}

/// The 12-bit word for a card index (before whitening).
fn encode(index: u16) -> u16 {
    let mut word = index & 0x1f;
    for (j, mask) in CHECK_MASKS.iter().enumerate() {
        let parity = (index & mask).count_ones() as u16 & 1;
        word |= parity << (5 + j);
    }
    word ^ WHITENING
}

/// The data modules (row, col) in bit order: row by row, finder corners
/// skipped.
fn data_modules() -> impl Iterator<Item = (u32, u32)> {
    (0..GRID)
        .flat_map(|r| (0..GRID).map(move |c| (r, c)))
        .filter(|&(r, c)| !FINDER.iter().any(|&(fr, fc, _)| fr == r && fc == c))
}

/// Which modules of the grid are black, indexed `[row][col]`.
fn code_modules(card: Card) -> [[bool; 4]; 4] {
    let mut grid = [[false; 4]; 4];
    for &(r, c, black) in &FINDER {
        grid[r as usize][c as usize] = black;
    }
    let word = encode(card_index(card));
    for (bit, (r, c)) in data_modules().enumerate() {
        grid[r as usize][c as usize] = word >> bit & 1 == 1;
    }
    grid
}

fn draw_code(img: &mut RgbImage, card: Card) {
    let grid = code_modules(card);
    let span = GRID * MODULE;
    for r in 0..GRID {
        for c in 0..GRID {
            if !grid[r as usize][c as usize] {
                continue;
            }
            // Top-left, upright.
            let x = CODE_AT + c * MODULE;
            let y = CODE_AT + r * MODULE;
            draw_filled_rect_mut(
                img,
                Rect::at(x as i32, y as i32).of_size(MODULE, MODULE),
                INK,
            );
            // Bottom-right, turned 180°.
            let x = CARD_W - CODE_AT - span + (GRID - 1 - c) * MODULE;
            let y = CARD_H - CODE_AT - span + (GRID - 1 - r) * MODULE;
            draw_filled_rect_mut(
                img,
                Rect::at(x as i32, y as i32).of_size(MODULE, MODULE),
                INK,
            );
        }
    }
}

fn luma(p: &Rgb<u8>) -> f32 {
    0.299 * f32::from(p[0]) + 0.587 * f32::from(p[1]) + 0.114 * f32::from(p[2])
}

/// Mean luma of the image over a rectangle given in card pixels
/// (`CARD_W`×`CARD_H`), scaled to the image.
fn mean_luma(img: &RgbImage, x0: f32, y0: f32, x1: f32, y1: f32) -> f32 {
    let sx = img.width() as f32 / CARD_W as f32;
    let sy = img.height() as f32 / CARD_H as f32;
    let (w, h) = (img.width() as i64, img.height() as i64);
    let clamp = |v: f32, max: i64| (v.floor() as i64).clamp(0, max - 1);
    let (ix0, ix1) = (clamp(x0 * sx, w), clamp(x1 * sx, w));
    let (iy0, iy1) = (clamp(y0 * sy, h), clamp(y1 * sy, h));
    let (mut sum, mut n) = (0.0, 0u32);
    for y in iy0..=iy1.max(iy0) {
        for x in ix0..=ix1.max(ix0) {
            sum += luma(img.get_pixel(x as u32, y as u32));
            n += 1;
        }
    }
    sum / n as f32
}

/// Samples the code grid in one corner (`flip`: the bottom-right one, read
/// turned 180°) and decodes it.
fn read_corner(img: &RgbImage, flip: bool) -> Option<Card> {
    let m = MODULE as f32;
    let sample = |r: u32, c: u32| {
        // The central half of the module.
        let x = CODE_AT as f32 + c as f32 * m + m * 0.25;
        let y = CODE_AT as f32 + r as f32 * m + m * 0.25;
        let (mut x0, mut y0, mut x1, mut y1) = (x, y, x + m * 0.5, y + m * 0.5);
        if flip {
            (x0, x1) = (CARD_W as f32 - x1, CARD_W as f32 - x0);
            (y0, y1) = (CARD_H as f32 - y1, CARD_H as f32 - y0);
        }
        mean_luma(img, x0, y0, x1, y1)
    };
    let mut levels = [[0.0f32; 4]; 4];
    for (r, row) in levels.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            *v = sample(r as u32, c as u32);
        }
    }
    let blacks: Vec<f32> = FINDER
        .iter()
        .filter(|f| f.2)
        .map(|&(r, c, _)| levels[r as usize][c as usize])
        .collect();
    let black = blacks.iter().sum::<f32>() / blacks.len() as f32;
    let darkest_black = blacks.iter().cloned().fold(f32::MIN, f32::max);
    let white = levels[3][3];
    // The finder must show real contrast, every black finder module darker
    // than the threshold.
    if white - black < 48.0 {
        return None;
    }
    let threshold = (black + white) / 2.0;
    if darkest_black >= threshold {
        return None;
    }
    let mut word = 0u16;
    for (bit, (r, c)) in data_modules().enumerate() {
        if levels[r as usize][c as usize] < threshold {
            word |= 1 << bit;
        }
    }
    decode(word)
}

/// The card whose word is within one module of `word`, if exactly one is.
fn decode(word: u16) -> Option<Card> {
    let mut best: Option<(u32, u16)> = None;
    let mut tie = false;
    for index in 0..INDICES {
        let d = (encode(index) ^ word).count_ones();
        match best {
            Some((bd, _)) if d > bd => {}
            Some((bd, _)) if d == bd => tie = true,
            _ => {
                best = Some((d, index));
                tie = false;
            }
        }
    }
    match best {
        Some((d, index)) if d <= 1 && !tie => index_card(index),
        _ => None,
    }
}

/// Reads the corner code of one card image rectified to portrait (any scale,
/// either upright orientation). Both corners are read; a card is returned
/// when at least one decodes and they do not disagree.
pub fn read_corner_code(card: &RgbImage) -> Option<Card> {
    if card.width() < 8 || card.height() < 8 {
        return None;
    }
    match (read_corner(card, false), read_corner(card, true)) {
        (Some(a), Some(b)) if a != b => None,
        (a, b) => a.or(b),
    }
}

/// Reads the corner code in one corner only of a card image rectified to
/// portrait: the top-left one, or (`bottom_right`) the one turned 180° in
/// the bottom-right. For a card partly covered (a throne's partner under
/// its king), where the other corner shows another card.
pub fn read_corner_code_at(card: &RgbImage, bottom_right: bool) -> Option<Card> {
    if card.width() < 8 || card.height() < 8 {
        return None;
    }
    read_corner(card, bottom_right)
}

/// Where the two corner codes' centres lie on a card, as fractions of its
/// width and height from the top-left: top-left code, bottom-right code.
pub fn corner_code_centres() -> [(f32, f32); 2] {
    let mid = CODE_AT as f32 + (GRID * MODULE) as f32 / 2.0;
    let (u, v) = (mid / CARD_W as f32, mid / CARD_H as f32);
    [(u, v), (1.0 - u, 1.0 - v)]
}

/// How far the corner code reaches in from the card's edges, as fractions
/// of its width and height (the code grid's far side).
pub fn corner_code_reach() -> (f32, f32) {
    let far = (CODE_AT + GRID * MODULE) as f32;
    (far / CARD_W as f32, far / CARD_H as f32)
}

// ---- face and back --------------------------------------------------------

/// The face of a card at print size.
pub fn face(card: Card) -> RgbImage {
    let mut img = blank();
    draw_band(&mut img, card.colour);
    draw_code(&mut img, card);
    let span = GRID * MODULE;
    // The large central glyph.
    draw_glyph(
        &mut img,
        card,
        (CARD_W - GLYPH) / 2,
        (CARD_H - GLYPH) / 2,
        GLYPH,
        false,
    );
    // Small indices in the two corners the codes leave free.
    draw_glyph(
        &mut img,
        card,
        CARD_W - CODE_AT - span,
        CODE_AT,
        span,
        false,
    );
    draw_glyph(&mut img, card, CODE_AT, CARD_H - CODE_AT - span, span, true);
    img
}

/// The back of every card: dark blue with a white frame and a lattice of
/// rings, symmetric under 180° (and mirror) turns; its corners are plain dark
/// so no corner code can be read off it.
pub fn back() -> RgbImage {
    let navy = Rgb([18, 34, 92]);
    let mut img = blank();
    let (cx, cy) = (CARD_W as f32 / 2.0, CARD_H as f32 / 2.0);
    // The lattice sits in an oval in the middle, away from the corners.
    let (ox, oy) = (CARD_W as f32 * 0.36, CARD_H as f32 * 0.30);
    let cell = 62.0f32;
    for y in 0..CARD_H {
        for x in 0..CARD_W {
            let d = depth(x, y);
            if d < 2.0 {
                continue;
            }
            let (px, py) = (x as f32 + 0.5 - cx, y as f32 + 0.5 - cy);
            let frame = (14.0..22.0).contains(&d);
            let oval = (px / ox).powi(2) + (py / oy).powi(2);
            let ring_edge = (0.92..1.0).contains(&oval);
            let lattice = oval < 0.92 && {
                // Rings centred on a square lattice (and on the centre).
                let gx = px - (px / cell).round() * cell;
                let gy = py - (py / cell).round() * cell;
                let r = (gx * gx + gy * gy).sqrt();
                (20.0..27.0).contains(&r)
            };
            let c = if frame || ring_edge || lattice {
                WHITE
            } else {
                navy
            };
            img.put_pixel(x, y, c);
        }
    }
    img
}

#[cfg(test)]
mod tests {
    use super::super::tests::{all_cards, box_reduce, shrink};
    use super::*;
    use image::imageops;
    use std::sync::OnceLock;

    /// Every face (all five colours), rendered once for all tests.
    fn faces() -> &'static [(Card, RgbImage)] {
        static FACES: OnceLock<Vec<(Card, RgbImage)>> = OnceLock::new();
        FACES.get_or_init(|| all_cards().into_iter().map(|c| (c, face(c))).collect())
    }

    #[test]
    fn code_has_distance_four_and_distinct_words() {
        for a in 0..INDICES {
            for b in 0..a {
                assert!((encode(a) ^ encode(b)).count_ones() >= 4, "{a} {b}");
            }
            assert_eq!(decode(encode(a)), index_card(a));
            for bit in 0..12 {
                assert_eq!(decode(encode(a) ^ 1 << bit), index_card(a));
            }
        }
        for card in all_cards() {
            assert_eq!(index_card(card_index(card)), Some(card));
        }
    }

    #[test]
    fn every_face_reads_back() {
        for (card, img) in faces() {
            let card = Some(*card);
            assert_eq!(read_corner_code(img), card, "full size");
            assert_eq!(read_corner_code(&imageops::rotate180(img)), card, "rotated");
            let third = box_reduce(img, 3);
            let small = shrink(&third, 120);
            assert_eq!(read_corner_code(&small), card, "120 px");
            assert_eq!(
                read_corner_code(&imageops::rotate180(&small)),
                card,
                "120 px rotated"
            );
            let noisy = imageproc::noise::gaussian_noise(&small, 0.0, 18.0, 7);
            assert_eq!(read_corner_code(&noisy), card, "120 px noisy");
            let tiny = shrink(&third, 60);
            assert_eq!(read_corner_code(&tiny), card, "60 px");
            let tiny = imageproc::noise::gaussian_noise(&tiny, 0.0, 10.0, 11);
            assert_eq!(
                read_corner_code(&imageops::rotate180(&tiny)),
                card,
                "60 px noisy rotated"
            );
        }
    }

    #[test]
    fn reads_with_one_corner_covered() {
        let (card, img) = &faces()[9];
        let mut small = shrink(img, 120);
        // A thumb over the top-left corner.
        draw_filled_rect_mut(
            &mut small,
            Rect::at(0, 0).of_size(50, 50),
            Rgb([200, 150, 120]),
        );
        assert_eq!(read_corner_code(&small), Some(*card));
    }

    #[test]
    fn back_and_blank_read_as_none() {
        let b = back();
        assert_eq!(read_corner_code(&b), None);
        assert_eq!(read_corner_code(&imageops::rotate180(&b)), None);
        assert_eq!(read_corner_code(&shrink(&b, 120)), None);
        assert_eq!(read_corner_code(&blank()), None);
        assert_eq!(read_corner_code(&RgbImage::new(60, 84)), None);
        // The back differs from every face.
        for (_, img) in faces() {
            assert!(img.as_raw() != b.as_raw());
        }
    }

    #[test]
    fn different_cards_render_differently() {
        let faces = faces();
        for (i, (a, ia)) in faces.iter().enumerate() {
            assert_eq!((ia.width(), ia.height()), (CARD_W, CARD_H));
            for (b, ib) in &faces[..i] {
                assert!(ia.as_raw() != ib.as_raw(), "{a} and {b} look the same");
            }
        }
    }
}
