//! The printable deck: card faces and the back drawn at print size
//! (63×88 mm at 300 dpi), A4 print sheets, and the same as a PDF
//! ([`pdf`]).
//!
//! The deck is drawn for the camera as well as for people. Every face and
//! the back carry two fiducial codes ([`crate::codes`]: AprilTag `tag25h9`),
//! one upright in the top-left corner and one turned 180° in the
//! bottom-right, each in a white quiet ring; the camera finds and names a
//! card by them alone. For people a face shows
//! - the piece twice, large, in the two corners the codes leave free (the
//!   second turned 180°, so either end up reads the same), filled in the
//!   player's colour with a dark outline;
//! - a sash across the middle in the player's colour whose *pattern* also
//!   names the colour (white: a thin plain line; black: a solid band; red:
//!   diagonal hatching; blue: dots; yellow: a double line), so the colours
//!   part without hue.
//!
//! The back is dark blue with a lattice of rings, its two codes on white.
//!
//! [`classic`] is the deck printed before the codes (a corner code of the
//! project's own), kept so that such a deck can still be learned and read.

pub mod classic;
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

use crate::codes::{self, CODE_CELLS, CodeLayout, Named};
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
pub(crate) const RADIUS: f32 = 36.0;
/// The border band: from this depth inside the card edge ...
pub(crate) const BAND_IN: f32 = 24.0;
/// ... to this one.
pub(crate) const BAND_OUT: f32 = 62.0;

pub(crate) const WHITE: Rgb<u8> = Rgb([255, 255, 255]);
pub(crate) const INK: Rgb<u8> = Rgb([16, 16, 16]);
const CUT: Rgb<u8> = Rgb([190, 190, 190]);

pub(crate) fn ink(colour: Colour) -> Rgb<u8> {
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
pub(crate) fn band_ink(colour: Colour) -> Rgb<u8> {
    match colour {
        Colour::White => INK,
        Colour::Yellow => Rgb([214, 160, 0]),
        c => ink(c),
    }
}

// ---- the card body --------------------------------------------------------

/// How far inside the rounded card outline the pixel centre lies (negative
/// outside).
pub(crate) fn depth(x: u32, y: u32) -> f32 {
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
pub(crate) fn for_edge_pixels(within: f32, mut f: impl FnMut(u32, u32, f32)) {
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
pub(crate) fn blank() -> RgbImage {
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

pub(crate) fn draw_band(img: &mut RgbImage, colour: Colour) {
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
pub(crate) fn draw_glyph(img: &mut RgbImage, card: Card, x0: u32, y0: u32, size: u32, flip: bool) {
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

// ---- the codes ------------------------------------------------------------

/// One code cell's side at print size (4.7 mm): chosen by the decode rate
/// against the card's width in a frame (docs/architecture.md, "The coded
/// deck"): a card 50 px wide shows a cell of 3.8 px.
pub const CODE_CELL: f32 = 56.0;

/// Where the codes lie on a printed card, in print pixels: the black
/// border a cell and 14 px in (a quiet ring of one cell, and 1.2 mm for a
/// cut that strays).
pub const CODE_LAYOUT: CodeLayout = layout_for(CODE_CELL);

/// The layout for codes of cell `cell` (print pixels): for measuring other
/// sizes (`examples/code_size.rs`).
pub const fn layout_for(cell: f32) -> CodeLayout {
    CodeLayout {
        card: (CARD_W as f32, CARD_H as f32),
        cell,
        inset: cell + 14.0,
    }
}

/// Draws code `id` with its quiet ring on `img`, the black border's
/// top-left corner at (`x0`, `y0`), turned 180° if `flip`.
fn draw_code(img: &mut RgbImage, id: u16, layout: &CodeLayout, flip: bool) {
    let cells = codes::code_cells(id);
    let c = layout.cell;
    let (x0, y0) = if flip {
        let (w, h) = layout.card;
        (
            w - layout.inset - layout.border(),
            h - layout.inset - layout.border(),
        )
    } else {
        (layout.inset, layout.inset)
    };
    // The quiet ring starts a cell before the border.
    let (ox, oy) = (x0 - c, y0 - c);
    let n = CODE_CELLS;
    for (r, row) in cells.iter().enumerate() {
        for (col, &white) in row.iter().enumerate() {
            let (r, col) = if flip {
                (n - 1 - r, n - 1 - col)
            } else {
                (r, col)
            };
            let (xa, ya) = (ox + col as f32 * c, oy + r as f32 * c);
            let (xb, yb) = (xa + c, ya + c);
            let px = |v: f32| v.round() as i32;
            let (w, h) = ((px(xb) - px(xa)).max(1), (px(yb) - px(ya)).max(1));
            let ink = if white { WHITE } else { INK };
            draw_filled_rect_mut(
                img,
                Rect::at(px(xa), px(ya)).of_size(w as u32, h as u32),
                ink,
            );
        }
    }
}

fn draw_codes(img: &mut RgbImage, named: Named, layout: &CodeLayout) {
    let id = codes::code_of(named);
    draw_code(img, id, layout, false);
    draw_code(img, id, layout, true);
}

// ---- faces, back, sheets --------------------------------------------------

/// The face of a card at print size.
pub fn face(card: Card) -> RgbImage {
    face_with(card, &CODE_LAYOUT)
}

/// The face with its codes laid out as `layout` (print pixels).
pub fn face_with(card: Card, layout: &CodeLayout) -> RgbImage {
    let mut img = blank();
    draw_codes(&mut img, Named::Face(card), layout);
    let (w, h) = (CARD_W as f32, CARD_H as f32);
    // The code's far edge, with its quiet ring.
    let code_far = layout.inset + layout.border() + layout.cell;
    // The glyphs: in the column beside each code, as large as it allows
    // and clear of the code's quiet ring (a silhouette spans 0.12 to 0.88
    // of its box's width).
    let left = code_far + 8.0;
    let column = (w - 12.0 - left).max(40.0);
    let glyph = (column / 0.76).min(h / 2.0 - BAND_IN);
    let gx = (left - 0.12 * glyph).max(0.0) as u32;
    let gy = BAND_IN as u32;
    let glyph = glyph as u32;
    draw_glyph(&mut img, card, gx.min(CARD_W - glyph), gy, glyph, false);
    let gx = CARD_W - gx.min(CARD_W - glyph) - glyph;
    draw_glyph(&mut img, card, gx, CARD_H - gy - glyph, glyph, true);
    // The colour's swatch: under each glyph, beside the other code.
    let swatch = (
        left,
        gy as f32 + glyph as f32 * 0.98,
        w - BAND_IN,
        h - code_far - 12.0,
    );
    if swatch.3 - swatch.1 > 40.0 {
        draw_swatch(&mut img, card.colour, swatch);
        let (x0, y0, x1, y1) = swatch;
        draw_swatch(&mut img, card.colour, (w - x1, h - y1, w - x0, h - y0));
    }
    img
}

/// A block (`x0`, `y0`, `x1`, `y1`) in the colour's pattern, which names
/// the colour without its hue: white a thin frame, black solid, red
/// hatched, blue dotted, yellow a double frame.
fn draw_swatch(img: &mut RgbImage, colour: Colour, (x0, y0, x1, y1): (f32, f32, f32, f32)) {
    let c = band_ink(colour);
    let px = |v: f32| v.round() as i32;
    let fill = |img: &mut RgbImage, (xa, ya, xb, yb): (f32, f32, f32, f32)| {
        let (w, h) = ((px(xb) - px(xa)).max(1), (px(yb) - px(ya)).max(1));
        draw_filled_rect_mut(img, Rect::at(px(xa), px(ya)).of_size(w as u32, h as u32), c);
    };
    let frame = |img: &mut RgbImage, inset: f32, t: f32| {
        let (xa, ya, xb, yb) = (x0 + inset, y0 + inset, x1 - inset, y1 - inset);
        fill(img, (xa, ya, xb, ya + t));
        fill(img, (xa, yb - t, xb, yb));
        fill(img, (xa, ya, xa + t, yb));
        fill(img, (xb - t, ya, xb, yb));
    };
    match colour {
        Colour::White => frame(img, 0.0, 8.0),
        Colour::Black => fill(img, (x0, y0, x1, y1)),
        Colour::Yellow => {
            frame(img, 0.0, 10.0);
            frame(img, 24.0, 10.0);
        }
        Colour::Red => {
            frame(img, 0.0, 5.0);
            for y in px(y0).max(0) as u32..px(y1).max(0) as u32 {
                for x in px(x0).max(0) as u32..px(x1).max(0) as u32 {
                    if (x + y) % 26 < 13 {
                        img.put_pixel(x, y, c);
                    }
                }
            }
        }
        Colour::Blue => {
            let mut y = y0 + 20.0;
            while y < y1 - 14.0 {
                let mut x = x0 + 20.0;
                while x < x1 - 14.0 {
                    draw_filled_circle_mut(img, (px(x), px(y)), 12, c);
                    x += 36.0;
                }
                y += 36.0;
            }
        }
    }
}

/// The back of every card: dark blue with a white frame and a lattice of
/// rings, symmetric under 180° turns, with the back's two codes on white.
pub fn back() -> RgbImage {
    back_with(&CODE_LAYOUT)
}

/// The back with its codes laid out as `layout` (print pixels).
pub fn back_with(layout: &CodeLayout) -> RgbImage {
    let navy = Rgb([18, 34, 92]);
    let mut img = blank();
    let (cx, cy) = (CARD_W as f32 / 2.0, CARD_H as f32 / 2.0);
    let cell = 62.0f32;
    for y in 0..CARD_H {
        for x in 0..CARD_W {
            let d = depth(x, y);
            if d < 2.0 {
                continue;
            }
            let (px, py) = (x as f32 + 0.5 - cx, y as f32 + 0.5 - cy);
            let frame = (14.0..22.0).contains(&d);
            // Rings centred on a square lattice (and on the centre).
            let gx = px - (px / cell).round() * cell;
            let gy = py - (py / cell).round() * cell;
            let r = (gx * gx + gy * gy).sqrt();
            let ring = (20.0..27.0).contains(&r);
            img.put_pixel(x, y, if frame || ring { WHITE } else { navy });
        }
    }
    // White under each code and a margin round its quiet ring.
    let pad = layout.cell * 0.5;
    let side = layout.border() + 2.0 * layout.cell + 2.0 * pad;
    let at = layout.inset - layout.cell - pad;
    for (x, y) in [
        (at, at),
        (CARD_W as f32 - at - side, CARD_H as f32 - at - side),
    ] {
        draw_filled_rect_mut(
            &mut img,
            Rect::at(x.round() as i32, y.round() as i32).of_size(side as u32, side as u32),
            WHITE,
        );
    }
    draw_codes(&mut img, Named::Back, layout);
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
// The helpers are shared with `classic`'s tests.
mod tests {
    use super::*;
    use image::imageops::{self, FilterType};
    use imageproc::drawing::draw_filled_ellipse_mut;
    use std::sync::OnceLock;

    pub(super) fn all_cards() -> Vec<Card> {
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
    pub(super) fn box_reduce(img: &RgbImage, k: u32) -> RgbImage {
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
    pub(super) fn shrink(img: &RgbImage, w: u32) -> RgbImage {
        let h = (w as f32 * CARD_H as f32 / CARD_W as f32).round() as u32;
        let img = if img.width() >= 3 * w {
            box_reduce(img, 3)
        } else {
            img.clone()
        };
        imageops::resize(&img, w, h, FilterType::Triangle)
    }

    /// What the codes on `img` name, in the order found.
    fn named(img: &RgbImage) -> Vec<Named> {
        codes::detect(img)
            .iter()
            .filter_map(|c| codes::named_by(c.id))
            .collect()
    }

    /// Every face and the back show both their codes, whole or turned,
    /// at print size and at 100 px wide, and with one corner under a
    /// thumb the other still names the card.
    #[test]
    fn every_face_and_the_back_show_two_codes_of_their_own() {
        let mut cards: Vec<(Named, RgbImage)> = faces()
            .iter()
            .map(|(c, img)| (Named::Face(*c), img.clone()))
            .collect();
        cards.push((Named::Back, back()));
        for (name, img) in &cards {
            assert_eq!(named(img), [*name; 2], "{name:?}");
            assert_eq!(
                named(&imageops::rotate180(img)),
                [*name; 2],
                "{name:?} turned"
            );
            let small = shrink(img, 100);
            assert_eq!(named(&small), [*name; 2], "{name:?} at 100 px");
            let mut thumb = small.clone();
            draw_filled_ellipse_mut(&mut thumb, (8, 10), 30, 34, Rgb([200, 150, 120]));
            assert_eq!(named(&thumb), [*name], "{name:?} with a thumb");
        }
    }

    /// A code's pose gives the whole card's outline: from either code, the
    /// card's corners land on the card's corners.
    #[test]
    fn either_code_gives_the_card_outline() {
        let img = face(Card::new(Colour::Red, Piece::Queen));
        let seen = codes::detect(&img);
        assert_eq!(seen.len(), 2);
        let (w, h) = (CARD_W as f32, CARD_H as f32);
        let corners = [(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)];
        for code in &seen {
            let outline = code.card_outline(&CODE_LAYOUT);
            // Either end up: the code turned 180° sees the card turned.
            let turned = [outline[2], outline[3], outline[0], outline[1]];
            let off = |o: &[(f32, f32); 4]| {
                o.iter()
                    .zip(&corners)
                    .map(|(a, b)| (a.0 - b.0).hypot(a.1 - b.1))
                    .fold(0.0f32, f32::max)
            };
            let err = off(&outline).min(off(&turned));
            assert!(err < 6.0, "{outline:?}: {err} px off");
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
            named(&wk),
            [Named::Face(Card::new(Colour::White, Piece::King)); 2]
        );
        let yn = image::open(&paths[28]).unwrap().to_rgb8();
        assert_eq!(
            named(&yn),
            [Named::Face(Card::new(Colour::Yellow, Piece::Knight)); 2]
        );
        let back = image::open(&paths[30]).unwrap().to_rgb8();
        assert_eq!(named(&back), [Named::Back; 2]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
