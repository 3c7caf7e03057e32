//! Procedural table surfaces, evaluated at any point of the table plane:
//! wood with grain and plank seams, plain white and cream tables, linen,
//! slate, felt of any colour, gingham and striped cloths.
//!
//! Every surface is measured in centimetres on the table, so that its
//! features keep their real size next to the cards: [`Surface::px_per_cm`]
//! is the plane's scale (a card is 6.3 cm wide). Each has a colour, a
//! second colour where it has one (late wood, the checks), a feature size
//! (plank width, check size, thread pitch), an orientation and a seed; all
//! drawn at random around the kind's typical values by [`Surface::random`].
//! A point is shaded with the footprint of one frame pixel on the plane, so
//! that detail finer than a pixel fades to its average instead of aliasing.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A card's width in centimetres, for the scale of surfaces.
pub const CARD_CM: f32 = 6.3;

/// The kinds of table surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SurfaceKind {
    /// Felt or baize of any colour: fine fibres, soft mottling.
    Felt,
    /// Pale wood (pine, oak, birch): grain lines, knots, plank seams.
    LightWood,
    /// Dark wood (walnut, mahogany).
    DarkWood,
    /// A white laminate table.
    White,
    /// A cream or off-white table.
    Cream,
    /// A linen cloth: fine plain weave with uneven threads.
    Linen,
    /// Grey slate or stone: mottled, speckled, faint veins.
    GreySlate,
    /// Black slate.
    BlackSlate,
    /// A gingham tablecloth: checks of white and a colour, two-tone where
    /// the bands cross.
    Gingham,
    /// A striped tablecloth.
    Stripes,
}

impl SurfaceKind {
    pub const ALL: [SurfaceKind; 10] = [
        SurfaceKind::Felt,
        SurfaceKind::LightWood,
        SurfaceKind::DarkWood,
        SurfaceKind::White,
        SurfaceKind::Cream,
        SurfaceKind::Linen,
        SurfaceKind::GreySlate,
        SurfaceKind::BlackSlate,
        SurfaceKind::Gingham,
        SurfaceKind::Stripes,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SurfaceKind::Felt => "felt",
            SurfaceKind::LightWood => "light-wood",
            SurfaceKind::DarkWood => "dark-wood",
            SurfaceKind::White => "white",
            SurfaceKind::Cream => "cream",
            SurfaceKind::Linen => "linen",
            SurfaceKind::GreySlate => "grey-slate",
            SurfaceKind::BlackSlate => "black-slate",
            SurfaceKind::Gingham => "gingham",
            SurfaceKind::Stripes => "stripes",
        }
    }
}

/// Named felt colours; `Felt` surfaces take any colour, these are the ones
/// the fixture sets use. "green" is the renderer's classic felt and the
/// outline deck's back.
pub const FELT_COLOURS: [(&str, [f32; 3]); 6] = [
    ("green", [38.0, 102.0, 58.0]),
    ("blue", [30.0, 58.0, 120.0]),
    ("red", [130.0, 28.0, 34.0]),
    ("purple", [78.0, 40.0, 100.0]),
    ("black", [26.0, 26.0, 30.0]),
    ("teal", [20.0, 100.0, 100.0]),
];

/// Cloth colours for gingham and stripes.
pub const CLOTH_COLOURS: [(&str, [f32; 3]); 6] = [
    ("red", [190.0, 35.0, 40.0]),
    ("blue", [40.0, 70.0, 170.0]),
    ("green", [40.0, 125.0, 60.0]),
    ("black", [35.0, 35.0, 38.0]),
    ("yellow", [225.0, 185.0, 40.0]),
    ("navy", [25.0, 35.0, 80.0]),
];

/// One table surface. Same fields: same texture.
#[derive(Clone, Debug, PartialEq)]
pub struct Surface {
    pub kind: SurfaceKind,
    /// The main colour (early wood, the cloth's ground, the felt).
    pub base: [f32; 3],
    /// The second colour (late wood and seams, the checks, the stripes).
    pub second: [f32; 3],
    /// Plane pixels per centimetre on the table.
    pub px_per_cm: f32,
    /// Plank width, check size, stripe repeat or thread pitch, in cm.
    pub feature_cm: f32,
    /// Direction of the grain, threads or checks, degrees.
    pub angle_deg: f32,
    pub seed: u64,
}

fn jitter(r: &mut StdRng, c: [f32; 3], by: f32) -> [f32; 3] {
    let k = 1.0 + r.random_range(-by..=by);
    c.map(|v| (v * k * (1.0 + r.random_range(-by / 3.0..=by / 3.0))).clamp(0.0, 255.0))
}

impl Surface {
    /// A surface of `kind` with colour, scale and orientation drawn from
    /// `seed`, for cards `card_px` plane pixels wide.
    pub fn random(kind: SurfaceKind, card_px: f32, seed: u64) -> Surface {
        let mut r = StdRng::seed_from_u64(seed ^ 0x5_0BF_ACE);
        let angle_deg = r.random_range(0.0..180.0);
        let px_per_cm = card_px / CARD_CM;
        let (base, second, feature_cm) = match kind {
            SurfaceKind::Felt => {
                let c = FELT_COLOURS[r.random_range(0..FELT_COLOURS.len())].1;
                (jitter(&mut r, c, 0.12), c, 1.5)
            }
            SurfaceKind::LightWood => {
                let b = jitter(&mut r, [208.0, 168.0, 118.0], 0.1);
                let s = b.map(|v| v * r.random_range(0.72..0.85));
                (b, s, r.random_range(9.0..20.0))
            }
            SurfaceKind::DarkWood => {
                let b = jitter(&mut r, [104.0, 64.0, 40.0], 0.15);
                let s = b.map(|v| v * r.random_range(0.55..0.75));
                (b, s, r.random_range(9.0..20.0))
            }
            SurfaceKind::White => (jitter(&mut r, [238.0, 238.0, 235.0], 0.03), [0.0; 3], 0.0),
            SurfaceKind::Cream => (jitter(&mut r, [238.0, 226.0, 196.0], 0.04), [0.0; 3], 0.0),
            SurfaceKind::Linen => {
                let options = [
                    [204.0, 192.0, 168.0],
                    [232.0, 229.0, 220.0],
                    [172.0, 172.0, 166.0],
                    [150.0, 160.0, 175.0],
                ];
                let pick = options[r.random_range(0..options.len())];
                let b = jitter(&mut r, pick, 0.05);
                (b, b, r.random_range(0.05..0.1))
            }
            SurfaceKind::GreySlate => (
                jitter(&mut r, [98.0, 103.0, 110.0], 0.1),
                [0.0; 3],
                r.random_range(3.0..10.0),
            ),
            SurfaceKind::BlackSlate => (
                jitter(&mut r, [40.0, 42.0, 46.0], 0.1),
                [0.0; 3],
                r.random_range(3.0..10.0),
            ),
            SurfaceKind::Gingham => {
                let c = CLOTH_COLOURS[r.random_range(0..CLOTH_COLOURS.len())].1;
                // Checks from fine (4 mm) to a card's size.
                let size = if r.random_bool(0.3) {
                    r.random_range(4.5..7.5)
                } else {
                    r.random_range(0.4..3.0)
                };
                (jitter(&mut r, [240.0, 238.0, 232.0], 0.03), c, size)
            }
            SurfaceKind::Stripes => {
                let c = CLOTH_COLOURS[r.random_range(0..CLOTH_COLOURS.len())].1;
                let ground = if r.random_bool(0.6) {
                    [236.0, 232.0, 222.0]
                } else {
                    CLOTH_COLOURS[r.random_range(0..CLOTH_COLOURS.len())].1
                };
                (jitter(&mut r, ground, 0.04), c, r.random_range(1.0..8.0))
            }
        };
        Surface {
            kind,
            base,
            second,
            px_per_cm,
            feature_cm,
            angle_deg,
            seed,
        }
    }

    /// Felt of the given colour.
    pub fn felt(colour: [f32; 3], card_px: f32, seed: u64) -> Surface {
        Surface {
            kind: SurfaceKind::Felt,
            base: colour,
            second: colour,
            px_per_cm: card_px / CARD_CM,
            feature_cm: 1.5,
            angle_deg: 0.0,
            seed,
        }
    }

    /// A short name for reports: the kind, and a felt's colour when it is
    /// one of [`FELT_COLOURS`].
    pub fn label(&self) -> String {
        if self.kind == SurfaceKind::Felt {
            let near = FELT_COLOURS
                .iter()
                .min_by(|a, b| dist2(a.1, self.base).total_cmp(&dist2(b.1, self.base)))
                .map(|c| c.0)
                .unwrap_or("green");
            return format!("felt-{near}");
        }
        self.kind.name().to_string()
    }

    /// The colour at plane point `(x, y)`; `footprint` is the size of one
    /// frame pixel on the plane (plane pixels).
    pub fn colour_at(&self, x: f32, y: f32, footprint: f32) -> [f32; 3] {
        let (s, c) = self.angle_deg.to_radians().sin_cos();
        let k = 1.0 / self.px_per_cm.max(1e-3);
        // Along and across the grain, in cm.
        let (a, b) = ((c * x + s * y) * k, (-s * x + c * y) * k);
        let fp = footprint.max(0.05) * k;
        let seed = self.seed;
        match self.kind {
            SurfaceKind::Felt => {
                let mottle = fbm(a / 2.0, b / 2.0, 3, seed) - 0.5;
                let grain = noise(a * 4.0, b * 4.0, seed ^ 1) - 0.5;
                let fibre = hash2(x.floor() as i32, y.floor() as i32, seed ^ 2) - 0.5;
                let k = 1.0 + 0.16 * mottle + 0.08 * grain + 0.10 * fibre;
                self.base.map(|v| v * k)
            }
            SurfaceKind::LightWood | SurfaceKind::DarkWood => self.wood(a, b, fp),
            SurfaceKind::White | SurfaceKind::Cream => {
                let m = fbm(a / 15.0, b / 15.0, 2, seed) - 0.5;
                let speck = hash2(x.floor() as i32, y.floor() as i32, seed ^ 3) - 0.5;
                let k = 1.0 + 0.03 * m + 0.015 * speck;
                self.base.map(|v| v * k)
            }
            SurfaceKind::Linen => {
                let w = self.weave(a, b, fp, 0.16);
                let slub = noise(a * 0.4, b / self.feature_cm, seed ^ 7) - 0.5;
                let fold = fbm(a / 12.0, b / 12.0, 2, seed ^ 8) - 0.5;
                let k = w * (1.0 + 0.08 * slub + 0.06 * fold);
                self.base.map(|v| v * k)
            }
            SurfaceKind::GreySlate | SurfaceKind::BlackSlate => {
                let f = self.feature_cm;
                let m = fbm(a / f, b / f, 4, seed) - 0.5;
                let fine = fbm(a / 0.4, b / 0.4, 2, seed ^ 4) - 0.5;
                let vein = (fbm(a / (3.0 * f) + 3.0, b / (8.0 * f), 3, seed ^ 5) - 0.5).abs();
                let vein = (1.0 - vein / 0.008).clamp(0.0, 1.0);
                let speck = hash2(x.floor() as i32, y.floor() as i32, seed ^ 6);
                let speck = if speck > 0.985 { 0.25 } else { 0.0 };
                let dark = self.kind == SurfaceKind::BlackSlate;
                let k = 1.0 + 0.22 * m + 0.08 * fine + if dark { 0.35 } else { 0.12 } * vein;
                self.base.map(|v| v * k + speck * 40.0)
            }
            SurfaceKind::Gingham => {
                let size = self.feature_cm;
                let h = band(a, size, fp);
                let v = band(b, size, fp);
                // A band alone is half the colour; crossed bands are full.
                let t = 0.5 * h + 0.5 * v;
                let weave = self.weave(a, b, fp, 0.08);
                let fold = 1.0 + 0.05 * (fbm(a / 9.0, b / 25.0, 2, seed ^ 9) - 0.5);
                mix(self.base, self.second, t).map(|c| c * weave * fold)
            }
            SurfaceKind::Stripes => {
                let repeat = self.feature_cm;
                // A wide stripe and a thin one in each repeat.
                let wide = band2(b, repeat, 0.0, 0.35 * repeat, fp);
                let thin = band2(b, repeat, 0.55 * repeat, 0.65 * repeat, fp);
                let t = (wide + 0.7 * thin).min(1.0);
                let weave = self.weave(a, b, fp, 0.08);
                let fold = 1.0 + 0.05 * (fbm(a / 25.0, b / 9.0, 2, seed ^ 9) - 0.5);
                mix(self.base, self.second, t).map(|c| c * weave * fold)
            }
        }
    }

    /// A plain weave's brightness around 1: threads `0.1 cm` apart (the
    /// feature size for linen), faded where a pixel covers a thread.
    fn weave(&self, a: f32, b: f32, fp: f32, depth: f32) -> f32 {
        let p = if self.kind == SurfaceKind::Linen {
            self.feature_cm
        } else {
            0.05
        };
        let fade = ((p / fp - 1.5) / 1.5).clamp(0.0, 1.0);
        if fade <= 0.0 {
            return 1.0;
        }
        let (i, j) = ((a / p).floor(), (b / p).floor());
        let (fa, fb) = (a / p - i, b / p - j);
        let over = (i as i64 + j as i64).rem_euclid(2) == 0;
        // The thread on top is lit in its middle, dark at its sides.
        let prof = if over {
            (std::f32::consts::PI * fb).sin()
        } else {
            (std::f32::consts::PI * fa).sin()
        };
        let thread = hash2(
            if over { j as i32 } else { i as i32 },
            over as i32,
            self.seed ^ 11,
        );
        1.0 + fade * depth * (prof - 0.6 + 0.5 * (thread - 0.5))
    }

    fn wood(&self, a: f32, b: f32, fp: f32) -> [f32; 3] {
        let seed = self.seed;
        let w = self.feature_cm;
        let pi = (b / w).floor();
        let fb = b - pi * w;
        let pid = pi as i32;
        // Planks end in butt joints, staggered from plank to plank.
        let len = 90.0 + 60.0 * hash2(pid, 1, seed);
        let ao = a + hash2(pid, 2, seed) * len;
        let pj = (ao / len).floor();
        let fa = ao - pj * len;
        let id = (pid, pj as i32);
        let tone = 1.0 + 0.16 * (hash2(id.0, id.1 ^ 0x55, seed) - 0.5);
        // Rings across the plank, warped slowly along it.
        let phase = 100.0 * hash2(id.0, id.1, seed ^ 3);
        let warp = 2.5 * (fbm(a / 25.0, (b + phase) / 3.0, 3, seed ^ 4) - 0.5);
        // A knot or two per plank bends the rings round it.
        let mut knot = 0.0;
        let mut bend = 0.0;
        for n in 0..2 {
            if hash2(id.0, id.1 * 7 + n, seed ^ 5) < 0.5 {
                continue;
            }
            let kx = hash2(id.0, id.1 * 7 + n, seed ^ 6) * len;
            let ky = (0.2 + 0.6 * hash2(id.0, id.1 * 7 + n, seed ^ 7)) * w;
            let r = 0.4 + 0.8 * hash2(id.0, id.1 * 7 + n, seed ^ 8);
            let (dx, dy) = ((fa - kx) / 3.0, fb - ky);
            let d = (dx * dx + dy * dy).sqrt();
            bend += 1.5 * r * r / (d + r);
            knot += (1.0 - d / r).clamp(0.0, 1.0);
        }
        let spacing = 0.35 + 0.3 * hash2(id.0, id.1 ^ 0x77, seed);
        let rings = (b + phase + warp + bend) / spacing;
        let t = rings - rings.floor();
        // Late wood: a narrow dark band in each ring.
        let late = ((t - 0.62) / 0.12).clamp(0.0, 1.0) * ((1.0 - t) / 0.12).clamp(0.0, 1.0);
        let fade = ((spacing / fp - 1.5) / 2.0).clamp(0.0, 1.0);
        let late = 0.25 + fade * (late - 0.25);
        // Fibres: fine streaks stretched along the grain.
        let streak = fbm(a / 6.0, (b + phase) / 0.08, 2, seed ^ 9) - 0.5;
        let streak = streak * ((0.08 / fp).clamp(0.0, 1.0));
        let mut col = mix(self.base, self.second, (0.75 * late + 0.8 * knot).min(1.0));
        col = col.map(|v| v * tone * (1.0 + 0.12 * streak));
        // Seams: a dark groove between planks, a softer bevel beside it.
        let side = fb.min(w - fb);
        let end = fa.min(len - fa);
        let d = side.min(end);
        let groove = 0.04f32.max(0.6 * fp);
        let dark = (1.0 - d / groove).clamp(0.0, 1.0);
        let bevel = (1.0 - d / 0.25).clamp(0.0, 1.0);
        let k = (1.0 - 0.65 * dark) * (1.0 - 0.12 * bevel);
        col.map(|v| v * k)
    }
}

fn dist2(a: [f32; 3], b: [f32; 3]) -> f32 {
    (0..3).map(|i| (a[i] - b[i]).powi(2)).sum()
}

fn mix(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    std::array::from_fn(|i| a[i] * (1.0 - t) + b[i] * t)
}

/// 1 inside every other band of width `size`, 0 between, with edges
/// softened over `fp`.
fn band(x: f32, size: f32, fp: f32) -> f32 {
    band2(x, 2.0 * size, size, 2.0 * size, fp)
}

/// 1 for `x` in `[lo, hi)` modulo `period`, edges softened over `fp`.
fn band2(x: f32, period: f32, lo: f32, hi: f32, fp: f32) -> f32 {
    let t = x - (x / period).floor() * period;
    let soft = fp.max(0.01);
    let edge = |d: f32| (0.5 + d / soft).clamp(0.0, 1.0);
    let inside = edge(t - lo).min(edge(hi - t));
    // The band that starts one period on, for points just before it.
    let wrap = edge(t - period - lo).min(edge(hi - t + period));
    let before = edge(t + period - lo).min(edge(hi - t - period));
    inside.max(wrap).max(before)
}

pub(crate) fn hash2(x: i32, y: i32, seed: u64) -> f32 {
    let mut h = seed ^ (x as u32 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^= (y as u32 as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    h ^= h >> 31;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^= h >> 29;
    h = h.wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^= h >> 32;
    (h >> 40) as f32 / (1u64 << 24) as f32
}

/// Smooth value noise in `[0, 1]` with unit lattice spacing.
pub(crate) fn noise(x: f32, y: f32, seed: u64) -> f32 {
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = (x - x0, y - y0);
    let (i, j) = (x0 as i32, y0 as i32);
    let s = |t: f32| t * t * (3.0 - 2.0 * t);
    let (sx, sy) = (s(fx), s(fy));
    let v = |a: i32, b: i32| hash2(a, b, seed);
    let top = v(i, j) * (1.0 - sx) + v(i + 1, j) * sx;
    let bot = v(i, j + 1) * (1.0 - sx) + v(i + 1, j + 1) * sx;
    top * (1.0 - sy) + bot * sy
}

/// Fractal value noise in `[0, 1]`.
pub(crate) fn fbm(x: f32, y: f32, octaves: u32, seed: u64) -> f32 {
    let (mut sum, mut amp, mut norm, mut f) = (0.0, 1.0, 0.0, 1.0);
    for o in 0..octaves {
        sum += amp * noise(x * f, y * f, seed.wrapping_add(o as u64 * 0x1F));
        norm += amp;
        amp *= 0.5;
        f *= 2.03;
    }
    sum / norm
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_renders_and_differs_from_the_others() {
        let mut means: Vec<(SurfaceKind, [f32; 3], f32)> = Vec::new();
        for kind in SurfaceKind::ALL {
            let s = Surface::random(kind, 60.0, 3);
            let mut sum = [0.0f32; 3];
            let mut lum = Vec::new();
            for y in 0..64 {
                for x in 0..64 {
                    let c = s.colour_at(x as f32 * 3.0, y as f32 * 3.0, 1.0);
                    assert!(c.iter().all(|v| v.is_finite()), "{kind:?}");
                    for i in 0..3 {
                        sum[i] += c[i] / 4096.0;
                    }
                    lum.push(c.iter().sum::<f32>() / 3.0);
                }
            }
            let m = lum.iter().sum::<f32>() / lum.len() as f32;
            let sd = (lum.iter().map(|l| (l - m).powi(2)).sum::<f32>() / lum.len() as f32).sqrt();
            means.push((kind, sum, sd));
        }
        for (i, a) in means.iter().enumerate() {
            for b in &means[i + 1..] {
                let d = dist2(a.1, b.1).sqrt() + 4.0 * (a.2 - b.2).abs();
                assert!(d > 3.0, "{:?} and {:?} look alike: {a:?} {b:?}", a.0, b.0);
            }
        }
    }

    #[test]
    fn wood_has_seams_and_grain_runs_along_the_planks() {
        let mut s = Surface::random(SurfaceKind::LightWood, 63.0, 1);
        s.angle_deg = 0.0;
        // Along the grain (x) the colour changes slowly, across it fast.
        let var = |dx: f32, dy: f32| {
            let mut v = 0.0;
            for k in 0..200 {
                let (x, y) = (5.0 + k as f32 * dx, 7.0 + k as f32 * dy);
                let a = s.colour_at(x, y, 1.0)[0];
                let b = s.colour_at(x + dx, y + dy, 1.0)[0];
                v += (a - b).abs();
            }
            v
        };
        assert!(var(0.0, 1.0) > 2.0 * var(1.0, 0.0));
        // A seam every plank width: the darkest row of a plank-wide strip
        // is much darker than the plank.
        let w = s.feature_cm * s.px_per_cm;
        let rows: Vec<f32> = (0..(2.0 * w) as i32)
            .map(|y| {
                (0..50)
                    .map(|x| s.colour_at(x as f32 * 4.0 + 300.0, y as f32, 1.0)[0])
                    .sum::<f32>()
                    / 50.0
            })
            .collect();
        let min = rows.iter().cloned().fold(f32::INFINITY, f32::min);
        let mean = rows.iter().sum::<f32>() / rows.len() as f32;
        assert!(min < 0.7 * mean, "{min} vs {mean}");
    }

    #[test]
    fn gingham_crossings_are_darker_than_single_bands() {
        let s = Surface {
            kind: SurfaceKind::Gingham,
            base: [240.0; 3],
            second: [40.0, 70.0, 170.0],
            px_per_cm: 10.0,
            feature_cm: 2.0,
            angle_deg: 0.0,
            seed: 0,
        };
        let at = |a: f32, b: f32| s.colour_at(a * 10.0, b * 10.0, 1.0)[0];
        let (none, one, both) = (at(1.0, 1.0), at(3.0, 1.0), at(3.0, 3.0));
        assert!(
            none > one + 40.0 && one > both + 40.0,
            "{none} {one} {both}"
        );
    }
}
