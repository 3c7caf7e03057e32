//! Random decks: card art of every style, drawn from a seed, so that the
//! learned identifier learns to compare a card with the deck in play
//! rather than memorise one deck.
//!
//! A deck draws, once: its stock (white, cream or grey paper, a pastel
//! tint, or full-bleed colour), each army's ink and how it is painted
//! (solid, hollow, hatched, dotted, a tint, with or without an outline),
//! what tells the pieces apart (chess silhouettes, letters, short words,
//! or shapes made up of random strokes and blobs), where the glyph sits and
//! how large, a frame, corner indices, a picture behind the glyph, and a
//! patterned back. Every kind of a deck differs from every other in its
//! glyph or its ink; nothing else in a deck depends on the kind.

use image::{Rgb, RgbImage};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::art::{circle, frame_dist, letter_sdf, mix, piece_sdf, polygon, rect, seg};
use super::surface::fbm;
use crate::scene::CARD_ASPECT;
use arbiter_core::table::{Card, Colour, Piece};

/// How an army's glyph is painted.
#[derive(Clone, Debug)]
enum Fill {
    Solid,
    /// The stock shows inside an outline of the ink.
    Hollow,
    /// Lines of the ink over the stock, at an angle, `period` card widths.
    Hatch {
        angle: f32,
        period: f32,
    },
    Dots {
        period: f32,
    },
    /// The ink mixed this much into the stock.
    Tint(f32),
}

#[derive(Clone, Debug)]
struct Army {
    ink: [f32; 3],
    fill: Fill,
    /// An outline round the glyph, in this colour.
    outline: Option<[f32; 3]>,
}

/// A primitive of a random glyph, in a glyph box ±0.5.
#[derive(Clone, Debug)]
enum Prim {
    Disc((f32, f32), f32),
    Ring((f32, f32), f32, f32),
    Box((f32, f32), (f32, f32)),
    Stroke(Vec<(f32, f32)>, f32),
    Tri([(f32, f32); 3]),
}

impl Prim {
    fn sdf(&self, p: (f32, f32)) -> f32 {
        match self {
            Prim::Disc(c, r) => circle(p, *c, *r),
            Prim::Ring(c, r, w) => circle(p, *c, *r).abs() - w,
            Prim::Box(c, h) => rect(p, *c, *h),
            Prim::Stroke(pts, w) => {
                pts.windows(2)
                    .map(|s| seg(p, s[0], s[1]))
                    .fold(f32::INFINITY, f32::min)
                    - w
            }
            Prim::Tri(v) => polygon(p, v),
        }
    }
}

/// What tells the pieces apart.
#[derive(Clone, Debug)]
enum Glyphs {
    Silhouettes,
    Letters,
    /// A short word of letter strokes for each piece.
    Words(Vec<Vec<Piece>>),
    /// Random shapes, one for each piece.
    Shapes(Vec<Vec<Prim>>),
}

#[derive(Clone, Debug)]
enum BackPattern {
    Plain,
    Lattice(f32),
    Rings(f32),
    Stripes(f32, f32),
    Checks(f32),
    Dots(f32),
    Marble(f32),
    Medallion,
}

#[derive(Clone, Debug)]
struct Back {
    ground: [f32; 3],
    figure: [f32; 3],
    pattern: BackPattern,
    /// A light border this wide, in card widths.
    border: Option<(f32, [f32; 3])>,
}

/// A deck of random art, all five armies and a back.
#[derive(Clone, Debug)]
pub struct RandomDeck {
    pub seed: u64,
    stock: [f32; 3],
    /// A dark stock: the white army's glyph is light, the frame light.
    dark_stock: bool,
    armies: [Army; 5],
    glyphs: Glyphs,
    /// The glyph's box, in card widths, and its centre's offset.
    glyph_size: f32,
    glyph_at: (f32, f32),
    stroke: f32,
    /// An inset frame line: its inset and width, card widths; drawn in the
    /// army's ink when `frame_ink`.
    frame: Option<(f32, f32)>,
    frame_ink: bool,
    /// Small glyphs in two opposite corners.
    index: bool,
    /// A picture behind the glyph: two colours of a noise pattern in a
    /// rounded box.
    picture: Option<([f32; 3], [f32; 3], f32)>,
    back: Back,
}

fn hsv(h: f32, s: f32, v: f32) -> [f32; 3] {
    let h = h.rem_euclid(360.0) / 60.0;
    let c = v * s;
    let x = c * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    [r + m, g + m, b + m].map(|t| (t * 255.0).clamp(0.0, 255.0))
}

fn any_colour(r: &mut StdRng) -> [f32; 3] {
    hsv(
        r.random_range(0.0..360.0),
        r.random_range(0.0..1.0),
        r.random_range(0.1..1.0),
    )
}

fn army_index(c: Colour) -> usize {
    Colour::ALL.iter().position(|x| *x == c).unwrap_or(0)
}

fn luma(c: [f32; 3]) -> f32 {
    0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]
}

impl RandomDeck {
    /// The deck drawn from `seed`.
    pub fn new(seed: u64) -> RandomDeck {
        let mut r = StdRng::seed_from_u64(seed ^ 0x000D_EC40_FA27);
        let stock = match r.random_range(0..10) {
            0..=3 => hsv(
                r.random_range(0.0..360.0),
                r.random_range(0.0..0.05),
                r.random_range(0.9..1.0),
            ),
            4..=5 => hsv(
                r.random_range(35.0..55.0),
                r.random_range(0.08..0.25),
                r.random_range(0.85..0.97),
            ),
            6 => hsv(0.0, 0.0, r.random_range(0.7..0.85)),
            7 => hsv(
                r.random_range(0.0..360.0),
                r.random_range(0.1..0.3),
                r.random_range(0.8..0.95),
            ),
            _ => hsv(
                r.random_range(0.0..360.0),
                r.random_range(0.3..0.9),
                r.random_range(0.2..0.6),
            ),
        };
        let dark_stock = luma(stock) < 140.0;
        let outline_all = r.random_bool(0.3).then(|| {
            if dark_stock {
                [235.0, 235.0, 230.0]
            } else {
                hsv(0.0, 0.0, r.random_range(0.05..0.3))
            }
        });
        let patterned = r.random_bool(0.25);
        let mut fills = [
            Fill::Solid,
            Fill::Hatch {
                angle: r.random_range(0.0..std::f32::consts::PI),
                period: r.random_range(0.03..0.06),
            },
            Fill::Dots {
                period: r.random_range(0.03..0.06),
            },
            Fill::Tint(r.random_range(0.35..0.6)),
            Fill::Solid,
        ];
        // Shuffle which army gets which pattern.
        for i in (1..fills.len()).rev() {
            let j = r.random_range(0..=i);
            fills.swap(i, j);
        }
        let armies = Colour::ALL.map(|colour| {
            let ink = match colour {
                Colour::White => {
                    if dark_stock {
                        hsv(
                            r.random_range(0.0..60.0),
                            r.random_range(0.0..0.1),
                            r.random_range(0.9..1.0),
                        )
                    } else {
                        hsv(
                            r.random_range(0.0..60.0),
                            r.random_range(0.0..0.1),
                            r.random_range(0.55..0.8),
                        )
                    }
                }
                Colour::Black => hsv(
                    r.random_range(0.0..360.0),
                    r.random_range(0.0..0.4),
                    r.random_range(0.02..0.22),
                ),
                Colour::Red => hsv(
                    r.random_range(-18.0..15.0),
                    r.random_range(0.65..0.95),
                    r.random_range(0.55..0.9),
                ),
                Colour::Blue => hsv(
                    r.random_range(200.0..240.0),
                    r.random_range(0.6..0.95),
                    r.random_range(0.45..0.85),
                ),
                Colour::Yellow => hsv(
                    r.random_range(40.0..58.0),
                    r.random_range(0.75..1.0),
                    r.random_range(0.78..0.97),
                ),
            };
            let fill = if patterned {
                fills[army_index(colour)].clone()
            } else if colour == Colour::White && !dark_stock && r.random_bool(0.6) {
                Fill::Hollow
            } else {
                Fill::Solid
            };
            let outline = outline_all.or_else(|| {
                (colour == Colour::White && matches!(fill, Fill::Hollow | Fill::Solid)).then_some(
                    if dark_stock {
                        [240.0; 3]
                    } else {
                        [60.0, 60.0, 62.0]
                    },
                )
            });
            Army { ink, fill, outline }
        });
        let glyphs = match r.random_range(0..10) {
            0..=2 => Glyphs::Silhouettes,
            3..=4 => Glyphs::Letters,
            5 => Glyphs::Words(
                (0..6)
                    .map(|k| {
                        let n = r.random_range(2..=3);
                        let mut w: Vec<Piece> =
                            (0..n).map(|_| Piece::ALL[r.random_range(0..6)]).collect();
                        // Distinct words: the first letter is the piece's own.
                        w[0] = Piece::ALL[k];
                        w
                    })
                    .collect(),
            ),
            _ => Glyphs::Shapes((0..6).map(|_| random_shape(&mut r)).collect()),
        };
        let frame = r
            .random_bool(0.5)
            .then(|| (r.random_range(0.03..0.09), r.random_range(0.004..0.02)));
        let picture = r.random_bool(0.25).then(|| {
            let a = any_colour(&mut r);
            let b = mix(a, stock, r.random_range(0.3..0.8));
            (a, b, r.random_range(2.0..8.0))
        });
        let back = {
            let ground = any_colour(&mut r);
            let figure = if r.random_bool(0.5) {
                mix(ground, [255.0; 3], r.random_range(0.2..0.6))
            } else {
                mix(ground, [0.0; 3], r.random_range(0.2..0.6))
            };
            let pattern = match r.random_range(0..8) {
                0 => BackPattern::Plain,
                1 => BackPattern::Lattice(r.random_range(0.05..0.15)),
                2 => BackPattern::Rings(r.random_range(0.03..0.08)),
                3 => BackPattern::Stripes(
                    r.random_range(0.0..std::f32::consts::PI),
                    r.random_range(0.03..0.1),
                ),
                4 => BackPattern::Checks(r.random_range(0.04..0.12)),
                5 => BackPattern::Dots(r.random_range(0.04..0.1)),
                6 => BackPattern::Marble(r.random_range(3.0..10.0)),
                _ => BackPattern::Medallion,
            };
            let border = r.random_bool(0.5).then(|| {
                (
                    r.random_range(0.03..0.08),
                    hsv(
                        r.random_range(0.0..60.0),
                        r.random_range(0.0..0.1),
                        r.random_range(0.85..1.0),
                    ),
                )
            });
            Back {
                ground,
                figure,
                pattern,
                border,
            }
        };
        RandomDeck {
            seed,
            stock,
            dark_stock,
            armies,
            glyphs,
            glyph_size: r.random_range(0.5..0.85),
            glyph_at: (r.random_range(-0.04..0.04), r.random_range(-0.1..0.1)),
            stroke: r.random_range(0.05..0.11),
            frame,
            frame_ink: r.random_bool(0.4),
            index: r.random_bool(0.5),
            picture,
            back,
        }
    }

    /// The card's image `width` pixels wide; `None` is the back.
    pub fn card(&self, card: Option<Card>, width: u32) -> RgbImage {
        let height = (width as f32 * CARD_ASPECT).round() as u32;
        let w = width as f32;
        // Supersampled 2×2 when small; a large image is shrunk by whoever
        // draws it smaller, which smooths its edges.
        let n = if width < 120 { 2 } else { 1 };
        let k = (n * n) as f32;
        RgbImage::from_fn(width, height, |x, y| {
            let mut acc = [0.0f32; 3];
            for sy in 0..n {
                for sx in 0..n {
                    let px = (x as f32 + (sx as f32 + 0.5) / n as f32) / w - 0.5;
                    let py = (y as f32 + (sy as f32 + 0.5) / n as f32) / w - 0.5 * CARD_ASPECT;
                    let c = match card {
                        Some(c) => self.face(c, px, py),
                        None => self.back_at(px, py),
                    };
                    for i in 0..3 {
                        acc[i] += c[i] / k;
                    }
                }
            }
            Rgb(acc.map(|v| v.round().clamp(0.0, 255.0) as u8))
        })
    }

    /// The glyph's signed distance at glyph point `p` (box ±0.5).
    fn glyph_sdf(&self, piece: Piece, p: (f32, f32)) -> f32 {
        let k = Piece::ALL.iter().position(|x| *x == piece).unwrap_or(0);
        match &self.glyphs {
            Glyphs::Silhouettes => piece_sdf(piece, p.0, p.1),
            Glyphs::Letters => letter_sdf(piece, p.0, p.1) - self.stroke / 2.0,
            Glyphs::Words(words) => {
                let word = &words[k];
                let n = word.len() as f32;
                // Letters side by side, each a box 1/n wide, half as tall.
                let cell = 1.0 / n;
                let i = ((p.0 + 0.5) / cell).floor().clamp(0.0, n - 1.0);
                let lx = (p.0 + 0.5 - (i + 0.5) * cell) / cell;
                let ly = p.1 / cell;
                letter_sdf(word[i as usize], lx * 0.8, ly * 0.8) * cell / 0.8 - self.stroke * cell
            }
            Glyphs::Shapes(shapes) => shapes[k]
                .iter()
                .map(|s| s.sdf(p))
                .fold(f32::INFINITY, f32::min),
        }
    }

    /// The army's paint at a point inside its glyph (`d` < 0 the distance
    /// in).
    fn paint(&self, army: &Army, d: f32, x: f32, y: f32) -> [f32; 3] {
        let edge = 0.012;
        if let Some(o) = army.outline
            && d > -edge
        {
            return o;
        }
        match army.fill {
            Fill::Solid => army.ink,
            Fill::Hollow => {
                if d > -2.5 * edge {
                    army.ink
                } else {
                    mix(self.stock, [255.0; 3], 0.6)
                }
            }
            Fill::Hatch { angle, period } => {
                let t = (x * angle.cos() + y * angle.sin()) / period;
                if (t - t.round()).abs() < 0.25 {
                    army.ink
                } else {
                    self.stock
                }
            }
            Fill::Dots { period } => {
                let (u, v) = (x / period, y / period);
                if (u - u.round()).hypot(v - v.round()) < 0.33 {
                    army.ink
                } else {
                    mix(self.stock, army.ink, 0.2)
                }
            }
            Fill::Tint(t) => mix(self.stock, army.ink, t),
        }
    }

    fn face(&self, card: Card, x: f32, y: f32) -> [f32; 3] {
        let h2 = 0.5 * CARD_ASPECT;
        let army = &self.armies[army_index(card.colour)];
        if let Some((inset, width)) = self.frame {
            let fd = frame_dist(x, y, 0.5 - inset, h2 - inset);
            if fd.abs() < width {
                return if self.frame_ink {
                    if card.colour == Colour::White {
                        army.outline.unwrap_or(army.ink)
                    } else {
                        army.ink
                    }
                } else if self.dark_stock {
                    [230.0; 3]
                } else {
                    [70.0; 3]
                };
            }
        }
        let g = self.glyph_size;
        let gp = ((x - self.glyph_at.0) / g, (y - self.glyph_at.1) / g);
        let d = self.glyph_sdf(card.piece, gp) * g;
        if d < 0.0 {
            return self.paint(army, d, x, y);
        }
        if self.index {
            for s in [1.0f32, -1.0] {
                let (lx, ly) = (s * x, s * y);
                let sz = 0.16;
                let (ix, iy) = ((lx + 0.5 - 0.12) / sz, (ly + h2 - 0.14) / sz);
                if ix.abs() < 0.6 && iy.abs() < 0.6 {
                    let d = self.glyph_sdf(card.piece, (ix, iy)) * sz;
                    if d < 0.0 {
                        return if card.colour == Colour::White {
                            army.outline.unwrap_or(army.ink)
                        } else {
                            army.ink
                        };
                    }
                }
            }
        }
        if let Some((a, b, scale)) = self.picture {
            let inside = frame_dist(
                x - self.glyph_at.0,
                y - self.glyph_at.1,
                0.5 * g + 0.04,
                0.55 * g + 0.04,
            );
            if inside < 0.0 {
                let n = fbm(x * scale + 3.0, y * scale + 7.0, 3, self.seed);
                return mix(a, b, n);
            }
        }
        self.stock
    }

    fn back_at(&self, x: f32, y: f32) -> [f32; 3] {
        let b = &self.back;
        let h2 = 0.5 * CARD_ASPECT;
        if let Some((width, colour)) = b.border
            && frame_dist(x, y, 0.5, h2) > -width
        {
            return colour;
        }
        let on = match b.pattern {
            BackPattern::Plain => false,
            BackPattern::Lattice(p) => {
                let (u, v) = ((x + y) / p, (x - y) / p);
                (u - u.round()).abs() < 0.12 || (v - v.round()).abs() < 0.12
            }
            BackPattern::Rings(p) => {
                let fd = frame_dist(x, y, 0.5, h2);
                (fd / p).rem_euclid(1.0) < 0.3
            }
            BackPattern::Stripes(a, p) => ((x * a.cos() + y * a.sin()) / p).rem_euclid(1.0) < 0.5,
            BackPattern::Checks(p) => ((x / p).floor() + (y / p).floor()).rem_euclid(2.0) < 1.0,
            BackPattern::Dots(p) => {
                let (u, v) = (x / p, y / p);
                (u - u.round()).hypot(v - v.round()) < 0.3
            }
            BackPattern::Marble(s) => {
                return mix(b.ground, b.figure, fbm(x * s, y * s, 4, self.seed ^ 0xBAC));
            }
            BackPattern::Medallion => {
                let m = (x / 0.25).hypot(y / 0.33);
                m < 1.0 && m > 0.8 || m < 0.5
            }
        };
        if on { b.figure } else { b.ground }
    }
}

/// A shape of two to five primitives in a glyph box ±0.4.
fn random_shape(r: &mut StdRng) -> Vec<Prim> {
    let n = r.random_range(2..=5);
    let pt = |r: &mut StdRng| (r.random_range(-0.35..0.35), r.random_range(-0.4..0.4));
    (0..n)
        .map(|_| match r.random_range(0..5) {
            0 => Prim::Disc(pt(r), r.random_range(0.06..0.2)),
            1 => Prim::Ring(
                pt(r),
                r.random_range(0.08..0.22),
                r.random_range(0.02..0.05),
            ),
            2 => Prim::Box(
                pt(r),
                (r.random_range(0.03..0.25), r.random_range(0.03..0.25)),
            ),
            3 => {
                let k = r.random_range(2..=4);
                Prim::Stroke((0..k).map(|_| pt(r)).collect(), r.random_range(0.025..0.06))
            }
            _ => Prim::Tri([pt(r), pt(r), pt(r)]),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mean absolute difference of two images of one size, per channel.
    fn diff(a: &RgbImage, b: &RgbImage) -> f32 {
        let s: u64 = a
            .as_raw()
            .iter()
            .zip(b.as_raw())
            .map(|(x, y)| u64::from(x.abs_diff(*y)))
            .sum();
        s as f32 / a.as_raw().len() as f32
    }

    #[test]
    fn every_kind_of_a_random_deck_differs_from_every_other() {
        for seed in 0..12 {
            let deck = RandomDeck::new(seed);
            let mut kinds = vec![deck.card(None, 40)];
            for colour in Colour::ALL {
                for piece in Piece::ALL {
                    kinds.push(deck.card(Some(Card::new(colour, piece)), 40));
                }
            }
            for i in 0..kinds.len() {
                for j in i + 1..kinds.len() {
                    assert!(
                        diff(&kinds[i], &kinds[j]) > 0.5,
                        "deck {seed}: kinds {i} and {j} look alike"
                    );
                }
            }
        }
    }

    #[test]
    fn decks_differ_from_seed_to_seed_and_repeat_for_one_seed() {
        let face = Some(Card::new(Colour::Red, Piece::Queen));
        let a = RandomDeck::new(7).card(face, 30);
        assert_eq!(a, RandomDeck::new(7).card(face, 30));
        assert!(diff(&a, &RandomDeck::new(8).card(face, 30)) > 5.0);
    }
}
