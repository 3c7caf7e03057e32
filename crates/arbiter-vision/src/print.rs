//! The printable deck: card faces and the back drawn at print size
//! (63×88 mm at 300 dpi), A4 print sheets, and the corner code that camera
//! recognition reads off each rectified card.
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

pub mod pdf;

use std::io;
use std::path::{Path, PathBuf};

use image::{GrayImage, Luma, Rgb, RgbImage};
use imageproc::distance_transform::Norm;
use imageproc::drawing::{
    draw_filled_circle_mut, draw_filled_ellipse_mut, draw_filled_rect_mut, draw_polygon_mut,
};
use imageproc::point::Point;
use imageproc::rect::Rect;

use arbiter_core::table::{Card, Colour, Piece};

/// Card width in pixels: 63 mm at 300 dpi.
pub const CARD_W: u32 = 744;
/// Card height in pixels: 88 mm at 300 dpi.
pub const CARD_H: u32 = 1039;

/// A4 at 300 dpi.
pub const SHEET_W: u32 = 2480;
pub const SHEET_H: u32 = 3508;

/// The four En Prise colours, in the order the deck is exported.
pub const DECK_COLOURS: [Colour; 4] = [Colour::White, Colour::Black, Colour::Red, Colour::Blue];

/// The four Enochian armies, in turn order.
pub const ENOCHIAN_COLOURS: [Colour; 4] =
    [Colour::Blue, Colour::Red, Colour::Black, Colour::Yellow];

/// The cards of one printed Enochian army: its array (K Q R B N and four
/// pawns) and spares for promotions, 15 cards. An army promotes at most
/// three pawns (it must have lost one first, EN-PRO-2), a pawn becomes its
/// patron (one pawn per patron) or, on a throne, a Knight (EN-PRO-4): so
/// at most two Queens, Rooks or Bishops and four Knights stand at once,
/// and a promotion never waits for a captured card to come back.
pub const ENOCHIAN_ARMY: [(Piece, u8); 6] = [
    (Piece::King, 1),
    (Piece::Queen, 2),
    (Piece::Rook, 2),
    (Piece::Bishop, 2),
    (Piece::Knight, 4),
    (Piece::Pawn, 4),
];

// ---- geometry -------------------------------------------------------------

/// Corner radius of the card (3 mm).
const RADIUS: f32 = 36.0;
/// The border band: from this depth inside the card edge ...
const BAND_IN: f32 = 24.0;
/// ... to this one.
const BAND_OUT: f32 = 62.0;
/// Side of one code module.
const MODULE: u32 = 53;
/// Modules per side of the code grid.
const GRID: u32 = 4;
/// Offset of the code grid from the card's corner (leaves a quiet zone of
/// about half a module inside the band).
const CODE_AT: u32 = 90;
/// Side of the large central glyph.
const GLYPH: u32 = 400;

const WHITE: Rgb<u8> = Rgb([255, 255, 255]);
const INK: Rgb<u8> = Rgb([16, 16, 16]);
const CUT: Rgb<u8> = Rgb([190, 190, 190]);

fn ink(colour: Colour) -> Rgb<u8> {
    match colour {
        Colour::White => WHITE,
        Colour::Black => Rgb([28, 28, 28]),
        Colour::Red => Rgb([204, 32, 44]),
        Colour::Blue => Rgb([32, 78, 190]),
        Colour::Yellow => Rgb([244, 192, 16]),
    }
}

/// The colour a band or border line is drawn in (white's is black: white on
/// white would not show).
fn band_ink(colour: Colour) -> Rgb<u8> {
    match colour {
        Colour::White => INK,
        Colour::Yellow => Rgb([214, 160, 0]),
        c => ink(c),
    }
}

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

// ---- the card body --------------------------------------------------------

/// How far inside the rounded card outline the pixel centre lies (negative
/// outside).
fn depth(x: u32, y: u32) -> f32 {
    let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
    let (w, h) = (CARD_W as f32, CARD_H as f32);
    let dx = px.min(w - px);
    let dy = py.min(h - py);
    if dx < RADIUS && dy < RADIUS {
        let (ex, ey) = (RADIUS - dx, RADIUS - dy);
        RADIUS - (ex * ex + ey * ey).sqrt()
    } else {
        dx.min(dy)
    }
}

/// Calls `f` with every pixel less than `within` deep and its depth.
fn for_edge_pixels(within: f32, mut f: impl FnMut(u32, u32, f32)) {
    let reach = (within.max(RADIUS).ceil() as u32 + 1).min(CARD_W / 2);
    for y in 0..CARD_H {
        let full_row = y < reach || y >= CARD_H - reach;
        let xs = (0..CARD_W).filter(|&x| full_row || x < reach || x >= CARD_W - reach);
        for x in xs {
            let d = depth(x, y);
            if d < within {
                f(x, y, d);
            }
        }
    }
}

/// A blank card: white, with a light cut line along the rounded outline.
fn blank() -> RgbImage {
    let mut img = RgbImage::from_pixel(CARD_W, CARD_H, WHITE);
    for_edge_pixels(2.0, |x, y, d| {
        if d >= 0.0 {
            img.put_pixel(x, y, CUT);
        }
    });
    img
}

/// Points along the centre line of the band, about `step` apart.
fn band_centre_points(step: f32) -> Vec<(f32, f32)> {
    let inset = (BAND_IN + BAND_OUT) / 2.0;
    let r = (RADIUS - inset).max(0.0);
    let (x0, y0) = (inset, inset);
    let (x1, y1) = (CARD_W as f32 - inset, CARD_H as f32 - inset);
    let mut pts = Vec::new();
    let mut side = |(ax, ay): (f32, f32), (bx, by): (f32, f32)| {
        let len = ((bx - ax).powi(2) + (by - ay).powi(2)).sqrt();
        let n = (len / step).round().max(1.0) as usize;
        for i in 0..n {
            let t = i as f32 / n as f32;
            pts.push((ax + (bx - ax) * t, ay + (by - ay) * t));
        }
    };
    side((x0 + r, y0), (x1 - r, y0));
    side((x1, y0 + r), (x1, y1 - r));
    side((x1 - r, y1), (x0 + r, y1));
    side((x0, y1 - r), (x0, y0 + r));
    pts
}

fn draw_band(img: &mut RgbImage, colour: Colour) {
    let c = band_ink(colour);
    let line = |img: &mut RgbImage, from: f32, to: f32| {
        for_edge_pixels(to, |x, y, d| {
            if d >= from {
                img.put_pixel(x, y, c);
            }
        });
    };
    match colour {
        Colour::White => line(img, BAND_IN + 14.0, BAND_IN + 22.0),
        Colour::Black => line(img, BAND_IN, BAND_OUT),
        Colour::Yellow => {
            line(img, BAND_IN + 4.0, BAND_IN + 12.0);
            line(img, BAND_OUT - 12.0, BAND_OUT - 4.0);
        }
        Colour::Red => {
            line(img, BAND_IN, BAND_IN + 4.0);
            line(img, BAND_OUT - 4.0, BAND_OUT);
            for_edge_pixels(BAND_OUT, |x, y, d| {
                if d >= BAND_IN && (x + y) % 26 < 13 {
                    img.put_pixel(x, y, c);
                }
            });
        }
        Colour::Blue => {
            for (x, y) in band_centre_points(34.0) {
                draw_filled_circle_mut(img, (x.round() as i32, y.round() as i32), 12, c);
            }
        }
    }
}

// ---- piece glyphs ---------------------------------------------------------

/// A shape in unit coordinates (x right, y down, the glyph box is 0..1).
enum Shape {
    Poly(&'static [(f32, f32)]),
    Circle(f32, f32, f32),
    Ellipse(f32, f32, f32, f32),
    Rect(f32, f32, f32, f32),
}

use Shape::{Circle, Ellipse, Poly, Rect as R};

/// The plinth every piece stands on.
const BASE: [Shape; 2] = [
    R(0.18, 0.86, 0.82, 0.96),
    Poly(&[(0.26, 0.80), (0.74, 0.80), (0.80, 0.87), (0.20, 0.87)]),
];

fn silhouette(piece: Piece) -> Vec<Shape> {
    let mut shapes: Vec<Shape> = BASE.into();
    shapes.extend(match piece {
        Piece::King => vec![
            Poly(&[(0.28, 0.81), (0.72, 0.81), (0.63, 0.50), (0.37, 0.50)]),
            R(0.30, 0.44, 0.70, 0.51),
            Ellipse(0.5, 0.45, 0.21, 0.15),
            R(0.45, 0.05, 0.55, 0.34),
            R(0.36, 0.12, 0.64, 0.21),
        ],
        Piece::Queen => vec![
            Poly(&[(0.28, 0.81), (0.72, 0.81), (0.63, 0.50), (0.37, 0.50)]),
            R(0.30, 0.44, 0.70, 0.51),
            Poly(&[
                (0.29, 0.46),
                (0.17, 0.20),
                (0.33, 0.34),
                (0.35, 0.13),
                (0.45, 0.32),
                (0.50, 0.08),
                (0.55, 0.32),
                (0.65, 0.13),
                (0.67, 0.34),
                (0.83, 0.20),
                (0.71, 0.46),
            ]),
            Circle(0.17, 0.19, 0.045),
            Circle(0.35, 0.12, 0.045),
            Circle(0.50, 0.07, 0.045),
            Circle(0.65, 0.12, 0.045),
            Circle(0.83, 0.19, 0.045),
        ],
        Piece::Rook => vec![
            R(0.30, 0.36, 0.70, 0.81),
            Poly(&[(0.22, 0.24), (0.78, 0.24), (0.70, 0.38), (0.30, 0.38)]),
            R(0.22, 0.10, 0.35, 0.25),
            R(0.435, 0.10, 0.565, 0.25),
            R(0.65, 0.10, 0.78, 0.25),
        ],
        Piece::Bishop => vec![
            Poly(&[(0.30, 0.81), (0.70, 0.81), (0.60, 0.60), (0.40, 0.60)]),
            R(0.33, 0.56, 0.67, 0.63),
            Ellipse(0.5, 0.41, 0.18, 0.18),
            Poly(&[(0.34, 0.36), (0.66, 0.36), (0.5, 0.15)]),
            Circle(0.5, 0.13, 0.05),
        ],
        Piece::Knight => vec![Poly(&[
            (0.27, 0.81),
            (0.33, 0.66),
            (0.46, 0.55),
            (0.38, 0.52),
            (0.26, 0.57),
            (0.16, 0.55),
            (0.12, 0.46),
            (0.20, 0.36),
            (0.33, 0.24),
            (0.36, 0.10),
            (0.45, 0.19),
            (0.54, 0.19),
            (0.68, 0.26),
            (0.78, 0.42),
            (0.81, 0.62),
            (0.77, 0.81),
        ])],
        Piece::Pawn => vec![
            Poly(&[(0.31, 0.81), (0.69, 0.81), (0.58, 0.52), (0.42, 0.52)]),
            R(0.35, 0.46, 0.65, 0.53),
            Circle(0.5, 0.33, 0.15),
        ],
    });
    shapes
}

/// Inner lines drawn in the detail colour over the silhouette.
fn details(piece: Piece) -> Vec<Shape> {
    let mut shapes = vec![R(0.24, 0.855, 0.76, 0.875)];
    shapes.extend(match piece {
        Piece::King | Piece::Queen => vec![R(0.32, 0.52, 0.68, 0.54)],
        Piece::Rook => vec![R(0.30, 0.40, 0.70, 0.42), R(0.30, 0.76, 0.70, 0.78)],
        Piece::Bishop => vec![Poly(&[
            (0.43, 0.31),
            (0.46, 0.28),
            (0.60, 0.42),
            (0.57, 0.45),
        ])],
        Piece::Knight => vec![
            Circle(0.33, 0.32, 0.028),
            Circle(0.17, 0.48, 0.015),
            Poly(&[(0.56, 0.24), (0.60, 0.23), (0.73, 0.50), (0.69, 0.51)]),
        ],
        Piece::Pawn => vec![],
    });
    shapes
}

fn draw_shapes(mask: &mut GrayImage, shapes: &[Shape], size: f32) {
    let p = |v: f32| (v * size).round() as i32;
    let on = Luma([255u8]);
    for shape in shapes {
        match *shape {
            Poly(pts) => {
                let pts: Vec<Point<i32>> =
                    pts.iter().map(|&(x, y)| Point::new(p(x), p(y))).collect();
                draw_polygon_mut(mask, &pts, on);
            }
            Circle(x, y, r) => draw_filled_circle_mut(mask, (p(x), p(y)), p(r), on),
            Ellipse(x, y, rx, ry) => draw_filled_ellipse_mut(mask, (p(x), p(y)), p(rx), p(ry), on),
            R(x0, y0, x1, y1) => {
                let (w, h) = ((p(x1) - p(x0)).max(1), (p(y1) - p(y0)).max(1));
                draw_filled_rect_mut(mask, Rect::at(p(x0), p(y0)).of_size(w as u32, h as u32), on);
            }
        }
    }
}

/// Draws a piece glyph of side `size` with its top-left corner at (x0, y0),
/// turned 180° if `flip`.
fn draw_glyph(img: &mut RgbImage, card: Card, x0: u32, y0: u32, size: u32, flip: bool) {
    let s = size as f32;
    let mut mask = GrayImage::new(size, size);
    draw_shapes(&mut mask, &silhouette(card.piece), s);
    let mut detail = GrayImage::new(size, size);
    draw_shapes(&mut detail, &details(card.piece), s);
    // White pieces get a thick outline, the others a firm one.
    let outline = match card.colour {
        Colour::White => size / 34,
        _ => size / 60,
    }
    .clamp(1, 255) as u8;
    let inner = imageproc::morphology::erode(&mask, Norm::LInf, outline);
    let fill = ink(card.colour);
    let detail_ink = match card.colour {
        Colour::Black | Colour::Red | Colour::Blue => WHITE,
        _ => INK,
    };
    for y in 0..size {
        for x in 0..size {
            if mask.get_pixel(x, y)[0] == 0 {
                continue;
            }
            let c = if inner.get_pixel(x, y)[0] == 0 {
                INK
            } else if detail.get_pixel(x, y)[0] != 0 {
                detail_ink
            } else {
                fill
            };
            let (tx, ty) = if flip {
                (size - 1 - x, size - 1 - y)
            } else {
                (x, y)
            };
            img.put_pixel(x0 + tx, y0 + ty, c);
        }
    }
}

// ---- faces, back, sheets --------------------------------------------------

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

/// Every card of the four En Prise decks, in deck order (64 cards).
pub fn full_deck() -> Vec<Card> {
    deck_of(&DECK_COLOURS, &arbiter_core::table::DECK)
}

/// Every card of the four Enochian armies, in turn order (60 cards).
pub fn enochian_deck() -> Vec<Card> {
    deck_of(&ENOCHIAN_COLOURS, &ENOCHIAN_ARMY)
}

fn deck_of(colours: &[Colour], counts: &[(Piece, u8)]) -> Vec<Card> {
    colours
        .iter()
        .flat_map(|&colour| {
            counts.iter().flat_map(move |&(piece, n)| {
                std::iter::repeat_n(Card::new(colour, piece), usize::from(n))
            })
        })
        .collect()
}

/// One A4 sheet with up to nine cards (3×3, edge to edge, centred) and cut
/// marks in the margins.
fn sheet(cards: &[&RgbImage]) -> RgbImage {
    let raw = vec![255u8; (SHEET_W * SHEET_H * 3) as usize];
    let mut img = RgbImage::from_raw(SHEET_W, SHEET_H, raw).expect("buffer fits");
    let left = (SHEET_W - 3 * CARD_W) / 2;
    let top = (SHEET_H - 3 * CARD_H) / 2;
    for (i, card) in cards.iter().take(9).enumerate() {
        let (col, row) = (i as u32 % 3, i as u32 / 3);
        // Row by row: `imageops::replace` is slow in unoptimised builds.
        let (x0, y0) = (left + col * CARD_W, top + row * CARD_H);
        let stride = (SHEET_W * 3) as usize;
        let row_len = (CARD_W * 3) as usize;
        let out: &mut [u8] = &mut img;
        for (y, src) in card.as_raw().chunks_exact(row_len).enumerate() {
            let at = (y0 as usize + y) * stride + x0 as usize * 3;
            out[at..at + row_len].copy_from_slice(src);
        }
    }
    let mark = 70u32;
    let gap = 12u32;
    for i in 0..=3 {
        let x = left + i * CARD_W;
        let y = top + i * CARD_H;
        let tick_v = Rect::at(x as i32 - 1, (top - gap - mark) as i32).of_size(3, mark);
        draw_filled_rect_mut(&mut img, tick_v, INK);
        let tick_v = Rect::at(x as i32 - 1, (top + 3 * CARD_H + gap) as i32).of_size(3, mark);
        draw_filled_rect_mut(&mut img, tick_v, INK);
        let tick_h = Rect::at((left - gap - mark) as i32, y as i32 - 1).of_size(mark, 3);
        draw_filled_rect_mut(&mut img, tick_h, INK);
        let tick_h = Rect::at((left + 3 * CARD_W + gap) as i32, y as i32 - 1).of_size(mark, 3);
        draw_filled_rect_mut(&mut img, tick_h, INK);
    }
    img
}

/// The print resolution every face and sheet is drawn at.
pub const DPI: u32 = 300;

/// Writes `img` as a PNG that carries its resolution ([`DPI`], in the
/// `pHYs` chunk), so that a print dialog sizes a card at 63 × 88 mm and a
/// sheet at A4 rather than at the screen's idea of a pixel.
fn save(img: &RgbImage, path: &Path) -> io::Result<()> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut png = png::Encoder::new(file, img.width(), img.height());
    png.set_color(png::ColorType::Rgb);
    png.set_depth(png::BitDepth::Eight);
    // Pixels per metre: 300 dpi is 11,811.
    let per_metre = (f64::from(DPI) / 0.0254).round() as u32;
    png.set_pixel_dims(Some(png::PixelDimensions {
        xppu: per_metre,
        yppu: per_metre,
        unit: png::Unit::Meter,
    }));
    let mut writer = png.write_header().map_err(io::Error::other)?;
    writer
        .write_image_data(img.as_raw())
        .map_err(io::Error::other)?;
    writer.finish().map_err(io::Error::other)
}

/// Writes `wK.png` … `uP.png` (the 24 En Prise faces) and `yK.png` …
/// `yP.png` (Yellow, which only Enochian uses), `back.png`, and in `sheets/`
/// the A4 sheets of the En Prise deck (`sheet-1.png` …, 64 faces, nine to a
/// sheet), of the Enochian armies (`enochian-1.png` …, 60 faces) and
/// `sheet-back.png` (nine backs, for the reverse side), and returns the
/// paths written, cards first. The faces stand alone in `DIR` so that
/// `arbiter deck learn --faces DIR` reads them as they are. The En Prise
/// files come first and are what they always were.
pub fn export(dir: &Path) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut paths = Vec::new();
    let mut faces: Vec<(Card, RgbImage)> = Vec::new();
    for &colour in DECK_COLOURS.iter().chain(&[Colour::Yellow]) {
        for piece in Piece::ALL {
            let card = Card::new(colour, piece);
            let img = face(card);
            let path = dir.join(format!("{card}.png"));
            save(&img, &path)?;
            paths.push(path);
            faces.push((card, img));
        }
    }
    let back = back();
    let path = dir.join("back.png");
    save(&back, &path)?;
    paths.push(path);

    let sheets = dir.join("sheets");
    std::fs::create_dir_all(&sheets)?;
    for (name, deck) in [("sheet", full_deck()), ("enochian", enochian_deck())] {
        let images: Vec<&RgbImage> = deck
            .iter()
            .filter_map(|c| faces.iter().find(|(k, _)| k == c).map(|(_, img)| img))
            .collect();
        for (i, chunk) in images.chunks(9).enumerate() {
            let path = sheets.join(format!("{name}-{}.png", i + 1));
            save(&sheet(chunk), &path)?;
            paths.push(path);
        }
    }
    let path = sheets.join("sheet-back.png");
    save(&sheet(&[&back; 9]), &path)?;
    paths.push(path);
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::imageops::{self, FilterType};
    use std::sync::OnceLock;

    fn all_cards() -> Vec<Card> {
        Colour::ALL
            .iter()
            .flat_map(|&c| Piece::ALL.map(|p| Card::new(c, p)))
            .collect()
    }

    /// Every face (all five colours), rendered once for all tests.
    fn faces() -> &'static [(Card, RgbImage)] {
        static FACES: OnceLock<Vec<(Card, RgbImage)>> = OnceLock::new();
        FACES.get_or_init(|| all_cards().into_iter().map(|c| (c, face(c))).collect())
    }

    /// Averages `k`×`k` blocks (a cheap first step down from print size).
    fn box_reduce(img: &RgbImage, k: u32) -> RgbImage {
        RgbImage::from_fn(img.width() / k, img.height() / k, |x, y| {
            let mut sum = [0u32; 3];
            for dy in 0..k {
                for dx in 0..k {
                    let p = img.get_pixel(x * k + dx, y * k + dy);
                    for i in 0..3 {
                        sum[i] += u32::from(p[i]);
                    }
                }
            }
            Rgb(sum.map(|v| (v / (k * k)) as u8))
        })
    }

    /// The card downscaled to `w` pixels wide: box-averaged by 3, then
    /// bilinear.
    fn shrink(img: &RgbImage, w: u32) -> RgbImage {
        let h = (w as f32 * CARD_H as f32 / CARD_W as f32).round() as u32;
        let img = if img.width() >= 3 * w {
            box_reduce(img, 3)
        } else {
            img.clone()
        };
        imageops::resize(&img, w, h, FilterType::Triangle)
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

    #[test]
    fn full_deck_is_sixty_four_cards() {
        let deck = full_deck();
        assert_eq!(deck.len(), 64);
        assert_eq!(deck.iter().filter(|c| c.piece == Piece::Pawn).count(), 32);
    }

    #[test]
    fn enochian_deck_is_four_armies_of_fifteen() {
        let deck = enochian_deck();
        assert_eq!(deck.len(), 60);
        for colour in ENOCHIAN_COLOURS {
            let n = |p| deck.iter().filter(|c| **c == Card::new(colour, p)).count();
            assert_eq!(n(Piece::King), 1);
            assert_eq!(n(Piece::Pawn), 4);
            assert_eq!(n(Piece::Knight), 4);
        }
        assert!(deck.iter().all(|c| c.colour != Colour::White));
    }

    #[test]
    fn export_writes_cards_and_sheets() {
        let dir = std::env::temp_dir().join(format!("arbiter-deck-{}", std::process::id()));
        let paths = export(&dir).unwrap();
        let names: Vec<String> = paths
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names[0], "wK.png");
        assert_eq!(names[23], "uP.png");
        assert_eq!(names[24], "yK.png");
        assert_eq!(names[29], "yP.png");
        assert_eq!(names[30], "back.png");
        assert_eq!(names[31], "sheet-1.png");
        assert_eq!(names[38], "sheet-8.png");
        assert_eq!(names[39], "enochian-1.png");
        assert_eq!(names[45], "enochian-7.png");
        assert_eq!(names.len(), 31 + 8 + 7 + 1);
        for (path, name) in paths.iter().zip(&names) {
            let (w, h) = image::image_dimensions(path).unwrap();
            if name.starts_with("sheet-") || name.starts_with("enochian-") {
                assert_eq!((w, h), (SHEET_W, SHEET_H), "{name}");
            } else {
                assert_eq!((w, h), (CARD_W, CARD_H), "{name}");
            }
        }
        let wk = image::open(&paths[0]).unwrap().to_rgb8();
        assert_eq!(
            read_corner_code(&wk),
            Some(Card::new(Colour::White, Piece::King))
        );
        let yn = image::open(&paths[28]).unwrap().to_rgb8();
        assert_eq!(
            read_corner_code(&yn),
            Some(Card::new(Colour::Yellow, Piece::Knight))
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
