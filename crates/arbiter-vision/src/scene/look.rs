//! What a real table adds to the classic scene: its surface, a lamp's
//! glare, the white balance, a cheap lens, card stock with an edge and a
//! shadow, the gaps between cards, and the look of the hand over them
//! (skin tone, sleeve, glove). [`Look::default`] changes nothing, so that
//! every scene made before it renders to the same bytes.

use crate::scene::surface::Surface;

/// A lamp's reflection: a bright spot that may saturate to white. Cards
/// (glossy) catch more of it than the cloth.
#[derive(Clone, Debug, PartialEq)]
pub struct Glare {
    /// Centre, as fractions of the frame's width and height.
    pub at: (f32, f32),
    /// Radius as a fraction of the frame's height.
    pub radius: f32,
    /// 0–1.5; 1 saturates the middle of the spot.
    pub strength: f32,
}

/// Cloth over the forearm, and maybe the hand (a glove).
#[derive(Clone, Debug, PartialEq)]
pub struct Sleeve {
    pub colour: [u8; 3],
    /// Where the cuff ends, in hand sizes back from the palm's centre
    /// (0.6 reaches the wrist; more leaves some forearm bare).
    pub cuff: f32,
    /// The hand is covered too, in the same colour.
    pub glove: bool,
}

/// The hand's look (its shape and place come from [`super::HandParams`]).
#[derive(Clone, Debug, PartialEq)]
pub struct OccluderLook {
    pub skin: [u8; 3],
    pub sleeve: Option<Sleeve>,
}

/// Skin tones from very light to very dark.
pub const SKIN_TONES: [[u8; 3]; 8] = [
    [250, 222, 205],
    [238, 196, 170],
    [224, 172, 138],
    [198, 140, 102],
    [164, 108, 72],
    [126, 82, 54],
    [92, 60, 40],
    [62, 42, 30],
];

/// The extras. Every field's default is "as before".
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Look {
    /// A procedural surface under the cards, instead of the texture handed
    /// to `render`.
    pub surface: Option<Surface>,
    /// The gap between neighbouring cards as a fraction of the card width
    /// (0 = touching), instead of `GAP_FRACTION`.
    pub gap_fraction: Option<f32>,
    /// Each card upright or upside down at random (when `quarter_turns` is
    /// off).
    pub half_turns: bool,
    /// Card stock: 0 keeps the old faint contact line; up to 1 the card has
    /// a darker edge and casts a soft shadow away from the light.
    pub card_relief: f32,
    pub glare: Option<Glare>,
    /// White balance: positive warm (tungsten), negative cool (daylight,
    /// LED), about ±1.
    pub white_balance: f32,
    /// Overall brightness factor; `None` is 1.
    pub exposure: Option<f32>,
    /// Darkening at the frame's corners (0–1).
    pub vignette: f32,
    /// Barrel distortion of a cheap wide-angle lens: an undistorted point
    /// at radius `r_u` (over the frame's half diagonal) shows at `r_d` with
    /// `r_u = r_d (1 + k1 r_d²)`. 0 is a perfect lens; 0.05 mild, 0.2
    /// strong.
    pub barrel_k1: f32,
    /// The hand's skin and sleeve; `None` keeps the old skin palette.
    pub occluder: Option<OccluderLook>,
}

/// The lens: maps between the ideal pinhole frame and the distorted one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lens {
    pub k1: f32,
    pub centre: (f32, f32),
    /// The half diagonal, the unit of radius.
    pub norm: f32,
}

impl Lens {
    pub fn new(k1: f32, width: u32, height: u32) -> Lens {
        let (w, h) = (width as f32, height as f32);
        Lens {
            k1,
            centre: ((w - 1.0) / 2.0, (h - 1.0) / 2.0),
            norm: 0.5 * w.hypot(h),
        }
    }

    /// Where an ideal frame point shows through the lens.
    pub fn distort(&self, p: (f32, f32)) -> (f32, f32) {
        if self.k1 == 0.0 {
            return p;
        }
        let (dx, dy) = (p.0 - self.centre.0, p.1 - self.centre.1);
        let ru = dx.hypot(dy) / self.norm;
        if ru == 0.0 {
            return p;
        }
        // Solve r (1 + k r²) = ru by Newton's method.
        let mut r = ru;
        for _ in 0..20 {
            let f = r * (1.0 + self.k1 * r * r) - ru;
            let df = 1.0 + 3.0 * self.k1 * r * r;
            r -= f / df;
        }
        let s = r / ru;
        (self.centre.0 + dx * s, self.centre.1 + dy * s)
    }

    /// The ideal frame point a frame pixel shows.
    pub fn undistort(&self, p: (f32, f32)) -> (f32, f32) {
        if self.k1 == 0.0 {
            return p;
        }
        let (dx, dy) = (p.0 - self.centre.0, p.1 - self.centre.1);
        let r2 = (dx * dx + dy * dy) / (self.norm * self.norm);
        let s = 1.0 + self.k1 * r2;
        (self.centre.0 + dx * s, self.centre.1 + dy * s)
    }

    /// Frame pixels per ideal pixel around frame point `p` (roughly).
    pub fn magnification(&self, p: (f32, f32)) -> f32 {
        if self.k1 == 0.0 {
            return 1.0;
        }
        let (dx, dy) = (p.0 - self.centre.0, p.1 - self.centre.1);
        let r2 = (dx * dx + dy * dy) / (self.norm * self.norm);
        1.0 / (1.0 + 2.0 * self.k1 * r2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn barrel_keeps_the_centre_and_pulls_the_edges_in() {
        let lens = Lens::new(0.2, 1280, 720);
        let c = lens.centre;
        let d = lens.distort(c);
        assert!((d.0 - c.0).abs() < 1e-4 && (d.1 - c.1).abs() < 1e-4);
        let corner = (0.0, 0.0);
        let d = lens.distort(corner);
        assert!(d.0 > 30.0 && d.1 > 15.0, "{d:?}");
        // undistort inverts distort.
        for p in [(0.0, 0.0), (100.0, 600.0), (1279.0, 5.0), (700.0, 400.0)] {
            let q = lens.undistort(lens.distort(p));
            assert!(
                (q.0 - p.0).abs() < 0.01 && (q.1 - p.1).abs() < 0.01,
                "{p:?} {q:?}"
            );
        }
        let none = Lens::new(0.0, 640, 360);
        assert_eq!(none.distort((3.0, 4.0)), (3.0, 4.0));
    }
}
