//! A deterministic scene renderer: cards laid on a cloth, seen by a camera.
//!
//! The tests and the image fixtures (`fixtures/frames/<set>/`) need frames
//! whose truth is known exactly. [`render`] lays a [`Table`] out on the
//! table plane, projects the plane into the frame, and spoils the picture the
//! way a real camera does (tilt, uneven light, a shadow, a hand, blur, noise,
//! JPEG).
//!
//! # Geometry
//!
//! Everything is built on the *table plane*, measured in plane pixels, with
//! `x` to the right and `y` downward (angles are therefore clockwise as seen
//! in the frame):
//!
//! 1. A card is `pitch_px` wide and `pitch_px * 88 / 63` tall. Columns are
//!    `card width + gap` apart and rows `card height + gap` apart, where the
//!    gap is [`GAP_FRACTION`] of the width. When `quarter_turns` is on, both
//!    pitches use the card's long side, so that a card turned a quarter fits
//!    its cell.
//! 2. Cell `(col, row)` sits at `((col - cc) * pitch_x, (row - cr) * pitch_y)`
//!    where `(cc, cr)` is the centre of the table's bounding box of cells,
//!    plus a jitter of up to `gap_jitter_px` in each axis.
//! 3. The whole layout is rotated by `layout_rotation_deg` about the origin
//!    and shifted by a small random offset ([`Geometry::offset`]).
//! 4. Each card is turned by `layout_rotation_deg + 90 * turns + skew`, with
//!    `turns` in `0..4` when `quarter_turns` is on (else 0) and the skew
//!    uniform in `±per_card_skew_deg`.
//! 5. The plane goes into the frame through the homography
//!    [`Geometry::plane_to_image`]: a pinhole camera with focal length equal
//!    to its distance `D = 1.2 * max(width, height)` from the table,
//!    looking at the plane origin, tilted by `tilt_deg` about the frame's
//!    horizontal axis (the top of the frame is nearer). With no tilt a
//!    plane pixel is a frame pixel and the origin lands on the frame centre.
//!
//! Frame pixel `(x, y)` has its centre at the integer coordinates `(x, y)`.
//! The hand is drawn on the plane too (it lies flat, no parallax).
//!
//! # Throne pairs
//!
//! A [`Token::Pair`] cell is laid as the table convention has it: the
//! first card (the king) in the cell, the partner under it, squared with
//! it and pushed out by [`THRONE_SHIFT`] of a card's width along the card
//! axis nearest to "away from the layout's centre" — off the board's edge,
//! where every throne square lies — so the partner's corner code shows
//! beside the king.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::Path;

use image::codecs::jpeg::JpegEncoder;
use image::imageops::FilterType;
use image::{ImageFormat, Rgb, RgbImage};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use arbiter_core::script::step_toml;
use arbiter_core::table::{Card, Cell, Colour, Piece, Table, Token};

pub mod art;
pub mod look;
pub mod random_deck;
pub mod surface;
pub mod texture;

pub use art::ArtDeck;
pub use look::{Glare, Lens, Look, OccluderLook, SKIN_TONES, Sleeve};
pub use random_deck::RandomDeck;
pub use surface::{Surface, SurfaceKind};
pub use texture::{TextureFamily, texture};

/// The gap between neighbouring cards, as a fraction of the card width.
pub const GAP_FRACTION: f32 = 0.12;
/// Card height over card width (88 mm × 63 mm).
pub use crate::cards::CARD_ASPECT;
/// A print pixel lit to within this many levels of its paper (in every
/// channel) no longer shows: about what a camera's noise moves a pixel.
pub const WASHED_CONTRAST: f32 = 12.0;
/// A card whose print a lamp washed out over at least this fraction is
/// *glare-blank*: no one could name it from the picture, and a reader is
/// right about it only when it says `??` for glare. Half: what is left is
/// a fragment of the glyph, not enough to tell a queen from a king.
pub const GLARE_BLANK: f32 = 0.5;
/// A cell whose covered fraction exceeds this makes the frame `busy`.
pub const BUSY_COVER: f32 = 0.03;
/// How far a throne's partner card sticks out from under its king, as a
/// fraction of the card's width: enough to show a corner code whole (the
/// code reaches 0.41 of the width in from the edge, 0.29 of the height)
/// with a module to spare.
pub const THRONE_SHIFT: f32 = 0.5;

/// A hand reaching over the table: a palm, four fingers, a thumb and an arm
/// running off the frame.
#[derive(Clone, Debug, PartialEq)]
pub struct HandParams {
    /// How deep into the layout the palm reaches: 0 puts the palm centre on
    /// the layout's circumscribed circle, 1 on its centre.
    pub reach: f32,
    /// Direction the hand comes from, in degrees clockwise from the plane's
    /// +x axis; `None` picks one from the seed.
    pub from_deg: Option<f32>,
    /// Size relative to an adult hand over cards of the given pitch.
    pub size: f32,
}

impl Default for HandParams {
    fn default() -> Self {
        HandParams {
            reach: 0.4,
            from_deg: None,
            size: 1.0,
        }
    }
}

/// Everything that shapes a frame. Same params and same table: same bytes.
#[derive(Clone, PartialEq)]
pub struct SceneParams {
    pub width: u32,
    pub height: u32,
    /// Card width on the table plane, in plane pixels.
    pub pitch_px: f32,
    pub layout_rotation_deg: f32,
    /// Each card's own turn is uniform in ± this.
    pub per_card_skew_deg: f32,
    /// Each card upright, upside down or turned a quarter, at random.
    pub quarter_turns: bool,
    /// Each card's centre moves by up to this in x and y, plane pixels.
    pub gap_jitter_px: f32,
    /// Camera off vertical, 0–30°.
    pub tilt_deg: f32,
    /// Light falls off by up to this fraction across the frame (0–1).
    pub light_gradient: f32,
    /// Darkening at the core of one soft elliptical shadow (0–1).
    pub shadow: f32,
    pub blur_sigma: f32,
    /// Gaussian noise per channel, in 0–255 units.
    pub noise_sigma: f32,
    /// Encode as JPEG of this quality (the scene's image is then the decoded
    /// JPEG).
    pub jpeg_quality: Option<u8>,
    pub hand: Option<HandParams>,
    /// A recording: the layout cell that sits at the plane origin, fixed for
    /// every frame, and each card's jitter, turn and skew drawn from its
    /// cell, so that cards stay put from frame to frame as the board grows.
    /// `None` centres each table on its own bounding box.
    pub anchor: Option<(f32, f32)>,
    /// A recording: how many times a cell's card has been put down anew
    /// (a SWAP, a FLIP, a card replaced). Each time it lands a little
    /// elsewhere, its jitter, turn and skew drawn again, as a card put
    /// down by hand does. Cells not named: never.
    pub laid_again: Vec<(Cell, u32)>,
    pub seed: u64,
    /// A recording's frame: the sensor's noise differs from frame to frame
    /// while everything else stays. 0 (a photograph) draws it from `seed`
    /// alone.
    pub frame: u64,
    /// Surface, lamp, lens, card stock, gaps and the hand's look; the
    /// default changes nothing (see [`Look`]).
    pub look: Look,
}

// By hand, so that a default `look` prints nothing and the committed truth
// files' `# scene:` lines stay as they were.
impl std::fmt::Debug for SceneParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("SceneParams");
        d.field("width", &self.width)
            .field("height", &self.height)
            .field("pitch_px", &self.pitch_px)
            .field("layout_rotation_deg", &self.layout_rotation_deg)
            .field("per_card_skew_deg", &self.per_card_skew_deg)
            .field("quarter_turns", &self.quarter_turns)
            .field("gap_jitter_px", &self.gap_jitter_px)
            .field("tilt_deg", &self.tilt_deg)
            .field("light_gradient", &self.light_gradient)
            .field("shadow", &self.shadow)
            .field("blur_sigma", &self.blur_sigma)
            .field("noise_sigma", &self.noise_sigma)
            .field("jpeg_quality", &self.jpeg_quality)
            .field("hand", &self.hand)
            .field("anchor", &self.anchor)
            .field("seed", &self.seed);
        if self.frame != 0 {
            d.field("frame", &self.frame);
        }
        if !self.laid_again.is_empty() {
            d.field("laid_again", &self.laid_again);
        }
        if self.look != Look::default() {
            d.field("look", &self.look);
        }
        d.finish()
    }
}

impl Default for SceneParams {
    fn default() -> Self {
        SceneParams::clean()
    }
}

impl SceneParams {
    /// A perfect overhead shot: straight grid, even light, no hand.
    pub fn clean() -> Self {
        SceneParams {
            width: 1280,
            height: 720,
            pitch_px: 56.0,
            layout_rotation_deg: 0.0,
            per_card_skew_deg: 0.0,
            quarter_turns: false,
            gap_jitter_px: 0.0,
            tilt_deg: 0.0,
            light_gradient: 0.0,
            shadow: 0.0,
            blur_sigma: 0.0,
            noise_sigma: 0.0,
            jpeg_quality: None,
            hand: None,
            anchor: None,
            laid_again: Vec::new(),
            seed: 0,
            frame: 0,
            look: Look::default(),
        }
    }

    /// The worst the recogniser must still read (with a hand: not read, but
    /// known to be busy).
    pub fn tough() -> Self {
        SceneParams {
            layout_rotation_deg: 23.0,
            per_card_skew_deg: 10.0,
            quarter_turns: true,
            gap_jitter_px: 4.0,
            tilt_deg: 30.0,
            light_gradient: 0.5,
            shadow: 0.4,
            blur_sigma: 1.2,
            noise_sigma: 6.0,
            jpeg_quality: Some(70),
            hand: Some(HandParams::default()),
            ..SceneParams::clean()
        }
    }

    /// A random scene between clean and tough, drawn from `seed`: any layout
    /// rotation, a hand one time in four.
    pub fn random(seed: u64) -> Self {
        let mut r = StdRng::seed_from_u64(seed ^ 0x005C_E4E0);
        let t = SceneParams::tough();
        let mut u = |hi: f32| r.random_range(0.0..=1.0f32) * hi;
        let layout_rotation_deg = u(360.0);
        let per_card_skew_deg = u(t.per_card_skew_deg);
        let gap_jitter_px = u(t.gap_jitter_px);
        let tilt_deg = u(t.tilt_deg);
        let light_gradient = u(t.light_gradient);
        let shadow = u(t.shadow);
        let blur_sigma = u(t.blur_sigma);
        let noise_sigma = u(t.noise_sigma);
        let quarter_turns = r.random_bool(0.5);
        let jpeg_quality = r.random_bool(0.5).then(|| r.random_range(60..=95u8));
        let hand = r.random_bool(0.25).then(|| HandParams {
            reach: r.random_range(0.1..0.7),
            from_deg: None,
            size: r.random_range(0.8..1.2),
        });
        SceneParams {
            layout_rotation_deg,
            per_card_skew_deg,
            quarter_turns,
            gap_jitter_px,
            tilt_deg,
            light_gradient,
            shadow,
            blur_sigma,
            noise_sigma,
            jpeg_quality,
            hand,
            seed,
            ..SceneParams::clean()
        }
    }

    /// Card width and height on the plane.
    pub fn card_size(&self) -> (f32, f32) {
        (self.pitch_px, self.pitch_px * CARD_ASPECT)
    }

    /// Distance between neighbouring cell centres (x, y) on the plane.
    pub fn cell_pitch(&self) -> (f32, f32) {
        let (w, h) = self.card_size();
        let gap = w * self.look.gap_fraction.unwrap_or(GAP_FRACTION);
        if self.quarter_turns {
            (h + gap, h + gap)
        } else {
            (w + gap, h + gap)
        }
    }
}

/// What the test knows about one occupied cell.
#[derive(Clone, Debug, PartialEq)]
pub struct CellTruth {
    pub cell: Cell,
    pub token: Token,
    /// Fraction of the card not covered by the hand.
    pub visible: f32,
    /// Fraction of the card's print (its pixels unlike its paper) that a
    /// lamp washed out: within [`WASHED_CONTRAST`] of the paper beside it
    /// once lit, clipped or veiled. 0 where no lamp can clip.
    pub print_washed: f32,
    /// Fraction of the card's face the lamp clipped white in every channel.
    pub glare_clipped: f32,
    /// The blur the frame went through (Gaussian sigma, frame pixels) and
    /// the lens's barrel distortion (k1) the card lies under.
    pub blur_sigma: f32,
    pub lens_k1: f32,
    /// The card's centre in the frame.
    pub centre_px: (f32, f32),
    /// The card's corners in the frame, in the order of its artwork: top
    /// left, top right, bottom right, bottom left.
    pub corners_px: [(f32, f32); 4],
    /// Quarter turns clockwise on top of the layout rotation (0–3).
    pub turns: u8,
    /// The card's full turn on the plane, degrees clockwise.
    pub angle_deg: f32,
    /// A throne pair's partner, under the card: its corners in the frame,
    /// in the order of its artwork.
    pub under_px: Option<[(f32, f32); 4]>,
}

/// How the table plane was put into the frame; enough to invert it.
#[derive(Clone, Debug, PartialEq)]
pub struct Geometry {
    /// Plane point `(x, y, 1)` to homogeneous frame point.
    pub plane_to_image: [[f64; 3]; 3],
    /// Card width and height on the plane.
    pub card_size: (f32, f32),
    /// Cell pitch (x, y) on the plane, before the layout rotation.
    pub cell_pitch: (f32, f32),
    /// The layout's centre (in cells) that sits near the plane origin.
    pub centre_cell: (f32, f32),
    /// Shift of the layout on the plane after its rotation.
    pub offset: (f32, f32),
    /// The lens between the ideal (pinhole) frame and the pixels.
    pub lens: Lens,
}

impl Geometry {
    /// A plane point's place in the frame, through the lens.
    pub fn project(&self, p: (f32, f32)) -> (f32, f32) {
        self.lens.distort(apply(&self.plane_to_image, p))
    }
}

pub struct Scene {
    pub image: RgbImage,
    /// One entry per occupied cell, in the table's order.
    pub truth: Vec<CellTruth>,
    pub geometry: Geometry,
    /// The hand covers more than [`BUSY_COVER`] of some card.
    pub busy: bool,
    /// The encoded JPEG, when `jpeg_quality` was set; `image` is its decoding.
    pub jpeg: Option<Vec<u8>>,
}

fn apply(h: &[[f64; 3]; 3], (x, y): (f32, f32)) -> (f32, f32) {
    let (x, y) = (x as f64, y as f64);
    let w = h[2][0] * x + h[2][1] * y + h[2][2];
    let u = (h[0][0] * x + h[0][1] * y + h[0][2]) / w;
    let v = (h[1][0] * x + h[1][1] * y + h[1][2]) / w;
    (u as f32, v as f32)
}

/// The camera's homography is never singular (tilt stays below 90°), so
/// the identity stands in only for the impossible case.
fn invert(m: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    crate::lattice::invert(m).unwrap_or([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
}

/// A card laid on the plane.
struct Placed {
    centre: (f32, f32),
    /// cos and sin of the card's angle.
    cs: (f32, f32),
    image: usize,
    face: Option<Card>,
}

impl Placed {
    fn to_plane(&self, (lx, ly): (f32, f32)) -> (f32, f32) {
        let (c, s) = self.cs;
        (
            self.centre.0 + c * lx - s * ly,
            self.centre.1 + s * lx + c * ly,
        )
    }

    fn to_local(&self, (x, y): (f32, f32)) -> (f32, f32) {
        let (c, s) = self.cs;
        let (dx, dy) = (x - self.centre.0, y - self.centre.1);
        (c * dx + s * dy, -s * dx + c * dy)
    }
}

/// Signed distance (negative inside) to a card outline with rounded corners.
fn card_sdf((lx, ly): (f32, f32), (w, h): (f32, f32)) -> f32 {
    let r = 0.06 * w;
    let qx = lx.abs() - (w / 2.0 - r);
    let qy = ly.abs() - (h / 2.0 - r);
    let outside = (qx.max(0.0).powi(2) + qy.max(0.0).powi(2)).sqrt();
    outside + qx.max(qy).min(0.0) - r
}

/// A capsule: the segment a–b thickened by r.
#[derive(Clone, Copy)]
struct Capsule {
    a: (f32, f32),
    b: (f32, f32),
    r: f32,
}

impl Capsule {
    fn sdf(&self, p: (f32, f32)) -> f32 {
        let (ax, ay) = (p.0 - self.a.0, p.1 - self.a.1);
        let (bx, by) = (self.b.0 - self.a.0, self.b.1 - self.a.1);
        let t = ((ax * bx + ay * by) / (bx * bx + by * by).max(1e-6)).clamp(0.0, 1.0);
        let (dx, dy) = (ax - t * bx, ay - t * by);
        (dx * dx + dy * dy).sqrt() - self.r
    }
}

struct Hand {
    parts: Vec<Capsule>,
    skin: [f32; 3],
    /// Where the hand's cast shadow is, relative to the hand.
    shadow_shift: (f32, f32),
    /// Depth scale for shading (the palm radius).
    depth: f32,
    /// A sleeve over the forearm: its outline and colour.
    sleeve: Option<(Capsule, [f32; 3])>,
    /// The hand is gloved in the sleeve's colour.
    glove: bool,
    /// Along the arm, for the sleeve's folds: a point and the direction.
    axis: ((f32, f32), (f32, f32)),
}

impl Hand {
    fn sdf(&self, p: (f32, f32)) -> f32 {
        let d = self
            .parts
            .iter()
            .map(|c| c.sdf(p))
            .fold(f32::INFINITY, f32::min);
        match &self.sleeve {
            Some((c, _)) => d.min(c.sdf(p)),
            None => d,
        }
    }

    /// The colour of the hand at `p` (inside it), before shading.
    fn colour(&self, p: (f32, f32)) -> [f32; 3] {
        let Some((cuff, cloth)) = &self.sleeve else {
            return self.skin;
        };
        if self.glove || cuff.sdf(p) < 0.0 {
            // Folds across the arm.
            let (o, dir) = self.axis;
            let along = (p.0 - o.0) * dir.0 + (p.1 - o.1) * dir.1;
            let fold = (along / (0.35 * self.depth)).sin() * 0.5
                + (along / (0.13 * self.depth) + 1.3).sin() * 0.2;
            return cloth.map(|c| c * (1.0 + 0.12 * fold));
        }
        self.skin
    }

    /// Puts the occluder look on a built hand: its skin, its sleeve.
    fn dress(&mut self, look: &OccluderLook, size: f32) {
        self.skin = look.skin.map(|c| c as f32);
        if let Some(sl) = &look.sleeve {
            let (o, dir) = self.axis;
            let at = |t: f32| (o.0 + dir.0 * t * size, o.1 + dir.1 * t * size);
            let cuff = Capsule {
                a: at(-sl.cuff),
                b: at(-40.0),
                r: 0.62 * size,
            };
            self.sleeve = Some((cuff, sl.colour.map(|c| c as f32)));
            self.glove = sl.glove;
        }
    }

    fn build(hp: &HandParams, card_w: f32, layout_radius: f32, rng: &mut StdRng) -> Hand {
        let from = match hp.from_deg {
            Some(d) => d.to_radians(),
            None => rng.random_range(0.0..std::f32::consts::TAU),
        };
        let out = (from.cos(), from.sin());
        let inward = (-out.0, -out.1);
        let side = (-inward.1, inward.0);
        let s = hp.size * card_w;
        let dist = layout_radius * (1.0 - hp.reach.clamp(0.0, 1.0));
        let palm = (out.0 * dist, out.1 * dist);
        let at = |p: (f32, f32), along: f32, across: f32| {
            (
                p.0 + inward.0 * along + side.0 * across,
                p.1 + inward.1 * along + side.1 * across,
            )
        };
        let palm_r = 0.7 * s;
        let mut parts = vec![
            // The palm, a little longer than wide.
            Capsule {
                a: at(palm, -0.3 * s, 0.0),
                b: at(palm, 0.3 * s, 0.0),
                r: palm_r,
            },
            // The arm, off to the edge of anything.
            Capsule {
                a: at(palm, -0.3 * s, 0.0),
                b: at(palm, -40.0 * s, 0.0),
                r: 0.5 * s,
            },
        ];
        for (k, across) in [-0.45f32, -0.15, 0.15, 0.45].into_iter().enumerate() {
            let spread = (k as f32 - 1.5) * 0.12 + rng.random_range(-0.05..0.05);
            let len = s * (1.1 + rng.random_range(0.0..0.3) - (k as f32 - 1.5).abs() * 0.12);
            let base = at(palm, 0.55 * s, across * s);
            let (c, sn) = (spread.cos(), spread.sin());
            let dir = (inward.0 * c + side.0 * sn, inward.1 * c + side.1 * sn);
            parts.push(Capsule {
                a: base,
                b: (base.0 + dir.0 * len, base.1 + dir.1 * len),
                r: 0.13 * s,
            });
        }
        let thumb_side = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
        let base = at(palm, 0.0, thumb_side * 0.6 * s);
        let tip = at(palm, 0.7 * s, thumb_side * 1.25 * s);
        parts.push(Capsule {
            a: base,
            b: tip,
            r: 0.16 * s,
        });
        const SKIN: [[f32; 3]; 4] = [
            [224.0, 172.0, 140.0],
            [198.0, 140.0, 105.0],
            [141.0, 95.0, 66.0],
            [240.0, 196.0, 170.0],
        ];
        let skin = SKIN[rng.random_range(0..SKIN.len())];
        let sh = rng.random_range(0.0..std::f32::consts::TAU);
        Hand {
            parts,
            skin,
            shadow_shift: (0.3 * s * sh.cos(), 0.3 * s * sh.sin()),
            depth: palm_r,
            sleeve: None,
            glove: false,
            axis: (palm, inward),
        }
    }
}

/// Bilinear sample, clamped at the edges.
fn sample(img: &RgbImage, x: f32, y: f32) -> [f32; 3] {
    let (w, h) = (img.width() as i32, img.height() as i32);
    let x = x.clamp(0.0, (w - 1) as f32);
    let y = y.clamp(0.0, (h - 1) as f32);
    let (x0, y0) = (x.floor() as i32, y.floor() as i32);
    let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
    let (fx, fy) = (x - x0 as f32, y - y0 as f32);
    let p = |x: i32, y: i32| img.get_pixel(x as u32, y as u32).0;
    let (a, b, c, d) = (p(x0, y0), p(x1, y0), p(x0, y1), p(x1, y1));
    std::array::from_fn(|i| {
        let top = a[i] as f32 * (1.0 - fx) + b[i] as f32 * fx;
        let bot = c[i] as f32 * (1.0 - fx) + d[i] as f32 * fx;
        top * (1.0 - fy) + bot * fy
    })
}

/// Bilinear sample of a texture that tiles the plane.
fn sample_wrapped(img: &RgbImage, x: f32, y: f32) -> [f32; 3] {
    let (w, h) = (img.width() as i32, img.height() as i32);
    let (x0, y0) = (x.floor() as i32, y.floor() as i32);
    let (fx, fy) = (x - x0 as f32, y - y0 as f32);
    let p = |x: i32, y: i32| {
        img.get_pixel(x.rem_euclid(w) as u32, y.rem_euclid(h) as u32)
            .0
    };
    let (a, b, c, d) = (p(x0, y0), p(x0 + 1, y0), p(x0, y0 + 1), p(x0 + 1, y0 + 1));
    std::array::from_fn(|i| {
        let top = a[i] as f32 * (1.0 - fx) + b[i] as f32 * fx;
        let bot = c[i] as f32 * (1.0 - fx) + d[i] as f32 * fx;
        top * (1.0 - fy) + bot * fy
    })
}

fn hash2(x: i32, y: i32, seed: u64) -> f32 {
    let mut h = seed ^ (x as u32 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^= (y as u32 as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    h ^= h >> 31;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^= h >> 29;
    h = h.wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^= h >> 32;
    (h >> 40) as f32 / (1u64 << 24) as f32
}

/// Value noise on a lattice of `period` cells that wraps every `size` pixels.
fn value_noise(x: u32, y: u32, size: u32, cell: u32, seed: u64) -> f32 {
    let n = (size / cell).max(1) as i32;
    let (gx, gy) = (x as f32 / cell as f32, y as f32 / cell as f32);
    let (x0, y0) = (gx.floor() as i32, gy.floor() as i32);
    let (fx, fy) = (gx - x0 as f32, gy - y0 as f32);
    let s = |t: f32| t * t * (3.0 - 2.0 * t);
    let (sx, sy) = (s(fx), s(fy));
    let v = |i: i32, j: i32| hash2(i.rem_euclid(n), j.rem_euclid(n), seed);
    let top = v(x0, y0) * (1.0 - sx) + v(x0 + 1, y0) * sx;
    let bot = v(x0, y0 + 1) * (1.0 - sx) + v(x0 + 1, y0 + 1) * sx;
    top * (1.0 - sy) + bot * sy
}

/// A square tile of green felt (fine fibres, soft mottling) that tiles
/// seamlessly; `size` should be a multiple of 32.
pub fn felt(size: u32, seed: u64) -> RgbImage {
    RgbImage::from_fn(size, size, |x, y| {
        let mottle = value_noise(x, y, size, 32, seed) - 0.5;
        let grain = value_noise(x, y, size, 4, seed ^ 1) - 0.5;
        let fibre = hash2(x as i32, y as i32, seed ^ 2) - 0.5;
        let k = 1.0 + 0.18 * mottle + 0.10 * grain + 0.12 * fibre;
        let base = [38.0, 102.0, 58.0];
        Rgb(base.map(|c: f32| (c * k).round().clamp(0.0, 255.0) as u8))
    })
}

/// A stand-in card for tests: white with a thin dark border, a block of the
/// card's colour filling the middle, and a dark bar pattern per piece near
/// the top (so upside down differs from upright). The back is dark blue with
/// a light diamond. `width` pixels wide, 88/63 as tall.
pub fn stand_in_card(card: Option<Card>, width: u32) -> RgbImage {
    let height = (width as f32 * CARD_ASPECT).round() as u32;
    let (w, h) = (width as f32, height as f32);
    RgbImage::from_fn(width, height, |x, y| {
        let (u, v) = ((x as f32 + 0.5) / w, (y as f32 + 0.5) / h);
        let border = !(0.04..=0.96).contains(&u) || !(0.03..=0.97).contains(&v);
        let Some(card) = card else {
            let diamond = (u - 0.5).abs() / 0.3 + (v - 0.5).abs() / 0.35 < 1.0;
            return if border || diamond {
                Rgb([200, 200, 220])
            } else {
                Rgb([30, 40, 110])
            };
        };
        if border {
            return Rgb([40, 40, 40]);
        }
        let bars = 1 + Piece::ALL
            .iter()
            .position(|p| *p == card.piece)
            .unwrap_or(0);
        if (0.12..0.22).contains(&v) && (0.15..0.85).contains(&u) {
            let k = ((u - 0.15) / 0.7 * (2 * bars) as f32) as usize;
            return if k.is_multiple_of(2) {
                Rgb([20, 20, 20])
            } else {
                Rgb([250, 250, 250])
            };
        }
        if (0.3..0.85).contains(&v) && (0.15..0.85).contains(&u) {
            return Rgb(stand_in_colour(card.colour));
        }
        Rgb([250, 250, 250])
    })
}

/// The block colour of [`stand_in_card`].
pub fn stand_in_colour(c: Colour) -> [u8; 3] {
    match c {
        Colour::White => [225, 215, 190],
        Colour::Black => [25, 25, 25],
        Colour::Red => [210, 30, 30],
        Colour::Blue => [30, 60, 210],
        Colour::Yellow => [235, 205, 20],
    }
}

/// Renders `table` as a camera would see it. `card_image(None)` is the back;
/// face-down and unreadable tokens show it. `table_texture` tiles the plane
/// (see [`felt`]).
pub fn render(
    table: &Table,
    params: &SceneParams,
    card_image: &dyn Fn(Option<Card>) -> RgbImage,
    table_texture: &RgbImage,
) -> Scene {
    let p = params;
    let look = &p.look;
    let (fw, fh) = (p.width.max(1), p.height.max(1));
    let mut hand_rng = StdRng::seed_from_u64(p.seed ^ 0x4A4D);
    let mut light_rng = StdRng::seed_from_u64(p.seed ^ 0x119B7);
    let mut noise_rng =
        StdRng::seed_from_u64(p.seed ^ 0x7015E ^ p.frame.wrapping_mul(0x9E37_79B9_7F4A_7C15));

    let Layout {
        h,
        hinv,
        st,
        d,
        lens,
        card,
        pitch,
        centre_cell,
        offset,
        layout_radius,
        mut placed,
        mut unders,
        mut truth,
    } = layout(table, p);
    let to_plane = |u: f32, v: f32| apply(&hinv, lens.undistort((u, v)));
    // Local magnification (frame px per plane px), for anti-aliasing.
    let mag = |_x: f32, y: f32| (1.0 / (1.0 + y as f64 * st / d)) as f32;

    let mut images: Vec<RgbImage> = Vec::new();
    let mut index: HashMap<Option<Card>, usize> = HashMap::new();
    // Cards are shrunk once to about twice their largest size in the frame.
    let max_mag = 1.0 / (1.0 - (layout_radius as f64 * st / d).min(0.8)) as f32;
    let target_w = (2.0 * card.0 * max_mag).ceil().max(8.0);
    let mut image_of = |face: Option<Card>| {
        *index.entry(face).or_insert_with(|| {
            let img = card_image(face);
            let img = if (img.width() as f32) > target_w {
                let th = (target_w * img.height() as f32 / img.width() as f32).round();
                image::imageops::resize(&img, target_w as u32, th as u32, FilterType::Triangle)
            } else {
                img
            };
            images.push(img);
            images.len() - 1
        })
    };
    for pc in placed.iter_mut().chain(unders.iter_mut()) {
        pc.image = image_of(pc.face);
    }

    let hand = p
        .hand
        .as_ref()
        .map(|hp| {
            let hd = Hand::build(hp, card.0, layout_radius, &mut hand_rng);
            (hd, hp.size * card.0)
        })
        .map(|(mut hd, size)| {
            for part in &mut hd.parts {
                part.a = (part.a.0 + offset.0, part.a.1 + offset.1);
                part.b = (part.b.0 + offset.0, part.b.1 + offset.1);
            }
            hd.axis.0 = (hd.axis.0.0 + offset.0, hd.axis.0.1 + offset.1);
            if let Some(o) = &look.occluder {
                hd.dress(o, size);
            }
            hd
        });

    // The table.
    let npx = (fw * fh) as usize;
    let mut buf: Vec<[f32; 3]> = Vec::with_capacity(npx);
    let mut plane: Vec<(f32, f32)> = Vec::with_capacity(npx);
    for v in 0..fh {
        for u in 0..fw {
            let pt = to_plane(u as f32, v as f32);
            plane.push(pt);
            match &look.surface {
                Some(s) => {
                    let m = mag(pt.0, pt.1) * lens.magnification((u as f32, v as f32));
                    buf.push(s.colour_at(pt.0, pt.1, 1.0 / m.max(1e-3)));
                }
                None => buf.push(sample_wrapped(table_texture, pt.0, pt.1)),
            }
        }
    }
    // Where the cards are, for the glare (glossy card, matte cloth).
    let mut gloss: Vec<f32> = if look.glare.is_some() {
        vec![0.0; npx]
    } else {
        Vec::new()
    };

    // Card stock: the light comes from one side; each card's shadow falls
    // the other way, and its edge is a little darker.
    let relief = look.card_relief.clamp(0.0, 1.0);
    let shadow_dir = {
        let a = hash_angle(p.seed);
        (a.cos(), a.sin())
    };
    let shadow_shift = relief * 0.035 * card.0;
    let shadow_soft = 0.8 + relief * 0.04 * card.0;
    let margin = if relief > 0.0 {
        2.0 + (shadow_shift + 2.0 * shadow_soft) * max_mag
    } else {
        2.0
    };

    // The cards, each over its own box in the frame: the partners of
    // thrones first, under their kings.
    let cards_in_order = unders
        .iter()
        .map(|u| (u, outline_px(&h, u, card), None))
        .chain(
            placed
                .iter()
                .zip(truth.iter().map(|t| t.corners_px))
                .enumerate()
                .map(|(k, (pc, c))| (pc, c, Some(k))),
        );
    // What the lamp does to each card's print, when it can clip: each
    // card pixel's owner, and its paper's colour lit the same way.
    let can_clip = look.glare.is_some() || look.exposure.is_some_and(|e| e > 1.0);
    let mut print = can_clip.then(|| PrintTruth::new(npx));
    let papers: Vec<[f32; 3]> = images.iter().map(paper_colour).collect();
    for (pc, corners, owner) in cards_in_order {
        let img = &images[pc.image];
        let (iw, ih) = (img.width() as f32, img.height() as f32);
        // Under a lens the edges bow: bound points along them too.
        let mut xs: Vec<f32> = corners.iter().map(|c| c.0).collect();
        let mut ys: Vec<f32> = corners.iter().map(|c| c.1).collect();
        if lens.k1 != 0.0 {
            let (w2, h2) = (card.0 / 2.0, card.1 / 2.0);
            for k in 0..=8 {
                let t = k as f32 / 8.0;
                for l in [
                    (-w2 + 2.0 * w2 * t, -h2),
                    (-w2 + 2.0 * w2 * t, h2),
                    (-w2, -h2 + 2.0 * h2 * t),
                    (w2, -h2 + 2.0 * h2 * t),
                ] {
                    let q = lens.distort(apply(&h, pc.to_plane(l)));
                    xs.push(q.0);
                    ys.push(q.1);
                }
            }
        }
        let lo = |v: &[f32], n: u32| {
            (v.iter().cloned().fold(f32::INFINITY, f32::min) - margin).clamp(0.0, (n - 1) as f32)
                as u32
        };
        let hi = |v: &[f32], n: u32| {
            (v.iter().cloned().fold(f32::NEG_INFINITY, f32::max) + margin)
                .clamp(0.0, (n - 1) as f32) as u32
        };
        let (x0, x1) = (lo(&xs, fw), hi(&xs, fw));
        let (y0, y1) = (lo(&ys, fh), hi(&ys, fh));
        for v in y0..=y1 {
            for u in x0..=x1 {
                let i = (v * fw + u) as usize;
                let pt = plane[i];
                let l = pc.to_local(pt);
                let m = mag(pt.0, pt.1) * lens.magnification((u as f32, v as f32));
                let sd = card_sdf(l, card) * m;
                let alpha = (0.5 - sd).clamp(0.0, 1.0);
                if alpha <= 0.0 {
                    if relief > 0.0 {
                        // A soft shadow cast away from the light.
                        let q = (
                            pt.0 - shadow_dir.0 * shadow_shift,
                            pt.1 - shadow_dir.1 * shadow_shift,
                        );
                        let ss = card_sdf(pc.to_local(q), card);
                        let t = (0.5 - ss / shadow_soft).clamp(0.0, 1.0);
                        let contact = if sd < 1.5 {
                            0.15 * (1.0 - sd / 1.5)
                        } else {
                            0.0
                        };
                        let k = 1.0 - (0.3 * relief * t * t).max(contact);
                        buf[i] = buf[i].map(|c| c * k);
                    } else if sd < 2.5 {
                        // A faint contact shadow just outside the card.
                        let k = 1.0 - 0.25 * (1.0 - sd / 2.5);
                        buf[i] = buf[i].map(|c| c * k);
                    }
                    continue;
                }
                let mut c = sample(
                    img,
                    (l.0 / card.0 + 0.5) * iw - 0.5,
                    (l.1 / card.1 + 0.5) * ih - 0.5,
                );
                if relief > 0.0 && sd > -1.6 {
                    // The cut edge of the stock, darker on the shadow side.
                    let side = (l.0 * shadow_dir.0 + l.1 * shadow_dir.1) / card.0;
                    let k = 0.93 - 0.08 * relief * (0.5 + side).clamp(0.0, 1.0);
                    c = c.map(|x| x * k);
                }
                if let Some(pt) = print.as_mut() {
                    pt.draw(i, alpha, owner, c, papers[pc.image]);
                }
                buf[i] = std::array::from_fn(|k| buf[i][k] * (1.0 - alpha) + c[k] * alpha);
                if !gloss.is_empty() {
                    gloss[i] = gloss[i].max(alpha);
                }
            }
        }
    }

    // The hand and its shadow; what it covers.
    let mut busy = false;
    if let Some(hd) = &hand {
        for (i, pt) in plane.iter().enumerate() {
            let m = mag(pt.0, pt.1);
            let shadow_pt = (pt.0 - hd.shadow_shift.0, pt.1 - hd.shadow_shift.1);
            let ss = hd.sdf(shadow_pt);
            let blur = 0.25 * hd.depth;
            let sk = ((blur - ss) / (2.0 * blur)).clamp(0.0, 1.0);
            if sk > 0.0 {
                let k = 1.0 - 0.45 * sk;
                buf[i] = buf[i].map(|c| c * k);
            }
            let sd = hd.sdf(*pt);
            let alpha = (0.5 - sd * m).clamp(0.0, 1.0);
            if alpha > 0.0 {
                let shade = 0.7 + 0.3 * (-sd / (0.5 * hd.depth)).clamp(0.0, 1.0);
                let c = hd.colour(*pt).map(|c| c * shade);
                buf[i] = std::array::from_fn(|k| buf[i][k] * (1.0 - alpha) + c[k] * alpha);
                if let Some(pt) = print.as_mut() {
                    pt.owner[i] = u32::MAX;
                }
                if !gloss.is_empty() {
                    gloss[i] *= 1.0 - alpha;
                }
            }
        }
        const N: usize = 12;
        for (pc, t) in placed.iter().zip(truth.iter_mut()) {
            let mut covered = 0;
            for a in 0..N {
                for b in 0..N {
                    let lx = ((a as f32 + 0.5) / N as f32 - 0.5) * card.0;
                    let ly = ((b as f32 + 0.5) / N as f32 - 0.5) * card.1;
                    if hd.sdf(pc.to_plane((lx, ly))) < 0.0 {
                        covered += 1;
                    }
                }
            }
            t.visible = 1.0 - covered as f32 / (N * N) as f32;
            busy |= 1.0 - t.visible > BUSY_COVER;
        }
    }

    // Light: a gradient across the frame and one soft shadow.
    let ga = light_rng.random_range(0.0..std::f32::consts::TAU);
    let (gs, gc) = ga.sin_cos();
    let (ex, ey) = (
        light_rng.random_range(0.0..fw as f32),
        light_rng.random_range(0.0..fh as f32),
    );
    let (ea, eb) = (
        light_rng.random_range(0.2..0.5) * fw as f32,
        light_rng.random_range(0.2..0.5) * fh as f32,
    );
    let (es, ec) = light_rng.random_range(0.0..std::f32::consts::PI).sin_cos();
    let span = (fw as f32).hypot(fh as f32);
    if p.light_gradient > 0.0 || p.shadow > 0.0 {
        for v in 0..fh {
            for u in 0..fw {
                let i = (v * fw + u) as usize;
                let (x, y) = (u as f32 - (fw / 2) as f32, v as f32 - (fh / 2) as f32);
                let t = ((x * gc + y * gs) / span + 0.5).clamp(0.0, 1.0);
                let mut k = 1.0 - p.light_gradient * t;
                let (dx, dy) = (u as f32 - ex, v as f32 - ey);
                let (rx, ry) = (dx * ec + dy * es, -dx * es + dy * ec);
                let e = (rx / ea).powi(2) + (ry / eb).powi(2);
                k *= 1.0 - p.shadow * ((1.3 - e) / 0.6).clamp(0.0, 1.0);
                buf[i] = buf[i].map(|c| c * k);
                if let Some(pt) = print.as_mut() {
                    pt.paper[i] = pt.paper[i].map(|c| c * k);
                }
            }
        }
    }
    apply_lamp(&mut buf, &gloss, fw, fh, look);
    if let Some(mut pt) = print {
        apply_lamp(&mut pt.paper, &gloss, fw, fh, look);
        pt.tally(&buf, &mut truth);
    }

    let mut img = RgbImage::from_fn(fw, fh, |u, v| {
        Rgb(buf[(v * fw + u) as usize].map(|c| c.round().clamp(0.0, 255.0) as u8))
    });
    if p.blur_sigma > 0.0 {
        img = imageproc::filter::gaussian_blur_f32(&img, p.blur_sigma);
    }
    if p.noise_sigma > 0.0 {
        for px in img.pixels_mut() {
            for c in px.0.iter_mut() {
                let n = gaussian(&mut noise_rng) * p.noise_sigma;
                *c = (*c as f32 + n).round().clamp(0.0, 255.0) as u8;
            }
        }
    }
    let mut jpeg = None;
    if let Some(q) = p.jpeg_quality {
        let mut bytes = Vec::new();
        img.write_with_encoder(JpegEncoder::new_with_quality(&mut bytes, q.clamp(1, 100)))
            .expect("JPEG encoding into memory");
        img = image::load_from_memory_with_format(&bytes, ImageFormat::Jpeg)
            .expect("decoding our own JPEG")
            .to_rgb8();
        jpeg = Some(bytes);
    }

    Scene {
        image: img,
        truth,
        geometry: Geometry {
            plane_to_image: h,
            card_size: card,
            cell_pitch: pitch,
            centre_cell,
            offset,
            lens,
        },
        busy,
        jpeg,
    }
}

/// The truth of what a lamp did to each card's print: for every frame
/// pixel a card owns, that card, whether the pixel is print (unlike its
/// paper) and its paper's colour, lit as the pixel is.
struct PrintTruth {
    owner: Vec<u32>,
    inked: Vec<bool>,
    paper: Vec<[f32; 3]>,
}

impl PrintTruth {
    fn new(npx: usize) -> PrintTruth {
        PrintTruth {
            owner: vec![u32::MAX; npx],
            inked: vec![false; npx],
            paper: vec![[0.0; 3]; npx],
        }
    }

    /// A card's pixel drawn with coverage `alpha`: art colour `c` over its
    /// paper colour. Only pixels wholly on a placed card are the card's.
    fn draw(&mut self, i: usize, alpha: f32, owner: Option<usize>, c: [f32; 3], paper: [f32; 3]) {
        match owner {
            Some(k) if alpha >= 0.99 => {
                self.owner[i] = k as u32;
                self.inked[i] = (0..3).any(|j| (c[j] - paper[j]).abs() > 40.0);
                self.paper[i] = paper;
            }
            _ => self.owner[i] = u32::MAX,
        }
    }

    /// Each card's share of print washed out and of face clipped, from the
    /// lit frame `lit` and the lit papers.
    fn tally(&self, lit: &[[f32; 3]], truth: &mut [CellTruth]) {
        let n = truth.len();
        let (mut ink, mut washed, mut area, mut clipped) =
            (vec![0u32; n], vec![0u32; n], vec![0u32; n], vec![0u32; n]);
        for (i, &o) in self.owner.iter().enumerate() {
            let Some(k) = (o != u32::MAX).then_some(o as usize).filter(|k| *k < n) else {
                continue;
            };
            let px = lit[i].map(|c| c.clamp(0.0, 255.0));
            area[k] += 1;
            clipped[k] += u32::from(px.iter().all(|c| *c >= 254.5));
            if self.inked[i] {
                ink[k] += 1;
                let paper = self.paper[i].map(|c| c.clamp(0.0, 255.0));
                let contrast = (0..3).map(|j| (px[j] - paper[j]).abs()).fold(0.0, f32::max);
                washed[k] += u32::from(contrast < WASHED_CONTRAST);
            }
        }
        for (k, t) in truth.iter_mut().enumerate() {
            t.print_washed = washed[k] as f32 / ink[k].max(1) as f32;
            t.glare_clipped = clipped[k] as f32 / area[k].max(1) as f32;
        }
    }
}

/// A card image's paper: the median of each channel (most of a card is
/// its paper, or its ground where the print bleeds to the edge).
fn paper_colour(img: &RgbImage) -> [f32; 3] {
    std::array::from_fn(|j| {
        let mut v: Vec<u8> = img.pixels().map(|p| p.0[j]).collect();
        v.sort_unstable();
        f32::from(v.get(v.len() / 2).copied().unwrap_or(0))
    })
}

/// An angle in `[0, 2π)` drawn from a seed, for the light's direction.
fn hash_angle(seed: u64) -> f32 {
    surface::hash2(seed as i32, (seed >> 32) as i32, 0x11_6475) * std::f32::consts::TAU
}

/// The lamp: glare (stronger on the glossy cards), vignetting, white
/// balance and exposure. Nothing when the look has none of them.
fn apply_lamp(buf: &mut [[f32; 3]], gloss: &[f32], fw: u32, fh: u32, look: &Look) {
    let wb = look.white_balance;
    let exposure = look.exposure.unwrap_or(1.0);
    if look.glare.is_none() && look.vignette == 0.0 && wb == 0.0 && exposure == 1.0 {
        return;
    }
    let gain = [
        exposure * (1.0 + 0.22 * wb),
        exposure * (1.0 + 0.02 * wb),
        exposure * (1.0 - 0.28 * wb),
    ];
    let (cx, cy) = ((fw - 1) as f32 / 2.0, (fh - 1) as f32 / 2.0);
    let norm2 = cx * cx + cy * cy;
    for v in 0..fh {
        for u in 0..fw {
            let i = (v * fw + u) as usize;
            let mut c = buf[i];
            if let Some(g) = &look.glare {
                let (gx, gy) = (g.at.0 * fw as f32, g.at.1 * fh as f32);
                let r = (g.radius * fh as f32).max(1.0);
                let d2 = ((u as f32 - gx).powi(2) + (v as f32 - gy).powi(2)) / (r * r);
                // A broad halo and a tight core.
                let halo = (-d2).exp();
                let core = (-d2 / 0.12).exp();
                let shine = 1.0 + 0.8 * gloss.get(i).copied().unwrap_or(0.0);
                let k = g.strength * (0.45 * halo + 1.1 * core) * shine;
                c = c.map(|x| x * (1.0 + 0.5 * k) + 255.0 * k);
            }
            let mut k = 1.0;
            if look.vignette > 0.0 {
                let r2 = ((u as f32 - cx).powi(2) + (v as f32 - cy).powi(2)) / norm2;
                k = 1.0 - look.vignette * r2 * r2.sqrt().min(1.0);
            }
            buf[i] = std::array::from_fn(|j| c[j] * gain[j] * k);
        }
    }
}

/// A scene's geometry before any pixel is drawn.
struct Layout {
    h: [[f64; 3]; 3],
    hinv: [[f64; 3]; 3],
    /// sin of the tilt, and the camera's distance.
    st: f64,
    d: f64,
    lens: Lens,
    card: (f32, f32),
    pitch: (f32, f32),
    centre_cell: (f32, f32),
    offset: (f32, f32),
    layout_radius: f32,
    placed: Vec<Placed>,
    unders: Vec<Placed>,
    truth: Vec<CellTruth>,
}

/// Where every card of a scene lands, without drawing it: the truth of
/// [`render`] (with every card fully visible). Cheap, for fitting a layout
/// into the frame.
pub fn lay_out(table: &Table, params: &SceneParams) -> Vec<CellTruth> {
    layout(table, params).truth
}

fn layout(table: &Table, p: &SceneParams) -> Layout {
    let (fw, fh) = (p.width.max(1), p.height.max(1));
    let mut layout_rng = StdRng::seed_from_u64(p.seed);

    // The camera.
    let d = 1.2 * fw.max(fh) as f64;
    let (st, ct) = (p.tilt_deg as f64).to_radians().sin_cos();
    let (cx, cy) = ((fw - 1) as f64 / 2.0, (fh - 1) as f64 / 2.0);
    let h = [
        [1.0, cx * st / d, cx],
        [0.0, (d * ct + cy * st) / d, cy],
        [0.0, st / d, 1.0],
    ];
    let hinv = invert(&h);
    let lens = Lens::new(p.look.barrel_k1, fw, fh);
    let project = |q: (f32, f32)| lens.distort(apply(&h, q));

    // The layout.
    let card = p.card_size();
    let pitch = p.cell_pitch();
    let (lo, hi) = table.bounds().unwrap_or_default();
    let centre_cell = p.anchor.unwrap_or((
        (lo.col + hi.col) as f32 / 2.0,
        (lo.row + hi.row) as f32 / 2.0,
    ));
    let (rs, rc) = p.layout_rotation_deg.to_radians().sin_cos();
    let offset = {
        let m = 0.03 * fw.min(fh) as f32;
        (
            layout_rng.random_range(-m..=m),
            layout_rng.random_range(-m..=m),
        )
    };
    let half = (
        ((hi.col - lo.col) as f32 * pitch.0 + card.1) / 2.0,
        ((hi.row - lo.row) as f32 * pitch.1 + card.1) / 2.0,
    );
    let layout_radius = (half.0 * half.0 + half.1 * half.1).sqrt();

    let mut placed = Vec::new();
    let mut unders: Vec<Placed> = Vec::new();
    let mut truth = Vec::new();
    for (cell, token) in table.iter() {
        let mut cell_rng;
        let layout_rng = if p.anchor.is_some() {
            let key = (cell.col as u32 as u64) << 32 | cell.row as u32 as u64;
            let again = p.laid_again.iter().find(|l| l.0 == cell).map_or(0, |l| l.1);
            let seed = p.seed ^ u64::from(again).wrapping_mul(0xD1B5_4A32_D192_ED03);
            cell_rng = StdRng::seed_from_u64(seed ^ key.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            &mut cell_rng
        } else {
            &mut layout_rng
        };
        let jx = layout_rng.random_range(-1.0..=1.0f32) * p.gap_jitter_px;
        let jy = layout_rng.random_range(-1.0..=1.0f32) * p.gap_jitter_px;
        let turns: u8 = if p.quarter_turns {
            layout_rng.random_range(0..4)
        } else if p.look.half_turns {
            2 * layout_rng.random_range(0..2u8)
        } else {
            0
        };
        let skew = layout_rng.random_range(-1.0..=1.0f32) * p.per_card_skew_deg;
        let q = (
            (cell.col as f32 - centre_cell.0) * pitch.0 + jx,
            (cell.row as f32 - centre_cell.1) * pitch.1 + jy,
        );
        let centre = (
            rc * q.0 - rs * q.1 + offset.0,
            rs * q.0 + rc * q.1 + offset.1,
        );
        let angle_deg = p.layout_rotation_deg + 90.0 * turns as f32 + skew;
        let (s, c) = angle_deg.to_radians().sin_cos();
        let pc = Placed {
            centre,
            cs: (c, s),
            image: 0,
            face: token.card(),
        };
        let (w2, h2) = (card.0 / 2.0, card.1 / 2.0);
        let outline = [(-w2, -h2), (w2, -h2), (w2, h2), (-w2, h2)];
        let corners_px = outline.map(|l| project(pc.to_plane(l)));
        let mut under_px = None;
        if let Token::Pair(_, partner) = token {
            // Away from the layout's centre along its nearer grid axis,
            // then along the king's nearer card axis.
            let (dc, dr) = (
                cell.col as f32 - centre_cell.0,
                cell.row as f32 - centre_cell.1,
            );
            let out = if dc.abs() > dr.abs() {
                (dc.signum(), 0.0)
            } else {
                (0.0, if dr < 0.0 { -1.0 } else { 1.0 })
            };
            let out = (rc * out.0 - rs * out.1, rs * out.0 + rc * out.1);
            let local = pc.to_local((centre.0 + out.0, centre.1 + out.1));
            let step = THRONE_SHIFT * card.0;
            let shift = if local.0.abs() > local.1.abs() {
                (step * local.0.signum(), 0.0)
            } else {
                (0.0, step * local.1.signum())
            };
            let under = Placed {
                centre: pc.to_plane(shift),
                cs: pc.cs,
                image: 0,
                face: Some(partner),
            };
            under_px = Some(outline.map(|l| project(under.to_plane(l))));
            unders.push(under);
        }
        truth.push(CellTruth {
            cell,
            token,
            visible: 1.0,
            print_washed: 0.0,
            glare_clipped: 0.0,
            blur_sigma: p.blur_sigma,
            lens_k1: p.look.barrel_k1,
            centre_px: project(centre),
            corners_px,
            turns,
            angle_deg,
            under_px,
        });
        placed.push(pc);
    }
    Layout {
        h,
        hinv,
        st,
        d,
        lens,
        card,
        pitch,
        centre_cell,
        offset,
        layout_radius,
        placed,
        unders,
        truth,
    }
}

/// A placed card's outline in the frame.
fn outline_px(h: &[[f64; 3]; 3], pc: &Placed, card: (f32, f32)) -> [(f32, f32); 4] {
    let (w2, h2) = (card.0 / 2.0, card.1 / 2.0);
    [(-w2, -h2), (w2, -h2), (w2, h2), (-w2, h2)].map(|l| apply(h, pc.to_plane(l)))
}

/// A standard normal deviate (Box–Muller).
fn gaussian(rng: &mut StdRng) -> f32 {
    let u1: f32 = rng.random_range(f32::EPSILON..1.0);
    let u2: f32 = rng.random_range(0.0..1.0);
    (-2.0 * u1.ln()).sqrt() * (std::f32::consts::TAU * u2).cos()
}

/// The expected observation of a scene as table-script steps: a
/// `busy = true` step first when the hand covers a card, then the table.
/// (A script step holds one kind, so busy cannot sit beside the table.)
pub fn truth_toml(table: &Table, scene: &Scene, params: &SceneParams) -> String {
    let mut s = format!("# scene: {params:?}\n");
    if scene.busy {
        s.push_str("[[step]]\nbusy = true\n\n");
    }
    s.push_str(&step_toml(table));
    s
}

/// Renders each frame and writes `dir/name/NNN.png` (or `.jpg` when
/// `jpeg_quality` is set) with `NNN.toml`, its expected observation (see
/// [`truth_toml`]). The cloth is [`felt`] seeded by each frame's seed.
pub fn write_set(
    dir: &Path,
    name: &str,
    frames: &[(Table, SceneParams)],
    card_image: &dyn Fn(Option<Card>) -> RgbImage,
) -> io::Result<()> {
    let out = dir.join(name);
    fs::create_dir_all(&out)?;
    for (n, (table, params)) in frames.iter().enumerate() {
        let cloth = felt(256, params.seed);
        let scene = render(table, params, card_image, &cloth);
        match &scene.jpeg {
            Some(bytes) => fs::write(out.join(format!("{n:03}.jpg")), bytes)?,
            None => scene
                .image
                .save_with_format(out.join(format!("{n:03}.png")), ImageFormat::Png)
                .map_err(io::Error::other)?,
        }
        fs::write(
            out.join(format!("{n:03}.toml")),
            truth_toml(table, &scene, params),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_core::observation::Observation;
    use arbiter_core::script::Script;

    fn small(mut p: SceneParams) -> SceneParams {
        p.width = 320;
        p.height = 180;
        p.pitch_px = 24.0;
        p
    }

    fn cards(w: u32) -> impl Fn(Option<Card>) -> RgbImage {
        move |c| stand_in_card(c, w)
    }

    fn table(text: &str) -> Table {
        Table::parse_grid(text, Cell::new(0, 0)).unwrap()
    }

    const FOUR: &str = "rK uQ ##\n.. yN bP\n";

    fn close(a: [u8; 3], b: [u8; 3], tol: i32) -> bool {
        a.iter()
            .zip(b)
            .all(|(x, y)| (*x as i32 - y as i32).abs() <= tol)
    }

    #[test]
    fn same_seed_same_bytes() {
        let t = table(FOUR);
        let mut p = small(SceneParams::tough());
        p.seed = 7;
        let cloth = felt(64, 7);
        let a = render(&t, &p, &cards(40), &cloth);
        let b = render(&t, &p, &cards(40), &cloth);
        assert_eq!(a.image.as_raw(), b.image.as_raw());
        assert_eq!(a.jpeg, b.jpeg);
        assert_eq!(a.truth, b.truth);
        p.seed = 8;
        let c = render(&t, &p, &cards(40), &cloth);
        assert_ne!(a.image.as_raw(), c.image.as_raw());
    }

    #[test]
    fn clean_centres_show_the_card_colour() {
        let t = table(FOUR);
        let p = small(SceneParams::clean());
        let s = render(&t, &p, &cards(40), &felt(64, 0));
        assert_eq!(s.truth.len(), 5);
        for ct in &s.truth {
            let (x, y) = ct.centre_px;
            assert!((0.0..320.0).contains(&x) && (0.0..180.0).contains(&y));
            let px = s.image.get_pixel(x.round() as u32, y.round() as u32).0;
            let want = match ct.token {
                Token::Up(c) => stand_in_colour(c.colour),
                _ => [30, 40, 110],
            };
            // The back's centre is its light diamond.
            let want = if ct.token == Token::Down {
                [200, 200, 220]
            } else {
                want
            };
            assert!(close(px, want, 12), "{:?}: {px:?} vs {want:?}", ct.cell);
            assert_eq!(ct.visible, 1.0);
        }
        // Neighbours in a row are one pitch apart; rows the long pitch.
        let at = |c: Cell| s.truth.iter().find(|t| t.cell == c).unwrap().centre_px;
        let (a, b, d) = (
            at(Cell::new(0, 0)),
            at(Cell::new(1, 0)),
            at(Cell::new(1, 1)),
        );
        let (px, py) = p.cell_pitch();
        assert!((b.0 - a.0 - px).abs() < 0.01 && (b.1 - a.1).abs() < 0.01);
        assert!((d.1 - b.1 - py).abs() < 0.01);
        assert!(!s.busy);
    }

    #[test]
    fn rotated_and_skewed_centres_still_hit_their_card() {
        let t = table(FOUR);
        let mut p = small(SceneParams::clean());
        p.layout_rotation_deg = 137.0;
        p.per_card_skew_deg = 10.0;
        p.quarter_turns = true;
        p.gap_jitter_px = 2.0;
        p.tilt_deg = 20.0;
        p.seed = 3;
        let s = render(&t, &p, &cards(40), &felt(64, 0));
        for ct in &s.truth {
            if let Token::Up(c) = ct.token {
                let (x, y) = ct.centre_px;
                let px = s.image.get_pixel(x.round() as u32, y.round() as u32).0;
                assert!(close(px, stand_in_colour(c.colour), 20), "{:?}", ct.cell);
            }
        }
    }

    #[test]
    fn a_hand_covers_cells_and_makes_the_frame_busy() {
        let t = table("rK uQ yN\nbP wB rR\nuN yP ##\n");
        let mut p = small(SceneParams::clean());
        p.hand = Some(HandParams {
            reach: 0.6,
            from_deg: Some(0.0),
            size: 1.0,
        });
        let s = render(&t, &p, &cards(40), &felt(64, 0));
        assert!(s.busy);
        let vis = |c: Cell| s.truth.iter().find(|t| t.cell == c).unwrap().visible;
        // From the right (+x): the right column is covered more than the left.
        assert!(vis(Cell::new(2, 1)) < 0.5, "{}", vis(Cell::new(2, 1)));
        assert!(vis(Cell::new(2, 1)) < vis(Cell::new(0, 1)));
        assert_eq!(vis(Cell::new(0, 0)), 1.0);
        assert_eq!(vis(Cell::new(0, 2)), 1.0);
        // Where the hand covers a card's centre, the card's colour is gone.
        let rr = s.truth.iter().find(|t| t.cell == Cell::new(2, 1)).unwrap();
        let (x, y) = rr.centre_px;
        let px = s.image.get_pixel(x.round() as u32, y.round() as u32).0;
        assert!(!close(px, stand_in_colour(Colour::Red), 40), "{px:?}");
        let toml = truth_toml(&t, &s, &p);
        assert!(toml.contains("busy = true"));
        let script = Script::parse("t", &format!("game = \"enprise\"\n{toml}")).unwrap();
        let obs: Vec<&Observation> = script.observations().collect();
        assert!(matches!(obs[0], Observation::Busy));
        assert!(matches!(obs[1], Observation::Table(tt) if *tt == t));
    }

    #[test]
    fn tilt_keeps_a_modest_layout_in_frame() {
        let t = table("rK uQ yN bP\nbP wB rR ##\n");
        for seed in 0..4 {
            let mut p = small(SceneParams::tough());
            p.hand = None;
            p.jpeg_quality = None;
            p.seed = seed;
            p.layout_rotation_deg = 40.0 * seed as f32;
            let s = render(&t, &p, &cards(40), &felt(64, 0));
            for ct in &s.truth {
                for (x, y) in ct.corners_px {
                    assert!((0.0..320.0).contains(&x) && (0.0..180.0).contains(&y));
                }
            }
            // The top of the frame is nearer: cards there look bigger.
            let area = |c: &CellTruth| {
                let q = c.corners_px;
                (0..4)
                    .map(|i| {
                        let (a, b) = (q[i], q[(i + 1) % 4]);
                        a.0 * b.1 - b.0 * a.1
                    })
                    .sum::<f32>()
                    .abs()
            };
            let top = s
                .truth
                .iter()
                .min_by(|a, b| a.centre_px.1.total_cmp(&b.centre_px.1))
                .unwrap();
            let bottom = s
                .truth
                .iter()
                .max_by(|a, b| a.centre_px.1.total_cmp(&b.centre_px.1))
                .unwrap();
            assert!(area(top) > area(bottom));
        }
    }

    /// A card of one flat colour on a plain white table.
    fn flat(_: Option<Card>) -> RgbImage {
        RgbImage::from_pixel(40, 56, Rgb([200, 30, 30]))
    }

    fn white_table(pitch: f32) -> Look {
        Look {
            surface: Some(Surface {
                kind: SurfaceKind::White,
                base: [235.0; 3],
                second: [0.0; 3],
                px_per_cm: pitch / surface::CARD_CM,
                feature_cm: 0.0,
                angle_deg: 0.0,
                seed: 0,
            }),
            ..Look::default()
        }
    }

    #[test]
    fn truth_corners_land_on_the_card_through_a_barrel_lens() {
        let t = table("rK uQ\nbP ##\n");
        for k1 in [0.0, 0.25] {
            let mut p = small(SceneParams::clean());
            p.pitch_px = 40.0;
            p.layout_rotation_deg = 31.0;
            p.tilt_deg = 20.0;
            p.look = Look {
                barrel_k1: k1,
                card_relief: 1.0,
                gap_fraction: Some(0.3),
                ..white_table(40.0)
            };
            let s = render(&t, &p, &flat, &felt(32, 0));
            let red = |x: f32, y: f32| {
                let px = s.image.get_pixel(x.round() as u32, y.round() as u32).0;
                px[0] > 150 && px[1] < 90
            };
            for ct in &s.truth {
                let (cx, cy) = ct.centre_px;
                assert!(red(cx, cy));
                for (x, y) in ct.corners_px {
                    // 3 px in from each corner is card, 3 px out is not.
                    let (dx, dy) = (cx - x, cy - y);
                    let n = dx.hypot(dy);
                    assert!(
                        red(x + 3.0 * dx / n, y + 3.0 * dy / n),
                        "k1 {k1} {:?}",
                        ct.cell
                    );
                    assert!(
                        !red(x - 3.0 * dx / n, y - 3.0 * dy / n),
                        "k1 {k1} {:?}",
                        ct.cell
                    );
                }
            }
            // lay_out agrees with render.
            let l = lay_out(&t, &p);
            assert_eq!(
                l.iter().map(|c| c.corners_px).collect::<Vec<_>>(),
                s.truth.iter().map(|c| c.corners_px).collect::<Vec<_>>()
            );
            // The geometry projects as the truth says.
            let c = s.geometry.project((0.0, 0.0));
            assert!(c.0.is_finite() && c.1.is_finite());
        }
    }

    #[test]
    fn a_default_look_changes_no_byte_and_no_truth_line() {
        let t = table(FOUR);
        let mut p = small(SceneParams::tough());
        p.seed = 5;
        let text = format!("{p:?}");
        assert!(!text.contains("look"), "{text}");
        assert!(text.starts_with("SceneParams { width: 320, height: 180,"));
        let mut q = p.clone();
        q.look.white_balance = 0.5;
        assert!(format!("{q:?}").contains("look: Look {"));
        let a = render(&t, &p, &cards(40), &felt(64, 5));
        let b = render(&t, &q, &cards(40), &felt(64, 5));
        assert_ne!(a.image.as_raw(), b.image.as_raw());
    }

    #[test]
    fn glare_burns_out_and_white_balance_tints() {
        let t = table("rK\n");
        let mut p = small(SceneParams::clean());
        p.look = Look {
            glare: Some(Glare {
                at: (0.2, 0.2),
                radius: 0.1,
                strength: 1.0,
            }),
            white_balance: 0.8,
            ..white_table(24.0)
        };
        let s = render(&t, &p, &flat, &felt(32, 0));
        let at = |x: u32, y: u32| s.image.get_pixel(x, y).0;
        let spot = at(64, 36);
        assert!(spot[0] == 255 && spot[1] >= 250, "{spot:?}");
        // Away from the spot, the white table is warm: more red than blue.
        let far = at(300, 170);
        assert!(far[0] as i32 - far[2] as i32 > 30, "{far:?}");
    }

    #[test]
    fn a_sleeve_covers_the_forearm_and_a_glove_the_hand() {
        let t = table("rK uQ yN\nbP wB rR\nuN yP ##\n");
        let look = |glove: bool| Look {
            occluder: Some(OccluderLook {
                skin: SKIN_TONES[7],
                sleeve: Some(Sleeve {
                    colour: [20, 200, 40],
                    cuff: 1.0,
                    glove,
                }),
            }),
            ..white_table(24.0)
        };
        let mut p = small(SceneParams::clean());
        p.hand = Some(HandParams {
            reach: 0.6,
            from_deg: Some(0.0),
            size: 1.0,
        });
        let count = |s: &Scene, c: [u8; 3]| {
            s.image
                .pixels()
                .filter(|px| {
                    px.0.iter()
                        .zip(c)
                        .all(|(a, b)| (*a as i32 - b as i32).abs() < 40)
                })
                .count()
        };
        p.look = look(false);
        let sleeve = render(&t, &p, &cards(40), &felt(32, 0));
        assert!(sleeve.busy);
        p.look = look(true);
        let glove = render(&t, &p, &cards(40), &felt(32, 0));
        assert!(count(&sleeve, [20, 200, 40]) > 500);
        assert!(count(&glove, [20, 200, 40]) > count(&sleeve, [20, 200, 40]));
        assert!(count(&sleeve, [62, 42, 30]) > 100);
    }

    #[test]
    fn jpeg_set_decodes_and_reads_back() {
        let dir = std::env::temp_dir().join(format!("arbiter-scene-{}", std::process::id()));
        let t = table(FOUR);
        let mut jp = small(SceneParams::tough());
        jp.hand = None;
        let png = small(SceneParams::clean());
        write_set(
            &dir,
            "s",
            &[(t.clone(), jp), (Table::new(), png)],
            &cards(40),
        )
        .unwrap();
        let img = image::open(dir.join("s/000.jpg")).unwrap().to_rgb8();
        assert_eq!(img.dimensions(), (320, 180));
        let img = image::open(dir.join("s/001.png")).unwrap().to_rgb8();
        assert_eq!(img.dimensions(), (320, 180));
        let toml = fs::read_to_string(dir.join("s/000.toml")).unwrap();
        let script = Script::parse("t", &format!("game = \"enprise\"\n{toml}")).unwrap();
        let obs: Vec<&Observation> = script.observations().collect();
        assert!(matches!(obs[..], [Observation::Table(tt)] if *tt == t));
        fs::remove_dir_all(&dir).unwrap();
    }
}
