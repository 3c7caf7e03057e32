//! Decks of other artwork than the bundled printable deck, drawn
//! procedurally, for testing the camera against decks it was not designed
//! for (see `fixtures/decks/<name>/`, written by `make_frames`).
//!
//! - [`ArtDeck::Letters`]: cream stock, a large letter (K Q R B N P) in the
//!   army's colour (hollow for White), a letter and a pip as the index in
//!   two corners; a red back with a diamond lattice inside a white border.
//! - [`ArtDeck::Silhouette`]: grey stock, a filled piece silhouette with a
//!   thin dark outline, no corner index; a black back with no border.
//! - [`ArtDeck::Outline`]: white stock, a large outlined piece tinted with
//!   the army's colour, small filled pieces as corner indices; a back of the
//!   classic green felt's colour with no border.

use image::{Rgb, RgbImage};

use crate::scene::CARD_ASPECT;
use arbiter_core::table::{Card, Colour, Piece};

/// A procedurally drawn deck.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ArtDeck {
    Letters,
    Silhouette,
    Outline,
}

impl ArtDeck {
    pub const ALL: [ArtDeck; 3] = [ArtDeck::Letters, ArtDeck::Silhouette, ArtDeck::Outline];

    /// Its folder name under `fixtures/decks/`.
    pub fn name(self) -> &'static str {
        match self {
            ArtDeck::Letters => "letters",
            ArtDeck::Silhouette => "silhouette",
            ArtDeck::Outline => "outline",
        }
    }

    /// The card's image `width` pixels wide; `None` is the back.
    pub fn card(self, card: Option<Card>, width: u32) -> RgbImage {
        let height = (width as f32 * CARD_ASPECT).round() as u32;
        let w = width as f32;
        // Supersample 3×3 for clean edges.
        RgbImage::from_fn(width, height, |x, y| {
            let mut acc = [0.0f32; 3];
            for sy in 0..3 {
                for sx in 0..3 {
                    // Card coordinates in card widths, centred.
                    let px = (x as f32 + (sx as f32 + 0.5) / 3.0) / w - 0.5;
                    let py = (y as f32 + (sy as f32 + 0.5) / 3.0) / w - 0.5 * CARD_ASPECT;
                    let c = match card {
                        Some(c) => self.face(c, px, py),
                        None => self.back(px, py),
                    };
                    for i in 0..3 {
                        acc[i] += c[i] / 9.0;
                    }
                }
            }
            Rgb(acc.map(|v| v.round().clamp(0.0, 255.0) as u8))
        })
    }

    fn face(self, card: Card, x: f32, y: f32) -> [f32; 3] {
        let h2 = 0.5 * CARD_ASPECT;
        let ink = ink(card.colour);
        match self {
            ArtDeck::Letters => {
                let stock = [242.0, 233.0, 208.0];
                // A thin coloured frame inset from the edge.
                let fd = frame_dist(x, y, 0.5 - 0.07, h2 - 0.07);
                if fd.abs() < 0.006 {
                    return ink_or_grey(card.colour);
                }
                // The big letter.
                let g = 0.62;
                if let Some(c) = letter_ink(card, x / g, (y + 0.02) / g, 0.075, ink) {
                    return c;
                }
                // Indices: letter and pip, top left and (turned) bottom right.
                for (sx, sy) in [(1.0, 1.0), (-1.0, -1.0)] {
                    let (lx, ly) = (sx * x, sy * y);
                    let (ix, iy) = (lx + 0.5 - 0.13, ly + h2 - 0.17);
                    let s = 0.14;
                    if let Some(c) = letter_ink(card, ix / s, iy / s, 0.13, ink) {
                        return c;
                    }
                    let (px, py) = (lx + 0.5 - 0.13, ly + h2 - 0.3);
                    if px.hypot(py) < 0.035 {
                        return ink_or_grey(card.colour);
                    }
                }
                stock
            }
            ArtDeck::Silhouette => {
                let stock = [206.0, 207.0, 203.0];
                // A double rule around the face.
                let fd = frame_dist(x, y, 0.5 - 0.05, h2 - 0.05);
                if fd.abs() < 0.005 || (fd + 0.02).abs() < 0.003 {
                    return [90.0, 90.0, 92.0];
                }
                let g = 0.72;
                let d = piece_sdf(card.piece, x / g, y / g) * g;
                if d < -0.012 {
                    return ink;
                }
                if d < 0.0 {
                    return [30.0, 30.0, 32.0];
                }
                // The piece's soft cast shadow on the stock.
                let ds = piece_sdf(card.piece, (x - 0.02) / g, (y - 0.02) / g) * g;
                if ds < 0.0 {
                    return stock.map(|v| v * 0.85);
                }
                stock
            }
            ArtDeck::Outline => {
                let stock = [248.0, 247.0, 243.0];
                let g = 0.64;
                let d = piece_sdf(card.piece, x / g, y / g) * g;
                let white = card.colour == Colour::White;
                if d.abs() < 0.014 {
                    return if white { [80.0, 80.0, 82.0] } else { ink };
                }
                if d < 0.0 {
                    return if white {
                        [255.0; 3]
                    } else {
                        mix(ink, [255.0; 3], 0.65)
                    };
                }
                for (sx, sy) in [(1.0, 1.0), (-1.0, -1.0)] {
                    let (lx, ly) = (sx * x, sy * y);
                    let s = 0.17;
                    let (ix, iy) = (lx + 0.5 - 0.12, ly + h2 - 0.14);
                    if piece_sdf(card.piece, ix / s, iy / s) < 0.0 {
                        return ink_or_grey(card.colour);
                    }
                }
                stock
            }
        }
    }

    fn back(self, x: f32, y: f32) -> [f32; 3] {
        let h2 = 0.5 * CARD_ASPECT;
        match self {
            ArtDeck::Letters => {
                let red = [168.0, 28.0, 36.0];
                let fd = frame_dist(x, y, 0.5, h2);
                if fd > -0.055 {
                    return [244.0, 240.0, 232.0];
                }
                // A lattice of thin light diagonals and a central medallion.
                let (u, v) = ((x + y) / 0.09, (x - y) / 0.09);
                let line = |t: f32| (t - t.round()).abs() < 0.09;
                let medal = (x / 0.16).hypot(y / 0.2);
                if (0.9..1.0).contains(&medal) {
                    return [240.0, 220.0, 200.0];
                }
                if medal < 0.9 {
                    return [120.0, 16.0, 24.0];
                }
                if line(u) || line(v) {
                    return [225.0, 140.0, 140.0];
                }
                red
            }
            ArtDeck::Silhouette => {
                let fd = frame_dist(x, y, 0.5, h2);
                // Rounded rings one inside another, barely lighter.
                let ring = ((fd / 0.045).fract() + 1.0).fract();
                if ring < 0.12 {
                    [46.0, 46.0, 50.0]
                } else {
                    [24.0, 24.0, 27.0]
                }
            }
            ArtDeck::Outline => {
                let green = [38.0, 102.0, 58.0];
                // A fine crosshatch a shade darker.
                let (u, v) = (x / 0.04, y / 0.04);
                if (u - u.round()).abs() < 0.1 || (v - v.round()).abs() < 0.1 {
                    return green.map(|c| c * 0.85);
                }
                green
            }
        }
    }

    /// Every card kind this deck has an image for (all five armies), with
    /// its file name as `arbiter deck learn` wants it.
    pub fn kinds() -> Vec<(Option<Card>, String)> {
        let mut out = vec![(None, "back".to_string())];
        for colour in Colour::ALL {
            for piece in Piece::ALL {
                let c = Card { colour, piece };
                out.push((Some(c), c.to_string()));
            }
        }
        out
    }
}

pub(crate) fn mix(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    std::array::from_fn(|i| a[i] * (1.0 - t) + b[i] * t)
}

/// The army's printing colour.
fn ink(c: Colour) -> [f32; 3] {
    match c {
        Colour::White => [250.0, 250.0, 248.0],
        Colour::Black => [22.0, 22.0, 24.0],
        Colour::Red => [200.0, 30.0, 38.0],
        Colour::Blue => [28.0, 64.0, 190.0],
        Colour::Yellow => [232.0, 190.0, 20.0],
    }
}

/// The army's colour where a white mark would vanish on light stock.
fn ink_or_grey(c: Colour) -> [f32; 3] {
    if c == Colour::White {
        [150.0, 150.0, 150.0]
    } else {
        ink(c)
    }
}

/// Signed distance to a rectangle's outline, negative inside.
pub(crate) fn frame_dist(x: f32, y: f32, hw: f32, hh: f32) -> f32 {
    let (qx, qy) = (x.abs() - hw, y.abs() - hh);
    qx.max(qy).min(0.0) + qx.max(0.0).hypot(qy.max(0.0))
}

/// The letter's colour at glyph point `(x, y)` (glyph box ±0.5), if inked:
/// filled in the army's colour, or for White hollow with a grey outline.
fn letter_ink(card: Card, x: f32, y: f32, stroke: f32, ink: [f32; 3]) -> Option<[f32; 3]> {
    if x.abs() > 0.7 || y.abs() > 0.7 {
        return None;
    }
    let d = letter_sdf(card.piece, x, y) - stroke / 2.0;
    if card.colour == Colour::White {
        if d < 0.0 {
            return Some(if d > -0.03 {
                [70.0, 70.0, 72.0]
            } else {
                [255.0, 255.0, 252.0]
            });
        }
        return None;
    }
    (d < 0.0).then_some(ink)
}

pub(crate) fn seg(p: (f32, f32), a: (f32, f32), b: (f32, f32)) -> f32 {
    let (px, py) = (p.0 - a.0, p.1 - a.1);
    let (bx, by) = (b.0 - a.0, b.1 - a.1);
    let t = ((px * bx + py * by) / (bx * bx + by * by).max(1e-9)).clamp(0.0, 1.0);
    (px - t * bx).hypot(py - t * by)
}

pub(crate) fn polyline(p: (f32, f32), pts: &[(f32, f32)]) -> f32 {
    pts.windows(2)
        .map(|w| seg(p, w[0], w[1]))
        .fold(f32::INFINITY, f32::min)
}

/// Distance to an arc of an ellipse centred `c` with radii `r`, from
/// angle `a0` to `a1` (radians, y down).
fn arc(p: (f32, f32), c: (f32, f32), r: (f32, f32), a0: f32, a1: f32) -> f32 {
    let pts: Vec<(f32, f32)> = (0..=16)
        .map(|k| {
            let a = a0 + (a1 - a0) * k as f32 / 16.0;
            (c.0 + r.0 * a.cos(), c.1 + r.1 * a.sin())
        })
        .collect();
    polyline(p, &pts)
}

/// Distance to the centre line of the letter's strokes.
pub(crate) fn letter_sdf(piece: Piece, x: f32, y: f32) -> f32 {
    use std::f32::consts::{FRAC_PI_2, PI};
    let p = (x, y);
    let stem = seg(p, (-0.24, -0.4), (-0.24, 0.4));
    match piece {
        Piece::King => {
            stem.min(seg(p, (0.26, -0.4), (-0.24, 0.06)))
                .min(seg(p, (-0.08, -0.08), (0.28, 0.4)))
        }
        Piece::Queen => {
            arc(p, (0.0, -0.02), (0.3, 0.38), 0.0, 2.0 * PI).min(seg(p, (0.06, 0.16), (0.32, 0.46)))
        }
        Piece::Rook => stem
            .min(polyline(p, &[(-0.24, -0.4), (0.02, -0.4)]))
            .min(arc(p, (0.02, -0.2), (0.2, 0.2), -FRAC_PI_2, FRAC_PI_2))
            .min(seg(p, (0.02, 0.0), (-0.24, 0.0)))
            .min(seg(p, (0.0, 0.0), (0.26, 0.4))),
        Piece::Bishop => stem
            .min(seg(p, (-0.24, -0.4), (0.0, -0.4)))
            .min(arc(p, (0.0, -0.21), (0.19, 0.19), -FRAC_PI_2, FRAC_PI_2))
            .min(seg(p, (-0.24, -0.02), (0.04, -0.02)))
            .min(arc(p, (0.04, 0.19), (0.21, 0.21), -FRAC_PI_2, FRAC_PI_2))
            .min(seg(p, (-0.24, 0.4), (0.04, 0.4))),
        Piece::Knight => polyline(p, &[(-0.24, 0.4), (-0.24, -0.4), (0.24, 0.4), (0.24, -0.4)]),
        Piece::Pawn => stem
            .min(seg(p, (-0.24, -0.4), (0.02, -0.4)))
            .min(arc(p, (0.02, -0.18), (0.22, 0.22), -FRAC_PI_2, FRAC_PI_2))
            .min(seg(p, (0.02, 0.04), (-0.24, 0.04))),
    }
}

pub(crate) fn circle(p: (f32, f32), c: (f32, f32), r: f32) -> f32 {
    (p.0 - c.0).hypot(p.1 - c.1) - r
}

pub(crate) fn rect(p: (f32, f32), c: (f32, f32), h: (f32, f32)) -> f32 {
    frame_dist(p.0 - c.0, p.1 - c.1, h.0, h.1)
}

pub(crate) fn ellipse(p: (f32, f32), c: (f32, f32), r: (f32, f32)) -> f32 {
    let (dx, dy) = ((p.0 - c.0) / r.0, (p.1 - c.1) / r.1);
    (dx.hypot(dy) - 1.0) * r.0.min(r.1)
}

/// Signed distance to a simple polygon (negative inside).
pub(crate) fn polygon(p: (f32, f32), v: &[(f32, f32)]) -> f32 {
    let mut d = f32::INFINITY;
    let mut inside = false;
    for i in 0..v.len() {
        let (a, b) = (v[i], v[(i + 1) % v.len()]);
        d = d.min(seg(p, a, b));
        if (a.1 > p.1) != (b.1 > p.1) && p.0 < (b.0 - a.0) * (p.1 - a.1) / (b.1 - a.1) + a.0 {
            inside = !inside;
        }
    }
    if inside { -d } else { d }
}

/// A piece silhouette in a glyph box ±0.5 (y down), signed distance.
pub(crate) fn piece_sdf(piece: Piece, x: f32, y: f32) -> f32 {
    if x.abs() > 0.8 || y.abs() > 0.8 {
        return 1.0;
    }
    let p = (x, y);
    let base = rect(p, (0.0, 0.4), (0.3, 0.05)) - 0.015;
    let body = polygon(
        p,
        &[(-0.08, -0.06), (0.08, -0.06), (0.2, 0.36), (-0.2, 0.36)],
    );
    let shape = match piece {
        Piece::Pawn => {
            circle(p, (0.0, -0.2), 0.13)
                .min(body)
                .min(rect(p, (0.0, -0.06), (0.13, 0.025)))
        }
        Piece::Rook => {
            let top = rect(p, (0.0, -0.27), (0.24, 0.1));
            let notches =
                rect(p, (-0.09, -0.35), (0.04, 0.06)).min(rect(p, (0.09, -0.35), (0.04, 0.06)));
            top.max(-notches).min(rect(p, (0.0, 0.08), (0.16, 0.3)))
        }
        Piece::Bishop => {
            let mitre = ellipse(p, (0.0, -0.1), (0.15, 0.22));
            let slit = seg(p, (-0.03, -0.22), (0.1, -0.08)) - 0.025;
            mitre
                .max(-slit)
                .min(circle(p, (0.0, -0.37), 0.055))
                .min(polygon(
                    p,
                    &[(-0.06, 0.08), (0.06, 0.08), (0.18, 0.36), (-0.18, 0.36)],
                ))
                .min(rect(p, (0.0, 0.1), (0.14, 0.025)))
        }
        Piece::Knight => {
            let head = polygon(
                p,
                &[
                    (0.22, 0.36),
                    (-0.2, 0.36),
                    (-0.1, 0.1),
                    (0.0, 0.0),
                    (-0.1, -0.04),
                    (-0.27, 0.04),
                    (-0.31, -0.06),
                    (-0.13, -0.26),
                    (-0.02, -0.36),
                    (0.04, -0.44),
                    (0.1, -0.34),
                    (0.2, -0.26),
                    (0.27, -0.05),
                    (0.27, 0.2),
                ],
            );
            head.max(-circle(p, (-0.07, -0.2), 0.03))
        }
        Piece::Queen => {
            let crown = polygon(
                p,
                &[
                    (-0.25, -0.3),
                    (-0.12, -0.14),
                    (0.0, -0.34),
                    (0.12, -0.14),
                    (0.25, -0.3),
                    (0.17, 0.0),
                    (-0.17, 0.0),
                ],
            );
            crown
                .min(circle(p, (-0.25, -0.32), 0.045))
                .min(circle(p, (0.0, -0.37), 0.045))
                .min(circle(p, (0.25, -0.32), 0.045))
                .min(body)
        }
        Piece::King => circle(p, (0.0, -0.1), 0.15)
            .min(rect(p, (0.0, -0.33), (0.028, 0.1)))
            .min(rect(p, (0.0, -0.35), (0.08, 0.026)))
            .min(rect(p, (0.0, 0.0), (0.17, 0.035)))
            .min(body),
    };
    shape.min(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_deck_has_distinct_faces_and_back() {
        for deck in ArtDeck::ALL {
            let imgs: Vec<(String, RgbImage)> = ArtDeck::kinds()
                .into_iter()
                .map(|(c, name)| (name, deck.card(c, 40)))
                .collect();
            for (i, (na, a)) in imgs.iter().enumerate() {
                for (nb, b) in &imgs[i + 1..] {
                    let diff: u32 = a
                        .as_raw()
                        .iter()
                        .zip(b.as_raw())
                        .map(|(x, y)| (*x as i32 - *y as i32).unsigned_abs())
                        .sum();
                    assert!(
                        diff > 2000,
                        "{}: {na} and {nb} look alike ({diff})",
                        deck.name()
                    );
                }
            }
        }
    }

    #[test]
    fn faces_are_not_symmetric_under_a_half_turn_except_where_designed() {
        // A face turned upside down is not another face: the turned image
        // differs from every other face of the deck.
        for deck in ArtDeck::ALL {
            let c = Card {
                colour: Colour::Red,
                piece: Piece::Knight,
            };
            let a = deck.card(Some(c), 40);
            let turned = image::imageops::rotate180(&a);
            assert_ne!(a.as_raw(), turned.as_raw(), "{}", deck.name());
        }
    }
}
