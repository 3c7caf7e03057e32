//! Plane geometry the stages share: points, quadrilaterals, lines fitted to
//! points, and the homography of a card's rectangle onto its outline.
//!
//! A leaf: it imports no other stage. Coordinates are frame pixels with
//! pixel `(x, y)` centred on the integer point `(x, y)`.

/// A point in frame pixels.
pub type Pt = (f32, f32);

/// A card's height over its width (63 × 88 mm).
pub const CARD_ASPECT: f32 = 88.0 / 63.0;

pub fn sub(a: Pt, b: Pt) -> Pt {
    (a.0 - b.0, a.1 - b.1)
}

pub fn add(a: Pt, b: Pt) -> Pt {
    (a.0 + b.0, a.1 + b.1)
}

pub fn scale(a: Pt, k: f32) -> Pt {
    (a.0 * k, a.1 * k)
}

pub fn len(a: Pt) -> f32 {
    a.0.hypot(a.1)
}

pub fn dist(a: Pt, b: Pt) -> f32 {
    len(sub(a, b))
}

pub fn dot(a: Pt, b: Pt) -> f32 {
    a.0 * b.0 + a.1 * b.1
}

pub fn cross(a: Pt, b: Pt) -> f32 {
    a.0 * b.1 - a.1 * b.0
}

/// Four corners in order round the outline. In a card's [`Quad`] the first
/// side (corner 0 to 1) is a short one: portrait order, top-left first,
/// with which short end is the top left open (either upright orientation
/// of a card reads the same).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quad(pub [Pt; 4]);

impl Quad {
    pub fn centre(&self) -> Pt {
        let c = &self.0;
        (
            (c[0].0 + c[1].0 + c[2].0 + c[3].0) / 4.0,
            (c[0].1 + c[1].1 + c[2].1 + c[3].1) / 4.0,
        )
    }

    /// Signed area (positive when the corners run clockwise on screen,
    /// y down).
    pub fn signed_area(&self) -> f32 {
        let c = &self.0;
        let mut s = 0.0;
        for i in 0..4 {
            s += cross(c[i], c[(i + 1) % 4]);
        }
        s / 2.0
    }

    pub fn area(&self) -> f32 {
        self.signed_area().abs()
    }

    /// The mean lengths of the two pairs of opposite sides: (0-1 and 2-3,
    /// 1-2 and 3-0).
    pub fn side_pairs(&self) -> (f32, f32) {
        let c = &self.0;
        (
            (dist(c[0], c[1]) + dist(c[2], c[3])) / 2.0,
            (dist(c[1], c[2]) + dist(c[3], c[0])) / 2.0,
        )
    }

    /// The short side's mean length: a card's width.
    pub fn width(&self) -> f32 {
        let (a, b) = self.side_pairs();
        a.min(b)
    }

    /// Long sides over short sides.
    pub fn aspect(&self) -> f32 {
        let (a, b) = self.side_pairs();
        a.max(b) / a.min(b).max(1e-3)
    }

    /// Whether every interior angle is within `tol` radians of a right
    /// angle (perspective and a tilted camera bend a card's corners a
    /// little).
    pub fn near_rectangular(&self, tol: f32) -> bool {
        let c = &self.0;
        (0..4).all(|i| {
            let a = sub(c[(i + 3) % 4], c[i]);
            let b = sub(c[(i + 1) % 4], c[i]);
            let cos = dot(a, b) / (len(a) * len(b)).max(1e-6);
            cos.abs() < tol.sin()
        })
    }

    /// The same outline, clockwise, with a short side first.
    pub fn portrait(self) -> Quad {
        let mut c = self.0;
        if self.signed_area() < 0.0 {
            c.swap(1, 3);
        }
        let q = Quad(c);
        let (first, second) = q.side_pairs();
        if first > second {
            Quad([c[1], c[2], c[3], c[0]])
        } else {
            q
        }
    }

    /// The same shape shrunk (k < 1) or grown about its centre.
    pub fn scaled(&self, k: f32) -> Quad {
        let m = self.centre();
        Quad(self.0.map(|p| add(m, scale(sub(p, m), k))))
    }

    /// A rectangle with each side moved out by `d` (in, when negative,
    /// never past its middle): each corner moves away from its two
    /// neighbours along their sides.
    pub fn grown(&self, d: f32) -> Quad {
        let c = self.0;
        Quad(std::array::from_fn(|i| {
            let p = c[i];
            let away = |o: Pt| {
                let v = sub(p, o);
                let side = len(v);
                // A side shrunk to a pixel at the least.
                let by = d.max(-(side - 1.0).max(0.0) / 2.0);
                scale(v, by / side.max(1e-3))
            };
            add(p, add(away(c[(i + 1) % 4]), away(c[(i + 3) % 4])))
        }))
    }

    pub fn translated(&self, d: Pt) -> Quad {
        Quad(self.0.map(|p| add(p, d)))
    }

    /// Whether `p` lies inside (a convex outline).
    pub fn contains(&self, p: Pt) -> bool {
        let c = &self.0;
        let mut sign = 0.0f32;
        for i in 0..4 {
            let s = cross(sub(c[(i + 1) % 4], c[i]), sub(p, c[i]));
            if s * sign < 0.0 {
                return false;
            }
            if s != 0.0 {
                sign = s;
            }
        }
        true
    }

    /// The largest distance between matching corners, over the four ways
    /// of starting one outline against the other.
    pub fn corner_distance(&self, other: &Quad) -> f32 {
        (0..4)
            .map(|k| {
                (0..4)
                    .map(|i| dist(self.0[i], other.0[(i + k) % 4]))
                    .fold(0.0, f32::max)
            })
            .fold(f32::INFINITY, f32::min)
    }
}

/// A line `n · p = d` with `n` a unit normal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    pub n: Pt,
    pub d: f32,
}

impl Line {
    pub fn through(a: Pt, b: Pt) -> Line {
        let t = sub(b, a);
        let l = len(t).max(1e-6);
        let n = (-t.1 / l, t.0 / l);
        Line { n, d: dot(n, a) }
    }

    /// Signed distance of `p` from the line.
    pub fn distance(&self, p: Pt) -> f32 {
        dot(self.n, p) - self.d
    }

    /// Where two lines cross; `None` when (nearly) parallel.
    pub fn meet(&self, o: &Line) -> Option<Pt> {
        let det = cross(self.n, o.n);
        if det.abs() < 1e-4 {
            return None;
        }
        Some((
            (self.d * o.n.1 - o.d * self.n.1) / det,
            (self.n.0 * o.d - o.n.0 * self.d) / det,
        ))
    }

    /// The total-least-squares line through weighted points; `None` for
    /// fewer than two or all at one place.
    pub fn fit(points: impl IntoIterator<Item = (Pt, f32)>) -> Option<Line> {
        let (mut sw, mut sx, mut sy) = (0.0f64, 0.0f64, 0.0f64);
        let mut pts: Vec<(f64, f64, f64)> = Vec::new();
        for ((x, y), w) in points {
            let (x, y, w) = (f64::from(x), f64::from(y), f64::from(w));
            sw += w;
            sx += w * x;
            sy += w * y;
            pts.push((x, y, w));
        }
        if pts.len() < 2 || sw <= 0.0 {
            return None;
        }
        let (mx, my) = (sx / sw, sy / sw);
        let (mut cxx, mut cxy, mut cyy) = (0.0, 0.0, 0.0);
        for (x, y, w) in pts {
            let (dx, dy) = (x - mx, y - my);
            cxx += w * dx * dx;
            cxy += w * dx * dy;
            cyy += w * dy * dy;
        }
        // The direction of least spread is the normal.
        let angle = 0.5 * (2.0 * cxy).atan2(cxx - cyy);
        let (tx, ty) = (angle.cos(), angle.sin());
        if cxx + cyy <= 1e-9 {
            return None;
        }
        let n = (-ty as f32, tx as f32);
        Some(Line {
            n,
            d: n.0 * mx as f32 + n.1 * my as f32,
        })
    }
}

/// A projective map of the plane: `p' = H p` in homogeneous coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Homography(pub [f32; 9]);

impl Homography {
    /// The map that takes the unit square's corners (0,0), (1,0), (1,1),
    /// (0,1) to the quad's corners in order; `None` for a degenerate
    /// outline.
    pub fn square_to(q: &Quad) -> Option<Homography> {
        // Heckbert's closed form for the square-to-quad case.
        let [(x0, y0), (x1, y1), (x2, y2), (x3, y3)] = q.0;
        let (sx, sy) = (x0 - x1 + x2 - x3, y0 - y1 + y2 - y3);
        let (dx1, dy1) = (x1 - x2, y1 - y2);
        let (dx2, dy2) = (x3 - x2, y3 - y2);
        let (g, h) = if sx.abs() < 1e-6 && sy.abs() < 1e-6 {
            (0.0, 0.0)
        } else {
            let den = dx1 * dy2 - dx2 * dy1;
            if den.abs() < 1e-9 {
                return None;
            }
            ((sx * dy2 - dx2 * sy) / den, (dx1 * sy - sx * dy1) / den)
        };
        let m = [
            x1 - x0 + g * x1,
            x3 - x0 + h * x3,
            x0,
            y1 - y0 + g * y1,
            y3 - y0 + h * y3,
            y0,
            g,
            h,
            1.0,
        ];
        m.iter().all(|v| v.is_finite()).then_some(Homography(m))
    }

    pub fn apply(&self, (u, v): Pt) -> Pt {
        let m = &self.0;
        let w = m[6] * u + m[7] * v + m[8];
        let w = if w.abs() < 1e-9 { 1e-9 } else { w };
        (
            (m[0] * u + m[1] * v + m[2]) / w,
            (m[3] * u + m[4] * v + m[5]) / w,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_square_maps_onto_its_quad_corner_for_corner() {
        let q = Quad([(10.0, 20.0), (60.0, 25.0), (70.0, 90.0), (5.0, 80.0)]);
        let h = Homography::square_to(&q).unwrap();
        for (uv, want) in [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
            .into_iter()
            .zip(q.0)
        {
            let got = h.apply(uv);
            assert!(dist(got, want) < 1e-3, "{uv:?} → {got:?}, not {want:?}");
        }
    }

    #[test]
    fn a_turned_rectangle_grows_and_shrinks_by_its_sides() {
        let (sin, cos) = 0.3f32.sin_cos();
        let r = |w: f32, h: f32| {
            Quad([(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)].map(|(x, y)| {
                let (x, y) = (x - w / 2.0, y - h / 2.0);
                (50.0 + x * cos - y * sin, 40.0 + x * sin + y * cos)
            }))
        };
        let near = |a: &Quad, b: &Quad| (0..4).all(|i| dist(a.0[i], b.0[i]) < 1e-3);
        assert!(near(&r(20.0, 30.0).grown(2.0), &r(24.0, 34.0)));
        assert!(near(&r(20.0, 30.0).grown(-3.0), &r(14.0, 24.0)));
        // Shrunk past its middle, a side stays a pixel long.
        assert!(near(&r(20.0, 30.0).grown(-12.0), &r(1.0, 6.0)));
    }

    #[test]
    fn portrait_puts_a_short_side_first_and_runs_clockwise() {
        // A landscape card given anticlockwise.
        let q = Quad([(0.0, 0.0), (0.0, 63.0), (88.0, 63.0), (88.0, 0.0)]).portrait();
        assert!(q.signed_area() > 0.0);
        assert!((dist(q.0[0], q.0[1]) - 63.0).abs() < 1e-3);
        assert!((q.aspect() - CARD_ASPECT).abs() < 1e-3);
    }

    #[test]
    fn a_fitted_line_passes_through_its_points() {
        let pts = (0..10).map(|i| ((i as f32, 2.0 * i as f32 + 1.0), 1.0));
        let l = Line::fit(pts).unwrap();
        assert!(l.distance((3.0, 7.0)).abs() < 1e-3);
        assert!(l.distance((0.0, 0.0)).abs() > 0.4);
        let m = Line::through((0.0, 5.0), (10.0, 5.0));
        let p = l.meet(&m).unwrap();
        assert!(dist(p, (2.0, 5.0)) < 1e-3);
    }

    #[test]
    fn containment_and_corner_distance() {
        let q = Quad([(0.0, 0.0), (10.0, 0.0), (10.0, 14.0), (0.0, 14.0)]);
        assert!(q.contains((5.0, 5.0)));
        assert!(!q.contains((11.0, 5.0)));
        let r = Quad([q.0[2], q.0[3], q.0[0], q.0[1]]);
        assert!(q.corner_distance(&r) < 1e-6);
        assert!(q.near_rectangular(0.05));
    }
}
