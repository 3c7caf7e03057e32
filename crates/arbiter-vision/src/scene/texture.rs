//! Procedural table textures beyond the named surfaces, for training the
//! learned identifier: noise, plaids, stripes, grains, tiles, dots and
//! mixtures of them, in any colours. Each is a tile the renderer repeats
//! over the table plane ([`crate::scene::render`]'s `table_texture`), its
//! features sized against the cards (`card_px` plane pixels wide).

use image::{Rgb, RgbImage};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::art::mix;
use super::surface::{fbm, noise};

/// The families of procedural texture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureFamily {
    Plain,
    Noise,
    Plaid,
    Stripes,
    Grain,
    Tiles,
    Dots,
    Mixture,
}

impl TextureFamily {
    pub const ALL: [TextureFamily; 8] = [
        TextureFamily::Plain,
        TextureFamily::Noise,
        TextureFamily::Plaid,
        TextureFamily::Stripes,
        TextureFamily::Grain,
        TextureFamily::Tiles,
        TextureFamily::Dots,
        TextureFamily::Mixture,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TextureFamily::Plain => "plain",
            TextureFamily::Noise => "noise",
            TextureFamily::Plaid => "plaid",
            TextureFamily::Stripes => "stripes",
            TextureFamily::Grain => "grain",
            TextureFamily::Tiles => "tiles",
            TextureFamily::Dots => "dots",
            TextureFamily::Mixture => "mixture",
        }
    }
}

fn colour(r: &mut StdRng) -> [f32; 3] {
    // Any colour, from near black to near white.
    let base: [f32; 3] = [0; 3].map(|_| r.random_range(0.0..255.0));
    let grey = r.random_range(10.0..245.0);
    mix(base, [grey; 3], r.random_range(0.0..1.0))
}

/// A `size`×`size` tile of `family` for cards `card_px` wide.
pub fn texture(family: TextureFamily, card_px: f32, size: u32, seed: u64) -> RgbImage {
    let mut r = StdRng::seed_from_u64(seed ^ 0x007E_470E);
    let (a, b, c) = (colour(&mut r), colour(&mut r), colour(&mut r));
    let angle: f32 = r.random_range(0.0..std::f32::consts::PI);
    let (sn, cs) = angle.sin_cos();
    let scale = card_px * r.random_range(0.05..1.5);
    let contrast = r.random_range(0.1..1.0);
    let b = mix(a, b, contrast);
    let grain = r.random_range(0.0..12.0);
    let second = if family == TextureFamily::Mixture {
        Some(TextureFamily::ALL[r.random_range(1..7)])
    } else {
        None
    };
    let first = if family == TextureFamily::Mixture {
        TextureFamily::ALL[r.random_range(1..7)]
    } else {
        family
    };
    let at = |fam: TextureFamily, x: f32, y: f32| -> [f32; 3] {
        let (u, v) = (x * cs + y * sn, -x * sn + y * cs);
        match fam {
            TextureFamily::Plain | TextureFamily::Mixture => a,
            TextureFamily::Noise => mix(a, b, fbm(u / scale, v / scale, 4, seed)),
            TextureFamily::Plaid => {
                let p = scale.max(4.0);
                let s = |t: f32| ((t / p).rem_euclid(1.0) < 0.4) as u8 as f32;
                let thin = |t: f32| ((t / p + 0.7).rem_euclid(1.0) < 0.08) as u8 as f32;
                let k = 0.5 * (s(u) + s(v));
                let base = mix(a, b, k);
                mix(base, c, 0.7 * thin(u).max(thin(v)))
            }
            TextureFamily::Stripes => {
                let p = scale.max(3.0);
                let duty = 0.5;
                mix(a, b, ((u / p).rem_euclid(1.0) < duty) as u8 as f32)
            }
            TextureFamily::Grain => {
                let wobble = fbm(u / (scale * 4.0), v / (scale * 0.5), 3, seed) * 6.0;
                let t = ((v / scale.max(2.0) * 3.0 + wobble).sin() * 0.5 + 0.5).powf(2.0);
                mix(a, b, t * 0.8 + 0.2 * noise(u / 2.0, v / 2.0, seed))
            }
            TextureFamily::Tiles => {
                let p = scale.max(6.0);
                let (fu, fv) = ((u / p).rem_euclid(1.0), (v / p).rem_euclid(1.0));
                if fu < 0.06 || fv < 0.06 {
                    c
                } else {
                    let (i, j) = ((u / p).floor() as i32, (v / p).floor() as i32);
                    mix(a, b, super::surface::hash2(i, j, seed) * contrast)
                }
            }
            TextureFamily::Dots => {
                let p = scale.max(4.0);
                let (fu, fv) = ((u / p).rem_euclid(1.0) - 0.5, (v / p).rem_euclid(1.0) - 0.5);
                if fu.hypot(fv) < 0.25 { b } else { a }
            }
        }
    };
    let blend_scale = card_px * r.random_range(0.5..4.0);
    RgbImage::from_fn(size, size, |x, y| {
        let (x, y) = (x as f32, y as f32);
        let mut col = at(first, x, y);
        if let Some(s) = second {
            let t = fbm(x / blend_scale, y / blend_scale, 3, seed ^ 0x55);
            let t = ((t - 0.5) * 6.0 + 0.5).clamp(0.0, 1.0);
            col = mix(col, at(s, x, y), t);
        }
        let n = (noise(x / 1.3, y / 1.3, seed ^ 0x9) - 0.5) * grain;
        Rgb(col.map(|v| (v + n).round().clamp(0.0, 255.0) as u8))
    })
}
