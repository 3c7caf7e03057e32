//! Cells from the cards themselves: a lattice fitted to the detections.
//!
//! En Prise has no board: each card is a square of it, laid in a loose grid
//! that grows in any direction, with gaps. The camera may look at the table
//! obliquely and the layout may lie at any angle, so the cells must come
//! from the card pitch measured on the cards in the frame.
//!
//! # Method
//!
//! 1. **Metric.** A card is 63×88 mm. Its quadrilateral gives, to first
//!    order, the map from table millimetres to frame pixels near it, up to
//!    the card's own turn. `A·Aᵀ` of that map does not depend on the turn, so
//!    every card votes for the same *shape* (the foreshortening of the
//!    table), and each card's area gives the local *scale*. The consensus
//!    shape also settles which side of a card is the long one where a steep
//!    camera makes the long side look shorter.
//! 2. **Axes.** In the rectified frame (shape undone), the layout angle
//!    modulo 90° is the median of the card edge angles (skew is noise), then
//!    refined by the directions between cards in line.
//! 3. **Pitch.** Displacements between cards, in local millimetres, are
//!    projected on the two axes; each axis' pitch is the spacing of which
//!    the in-line displacements are whole multiples (gaps are multiples
//!    too), the one nearest the cards' own extent along the axis plus a gap
//!    where several explain them. An axis with no pair in line falls back
//!    to that extent.
//! 4. **Growth.** Whole-cell offsets between pairs (at most six cells
//!    apart, and close to whole numbers) are accepted best first from a
//!    seed, Prim-like, giving integer cells to the largest connected group.
//! 5. **Fit.** A homography from cells to pixels is fitted by least squares
//!    (Levenberg–Marquardt from an affine start) when the cells span both
//!    directions; otherwise an affine map whose missing direction is
//!    filled in from the metric. Outliers are dropped, every card is
//!    re-assigned by rounding through the inverse, and this repeats until it
//!    settles.
//!
//! # Orientation without a calibration
//!
//! A camera cannot mirror, so the fitted lattice is known up to one of the
//! four quarter-rotations and a translation. [`fit`] picks the quarter
//! rotation whose column axis, at the middle of the layout, points closest
//! to the frame's +x: the layout's rotation reduced to (-45°, 45°]. Rows
//! then increase downward in the frame. The smallest occupied column and
//! row are 0. With a calibration ([`place`] on its lattice), the cells are
//! the calibration's and may be negative.

use crate::cards::Detected;
use crate::shapes::solve;
use arbiter_core::table::Cell;

/// Card width and height, millimetres.
const CARD_W: f64 = 63.0;
const CARD_H: f64 = 88.0;
/// Cards cannot overlap, so neighbours are at least about a card width
/// apart; the margin absorbs the error of the local metric.
const MIN_PITCH: f64 = 0.85 * CARD_W;
/// A gap wider than about half a card is a missing cell, not a wide pitch;
/// without this, two cards with a hole between them would read as
/// neighbours. The margin over half a card is for outlines found some
/// percent inside the cards (a pale card's snap, a blurred frame), which
/// make every distance in card sizes that much longer.
const MAX_PITCH: f64 = CARD_H + 0.8 * CARD_W;
/// The gap assumed between cards when an axis cannot be measured.
const GAP: f64 = 0.12 * CARD_W;
/// A pitch this long holds a card turned a quarter: cells may be square.
const SQUARE_CELL: f64 = 0.95 * CARD_H;
/// A pitch shorter than this share of a card's extent along its axis
/// leaves no room for the card (allowing for a few percent of error in
/// the local metric).
const ROOM: f64 = 0.97;
/// Cards farther apart than this many cells are not joined directly: the
/// local metric is too rough to count cells so far.
const MAX_REACH: f64 = 6.0;
/// A centre farther than this from its lattice point (in cells) sits on no
/// cell.
pub const PLACE_TOLERANCE: f64 = 0.35;
/// A quad whose area (in cells) is outside this factor of the typical one is
/// not a card.
const AREA_RATIO: (f64, f64) = (0.6, 1.6);

type V2 = (f64, f64);
type M3 = [[f64; 3]; 3];

/// Homography from lattice coordinates (col, row as reals; cell centres at
/// integers) to frame pixels.
///
/// `[x·w, y·w, w] = cell_to_image · [col, row, 1]`, with `w > 0` for points
/// in front of the camera.
#[derive(Clone, Debug, PartialEq)]
pub struct Lattice {
    pub cell_to_image: [[f64; 3]; 3],
}

impl Lattice {
    pub fn to_image(&self, cell: (f64, f64)) -> (f32, f32) {
        let (x, y, w) = mul(&self.cell_to_image, cell);
        ((x / w) as f32, (y / w) as f32)
    }

    /// The lattice coordinates under a frame pixel; `None` when the pixel
    /// shows no point of the table plane (beyond its horizon).
    pub fn to_cell(&self, px: (f32, f32)) -> Option<(f64, f64)> {
        let inv = invert(&self.cell_to_image)?;
        let (c, r, w) = mul(&inv, (f64::from(px.0), f64::from(px.1)));
        let cell = (c / w, r / w);
        let h = &self.cell_to_image[2];
        let front = h[0] * cell.0 + h[1] * cell.1 + h[2];
        (cell.0.is_finite() && cell.1.is_finite() && front > 0.0).then_some(cell)
    }

    /// Pixels per cell step along columns and rows at `cell`.
    pub fn steps_at(&self, cell: (f64, f64)) -> ((f64, f64), (f64, f64)) {
        let p = self.to_image(cell);
        let c = self.to_image((cell.0 + 1.0, cell.1));
        let r = self.to_image((cell.0, cell.1 + 1.0));
        (
            (f64::from(c.0 - p.0), f64::from(c.1 - p.1)),
            (f64::from(r.0 - p.0), f64::from(r.1 - p.1)),
        )
    }

    /// The same lattice with cells renamed: new cell `n` is old cell
    /// `q⁻¹·(n - t)`, where `q` turns the old axes a quarter `turns` times.
    fn renamed(&self, turns: u8, t: (i32, i32)) -> Lattice {
        // Old from new: the inverse quarter turn, then the shift.
        let back = quarter((4 - turns % 4) % 4);
        let (tc, tr) = (f64::from(t.0), f64::from(t.1));
        let m = [
            [back[0][0], back[0][1], -(back[0][0] * tc + back[0][1] * tr)],
            [back[1][0], back[1][1], -(back[1][0] * tc + back[1][1] * tr)],
            [0.0, 0.0, 1.0],
        ];
        Lattice {
            cell_to_image: normalised(&matmul(&self.cell_to_image, &m)),
        }
    }
}

/// The quarter turn `(c, r) → (-r, c)` applied `turns` times, as a matrix.
fn quarter(turns: u8) -> [[f64; 2]; 2] {
    match turns % 4 {
        0 => [[1.0, 0.0], [0.0, 1.0]],
        1 => [[0.0, -1.0], [1.0, 0.0]],
        2 => [[-1.0, 0.0], [0.0, -1.0]],
        _ => [[0.0, 1.0], [-1.0, 0.0]],
    }
}

/// Where the detections sit on a lattice.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    /// Each placed detection: its cell and its index into the detections.
    pub cells: Vec<(Cell, usize)>,
    /// Detections that sit on no cell (too far from any lattice point, or not
    /// card-sized).
    pub unplaced: Vec<usize>,
    pub lattice: Lattice,
    /// Median distance of placed centres from their lattice points, in
    /// cells.
    pub residual: f32,
}

/// Fits a lattice to the detections themselves. `None` when there is
/// nothing to fit (no card).
pub fn fit(dets: &[Detected]) -> Option<Placement> {
    let internal = fit_internal(dets)?;
    Some(place_canonical(&internal, dets))
}

/// [`fit`] to the cards read alone when there are at least
/// [`READ_TO_FIT`] of them, every detection then placed on that lattice:
/// an outline not read may be no card at all (a cloth's check the size
/// of one), and a layout it moves misplaces the cards that were read.
pub fn fit_read(dets: &[Detected]) -> Option<Placement> {
    let read: Vec<Detected> = dets.iter().filter(|d| d.token.is_some()).cloned().collect();
    if read.len() < READ_TO_FIT {
        return fit(dets);
    }
    let internal = fit_internal(&read)?;
    Some(place_canonical(&internal, dets))
}

/// The fewest cards read that [`fit_read`] fits the lattice to alone.
const READ_TO_FIT: usize = 2;

/// `dets` placed on `internal`, its cells numbered from the layout's
/// corner.
fn place_canonical(internal: &Lattice, dets: &[Detected]) -> Placement {
    let first = place(internal, dets);
    let occupied: Vec<(i32, i32)> = first.cells.iter().map(|(c, _)| (c.col, c.row)).collect();
    place(&canonical(internal, &occupied), dets)
}

/// The lattice of [`fit`], its cells numbered as they came.
fn fit_internal(dets: &[Detected]) -> Option<Lattice> {
    let quads: Vec<Option<Quad>> = dets.iter().map(Quad::of).collect();
    let mut areas: Vec<f64> = quads.iter().flatten().map(|q| q.area).collect();
    let typical = median(&mut areas)?;
    // Two touching cards seen as one blob are twice the area; perspective
    // alone changes a card's area by much less.
    let used: Vec<(usize, Quad)> = quads
        .into_iter()
        .enumerate()
        .filter_map(|(i, q)| q.map(|q| (i, q)))
        .filter(|(_, q)| (AREA_RATIO.0..=AREA_RATIO.1).contains(&(q.area / typical)))
        .collect();
    if used.is_empty() {
        return None;
    }
    let qs: Vec<Quad> = used.iter().map(|u| u.1).collect();
    let frame = Frame::measure(&qs);
    let pairs = frame.pairs(&qs);
    let mut cells = grow(qs.len(), &frame.edges(&pairs));
    let prior = frame.prior(&qs);

    let mut h = fit_cells(&qs, &cells, &prior);
    for _ in 0..6 {
        let lattice = Lattice { cell_to_image: h };
        let next: Vec<Option<(i32, i32)>> = qs
            .iter()
            .map(|q| {
                nearest(&lattice, q.centre)
                    .and_then(|(c, res)| (res < PLACE_TOLERANCE).then_some(c))
            })
            .collect();
        if next.iter().all(Option::is_none) || next == cells {
            break;
        }
        cells = next;
        h = fit_cells(&qs, &cells, &prior);
    }

    Some(Lattice { cell_to_image: h })
}

/// Places detections on a fixed lattice (a calibration's).
pub fn place(lattice: &Lattice, dets: &[Detected]) -> Placement {
    struct Spot {
        cell: Option<(i32, i32)>,
        res: f64,
        area: Option<f64>,
    }
    let spots: Vec<Spot> = dets
        .iter()
        .map(|d| {
            let (cell, res) = match nearest(lattice, d.centre) {
                Some((c, res)) => (Some(c), res),
                None => (None, f64::INFINITY),
            };
            let corners: Option<Vec<(f64, f64)>> =
                d.corners.iter().map(|&p| lattice.to_cell(p)).collect();
            let area = corners.map(|c| polygon_area(&c));
            Spot { cell, res, area }
        })
        .collect();
    let mut areas: Vec<f64> = spots
        .iter()
        .filter(|s| s.res < PLACE_TOLERANCE)
        .filter_map(|s| s.area)
        .collect();
    let typical = median(&mut areas);
    let mut cells = Vec::new();
    let mut unplaced = Vec::new();
    let mut residuals = Vec::new();
    for (i, s) in spots.iter().enumerate() {
        let sized = match (s.area, typical) {
            (Some(a), Some(t)) => (AREA_RATIO.0..=AREA_RATIO.1).contains(&(a / t)),
            _ => false,
        };
        match s.cell {
            Some((col, row)) if s.res < PLACE_TOLERANCE && sized => {
                let cell = Cell::new(col, row);
                if cell.in_range() {
                    cells.push((cell, i));
                    residuals.push(s.res);
                } else {
                    unplaced.push(i);
                }
            }
            _ => unplaced.push(i),
        }
    }
    Placement {
        cells,
        unplaced,
        lattice: lattice.clone(),
        residual: median(&mut residuals).unwrap_or(0.0) as f32,
    }
}

/// The lattice point nearest a pixel and the distance to it, in cells.
fn nearest(lattice: &Lattice, px: (f32, f32)) -> Option<((i32, i32), f64)> {
    let (c, r) = lattice.to_cell(px)?;
    let limit = f64::from(Cell::LIMIT);
    if c.abs() > limit || r.abs() > limit {
        return None;
    }
    let (rc, rr) = (c.round(), r.round());
    Some(((rc as i32, rr as i32), (c - rc).hypot(r - rr)))
}

/// Renames the cells of a freshly fitted lattice by the convention of the
/// module documentation.
fn canonical(lattice: &Lattice, occupied: &[(i32, i32)]) -> Lattice {
    if occupied.is_empty() {
        return lattice.clone();
    }
    let n = occupied.len() as f64;
    let mid = occupied.iter().fold((0.0, 0.0), |a, c| {
        (a.0 + f64::from(c.0) / n, a.1 + f64::from(c.1) / n)
    });
    let (col, row) = lattice.steps_at(mid);
    // New column axis for each quarter turn, as an old direction.
    let dirs = [col, row, (-col.0, -col.1), (-row.0, -row.1)];
    let turns = (0..4u8)
        .min_by(|&a, &b| {
            let key = |k: u8| {
                let d = dirs[k as usize];
                let ang = d.1.atan2(d.0);
                // (-45°, 45°]: on a tie, the positive angle.
                (ang.abs(), -ang)
            };
            let (ka, kb) = (key(a), key(b));
            ka.0.total_cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
        })
        .unwrap_or(0);
    // Old direction `dirs[k]` becomes +col: the old cells turn by -k quarters.
    let q = (4 - turns) % 4;
    let m = quarter(q);
    let turned: Vec<(i32, i32)> = occupied
        .iter()
        .map(|&(c, r)| {
            let c2 = m[0][0] as i32 * c + m[0][1] as i32 * r;
            let r2 = m[1][0] as i32 * c + m[1][1] as i32 * r;
            (c2, r2)
        })
        .collect();
    let min_c = turned.iter().map(|c| c.0).min().unwrap_or(0);
    let min_r = turned.iter().map(|c| c.1).min().unwrap_or(0);
    lattice.renamed(q, (-min_c, -min_r))
}

/// A detection's geometry.
#[derive(Clone, Copy, Debug)]
struct Quad {
    centre: (f32, f32),
    /// The mean short side (first corner to second) and long side (first
    /// to fourth), pixels.
    a: V2,
    b: V2,
    /// Local scale: frame px² per table mm².
    scale: f64,
    /// Pixels².
    area: f64,
}

impl Quad {
    fn of(d: &Detected) -> Option<Quad> {
        let p = d.corners.map(|(x, y)| (f64::from(x), f64::from(y)));
        let a = (
            (p[1].0 - p[0].0 + p[2].0 - p[3].0) / 2.0,
            (p[1].1 - p[0].1 + p[2].1 - p[3].1) / 2.0,
        );
        let b = (
            (p[3].0 - p[0].0 + p[2].0 - p[1].0) / 2.0,
            (p[3].1 - p[0].1 + p[2].1 - p[1].1) / 2.0,
        );
        let area = polygon_area(&p);
        let scale = area / (CARD_W * CARD_H);
        let finite = p.iter().all(|q| q.0.is_finite() && q.1.is_finite())
            && d.centre.0.is_finite()
            && d.centre.1.is_finite();
        (finite && area > 1.0).then_some(Quad {
            centre: d.centre,
            a,
            b,
            scale,
            area,
        })
    }

    fn centre(&self) -> V2 {
        (f64::from(self.centre.0), f64::from(self.centre.1))
    }
}

/// A symmetric 2×2 matrix `[[xx, xy], [xy, yy]]`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Sym {
    xx: f64,
    xy: f64,
    yy: f64,
}

impl Sym {
    /// `A·Aᵀ` for the map with columns `u / CARD_W` and `v / CARD_H`,
    /// scaled to determinant 1.
    fn shape(u: V2, v: V2) -> Option<Sym> {
        let (w2, h2) = (CARD_W * CARD_W, CARD_H * CARD_H);
        let s = Sym {
            xx: u.0 * u.0 / w2 + v.0 * v.0 / h2,
            xy: u.0 * u.1 / w2 + v.0 * v.1 / h2,
            yy: u.1 * u.1 / w2 + v.1 * v.1 / h2,
        };
        let det = s.xx * s.yy - s.xy * s.xy;
        (det > 0.0).then(|| s.scaled(1.0 / det.sqrt()))
    }

    fn scaled(self, k: f64) -> Sym {
        Sym {
            xx: self.xx * k,
            xy: self.xy * k,
            yy: self.yy * k,
        }
    }

    fn dist(self, o: Sym) -> f64 {
        ((self.xx - o.xx).powi(2) + 2.0 * (self.xy - o.xy).powi(2) + (self.yy - o.yy).powi(2))
            .sqrt()
    }

    /// Square root of a determinant-1 positive matrix.
    fn sqrt1(self) -> Sym {
        let k = 1.0 / (self.xx + self.yy + 2.0).sqrt();
        Sym {
            xx: (self.xx + 1.0) * k,
            xy: self.xy * k,
            yy: (self.yy + 1.0) * k,
        }
    }

    /// Inverse of a determinant-1 matrix.
    fn inv1(self) -> Sym {
        Sym {
            xx: self.yy,
            xy: -self.xy,
            yy: self.xx,
        }
    }

    fn apply(self, v: V2) -> V2 {
        (self.xx * v.0 + self.xy * v.1, self.xy * v.0 + self.yy * v.1)
    }
}

/// The table as the cards show it: shape, layout axes, pitches.
struct Frame {
    /// Table shape in the frame (determinant 1).
    shape: Sym,
    /// Undoes `shape`: frame pixels to a frame where the table is true to
    /// angles.
    rectify: Sym,
    /// Column axis angle in the rectified frame, radians; the row axis is a
    /// quarter turn clockwise from it (y down).
    phi: f64,
    /// Column and row pitch, millimetres.
    pitch: V2,
}

/// Two cards' displacement in local table millimetres.
struct Pair {
    i: usize,
    j: usize,
    r: V2,
}

impl Frame {
    fn measure(qs: &[Quad]) -> Frame {
        let shape = consensus_shape(qs);
        let rectify = shape.sqrt1().inv1();
        let mm = |q: &Quad, v: V2| {
            let r = rectify.apply(v);
            let k = 1.0 / q.scale.sqrt();
            (r.0 * k, r.1 * k)
        };
        // Each card's edge angle modulo 90°, averaged over its two sides.
        let angles: Vec<f64> = qs
            .iter()
            .map(|q| {
                let (ra, rb) = (mm(q, q.a), mm(q, q.b));
                let (s, c) = [ra, rb].iter().fold((0.0, 0.0), |acc, v| {
                    let t = 4.0 * v.1.atan2(v.0);
                    (acc.0 + t.sin(), acc.1 + t.cos())
                });
                s.atan2(c) / 4.0
            })
            .collect();
        let phi0 = medoid_angle(&angles);
        let mut frame = Frame {
            shape,
            rectify,
            phi: phi0,
            pitch: (CARD_W + GAP, CARD_H + GAP),
        };
        let pairs = frame.pairs(qs);
        // Cards in line show the layout's direction without the skew of
        // their edges. Neighbours first (a farther pair a row off the axis
        // can look in line), then far pairs, which are the more precise,
        // close to that.
        let in_line = |phi: f64, window_deg: f64, reach: f64| {
            let mut dev: Vec<(f64, f64)> = pairs
                .iter()
                .filter_map(|p| {
                    let len = p.r.0.hypot(p.r.1);
                    let d = wrap90(p.r.1.atan2(p.r.0) - phi);
                    (len > MIN_PITCH && len < reach && d.abs() < window_deg.to_radians())
                        .then_some((d, len))
                })
                .collect();
            weighted_median(&mut dev).map(|d| wrap90(phi + d))
        };
        let far = MAX_REACH * MAX_PITCH;
        let phi1 = in_line(phi0, 15.0, 1.15 * MAX_PITCH)
            .or_else(|| in_line(phi0, 15.0, 2.3 * (CARD_H + GAP)))
            .or_else(|| in_line(phi0, 10.0, far))
            .unwrap_or(phi0);
        frame.phi = in_line(phi1, 5.0, far).unwrap_or(phi1);
        let (ec, er) = frame.axes();
        let along = |axis: V2, other: V2| -> Vec<f64> {
            pairs
                .iter()
                .filter_map(|p| {
                    let u = dot(p.r, axis).abs();
                    let v = dot(p.r, other).abs();
                    (v < 0.3 * u && u < 3.5 * MAX_PITCH).then_some(u)
                })
                .collect()
        };
        // What the cards suggest: a cell holds the widest card along the
        // axis (one turned a quarter makes the cells square), plus a gap.
        let extent = |axis: V2| {
            let e: Vec<f64> = qs
                .iter()
                .map(|q| {
                    let (ra, rb) = (mm(q, q.a), mm(q, q.b));
                    let ca = dot(ra, axis).abs() / ra.0.hypot(ra.1).max(1e-9);
                    let cb = dot(rb, axis).abs() / rb.0.hypot(rb.1).max(1e-9);
                    if ca >= cb { CARD_W } else { CARD_H }
                })
                .collect();
            e.into_iter().fold(CARD_W, f64::max) + GAP
        };
        let (xc, xr) = (extent(ec), extent(er));
        let (on_c, on_r) = (along(ec, er), along(er, ec));
        let first = (
            pitch_of(&on_c, &[xc], xc - GAP).unwrap_or(xc),
            pitch_of(&on_r, &[xr], xr - GAP).unwrap_or(xr),
        );
        // Cells made square for cards turned a quarter are as wide as they
        // are tall, though no card in sight may be turned: where an axis'
        // cards in line are all a hole apart (half its pitch explains them
        // too), the other axis' pitch is as good a guess as a tight gap.
        let again = |on: &[f64], own: f64, first: f64, other: f64| {
            if other >= SQUARE_CELL {
                pitch_of(on, &[own, other], own - GAP).unwrap_or(own)
            } else {
                first
            }
        };
        frame.pitch = (
            again(&on_c, xc, first.0, first.1),
            again(&on_r, xr, first.1, first.0),
        );
        frame
    }

    fn axes(&self) -> (V2, V2) {
        let (s, c) = self.phi.sin_cos();
        ((c, s), (-s, c))
    }

    fn pairs(&self, qs: &[Quad]) -> Vec<Pair> {
        let mut out = Vec::new();
        for i in 0..qs.len() {
            for j in i + 1..qs.len() {
                let (ci, cj) = (qs[i].centre(), qs[j].centre());
                let d = (cj.0 - ci.0, cj.1 - ci.1);
                let k = 1.0 / ((qs[i].scale + qs[j].scale) / 2.0).sqrt();
                let r = self.rectify.apply(d);
                out.push(Pair {
                    i,
                    j,
                    r: (r.0 * k, r.1 * k),
                });
            }
        }
        out
    }

    /// Whole-cell offsets between pairs, with how far each is from whole.
    fn edges(&self, pairs: &[Pair]) -> Vec<Edge> {
        let (ec, er) = self.axes();
        pairs
            .iter()
            .filter_map(|p| {
                let dc = dot(p.r, ec) / self.pitch.0;
                let dr = dot(p.r, er) / self.pitch.1;
                let (rc, rr) = (dc.round(), dr.round());
                let err = (dc - rc).abs() + (dr - rr).abs();
                let ok = (dc - rc).abs() < 0.3
                    && (dr - rr).abs() < 0.3
                    && rc.abs() <= MAX_REACH
                    && rr.abs() <= MAX_REACH;
                ok.then_some(Edge {
                    i: p.i,
                    j: p.j,
                    offset: (rc as i32, rr as i32),
                    cost: err + 0.05 * (rc.abs() + rr.abs()),
                })
            })
            .collect()
    }

    /// One cell step along each axis in frame pixels, near the middle of the
    /// cards: the affine guess used where the cells leave a direction open.
    fn prior(&self, qs: &[Quad]) -> Prior {
        let mut scales: Vec<f64> = qs.iter().map(|q| q.scale).collect();
        let k = median(&mut scales).unwrap_or(1.0).sqrt();
        let root = self.shape.sqrt1();
        let (ec, er) = self.axes();
        let u = root.apply((ec.0 * self.pitch.0 * k, ec.1 * self.pitch.0 * k));
        let v = root.apply((er.0 * self.pitch.1 * k, er.1 * self.pitch.1 * k));
        Prior { u, v }
    }
}

/// The table shape all cards agree on, each card's long side chosen so that
/// it agrees (a steep camera can make a card's long side look the shorter).
fn consensus_shape(qs: &[Quad]) -> Sym {
    // Cards all turned alike agree just as well with their sides swapped:
    // the detector's choice must win unless the swap is clearly better.
    const SWAP: f64 = 0.05;
    let hyp: Vec<[Option<Sym>; 2]> = qs
        .iter()
        .map(|q| [Sym::shape(q.a, q.b), Sym::shape(q.b, q.a)])
        .collect();
    let fit = |h: &[Option<Sym>; 2], s: Sym| -> (f64, usize) {
        let d0 = h[0].map_or(f64::INFINITY, |o| s.dist(o));
        let d1 = h[1].map_or(f64::INFINITY, |o| s.dist(o) + SWAP);
        if d1 < d0 { (d1, 1) } else { (d0, 0) }
    };
    let cost = |s: Sym| -> f64 { hyp.iter().map(|h| fit(h, s).0.min(0.5)).sum() };
    let seed = hyp
        .iter()
        .flat_map(|h| h.iter().flatten())
        .map(|&s| (cost(s), s))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|x| x.1);
    let Some(seed) = seed else {
        return Sym {
            xx: 1.0,
            xy: 0.0,
            yy: 1.0,
        };
    };
    let chosen: Vec<Sym> = hyp
        .iter()
        .filter_map(|h| {
            let (_, k) = fit(h, seed);
            h[k]
        })
        .collect();
    let pick = |f: fn(&Sym) -> f64| {
        let mut v: Vec<f64> = chosen.iter().map(f).collect();
        median(&mut v).unwrap_or(0.0)
    };
    let s = Sym {
        xx: pick(|s| s.xx),
        xy: pick(|s| s.xy),
        yy: pick(|s| s.yy),
    };
    let det = s.xx * s.yy - s.xy * s.xy;
    if det > 0.0 {
        s.scaled(1.0 / det.sqrt())
    } else {
        seed
    }
}

/// The spacing of which most in-line displacements are whole multiples;
/// of those that explain them about as well (half the pitch does, and a
/// lone pair with a hole is ambiguous), the nearest to one of `expected`,
/// a pitch that leaves room for a `card` (its extent along the axis)
/// before one that does not: cards in line a hole apart are as likely as
/// cells too narrow for the cards, which no layout has.
fn pitch_of(values: &[f64], expected: &[f64], card: f64) -> Option<f64> {
    // Jitter is a few millimetres per card whatever the distance, so each
    // guess is refitted to all the multiples it implies before it is scored.
    let refit = |p: f64| -> Option<f64> {
        let (mut kv, mut kk) = (0.0, 0.0);
        for v in values {
            let k = (v / p).round();
            if (1.0..=2.0 * MAX_REACH).contains(&k) {
                kv += k * v;
                kk += k * k;
            }
        }
        (kk > 0.0).then(|| kv / kk)
    };
    let score = |p: f64| -> f64 {
        values
            .iter()
            .map(|v| {
                let k = (v / p).round();
                if k < 1.0 {
                    return 0.0;
                }
                let e = (v - k * p).abs() / (0.2 * p);
                (1.0 - e * e).max(0.0)
            })
            .sum()
    };
    // Guesses a thousandth apart refit alike: each is tried once (a
    // layout of 70 cards has thousands of pairs, and each try costs a pass
    // over them all).
    let distinct = |mut ps: Vec<f64>| {
        ps.sort_by(f64::total_cmp);
        ps.dedup_by(|a, b| *a - *b <= 1e-3 * *b);
        ps
    };
    let guesses = distinct(
        values
            .iter()
            .flat_map(|v| (1..=2 * MAX_REACH as u32).map(move |k| v / f64::from(k)))
            .collect(),
    );
    let candidates: Vec<(f64, f64)> = distinct(guesses.into_iter().filter_map(&refit).collect())
        .into_iter()
        .filter_map(&refit)
        .filter(|p| (MIN_PITCH..=MAX_PITCH).contains(p))
        .map(|p| (p, score(p)))
        .collect();
    let best = candidates.iter().map(|c| c.1).fold(0.0, f64::max);
    if best <= 0.0 {
        return None;
    }
    candidates
        .iter()
        .filter(|c| c.1 >= 0.8 * best)
        .map(|c| c.0)
        .min_by(|a, b| {
            let off = |p: f64| {
                let nearest = expected
                    .iter()
                    .map(|e| (p / e).ln().abs())
                    .fold(f64::INFINITY, f64::min);
                (p < ROOM * card, nearest)
            };
            let (oa, ob) = (off(*a), off(*b));
            oa.0.cmp(&ob.0).then(oa.1.total_cmp(&ob.1))
        })
}

struct Edge {
    i: usize,
    j: usize,
    offset: (i32, i32),
    cost: f64,
}

/// Integer cells for the largest group of cards joined by edges, grown best
/// edge first; the others `None`.
fn grow(n: usize, edges: &[Edge]) -> Vec<Option<(i32, i32)>> {
    let mut degree = vec![0usize; n];
    for e in edges {
        degree[e.i] += 1;
        degree[e.j] += 1;
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(degree[i]));
    let mut seen = vec![false; n];
    let mut best: Vec<Option<(i32, i32)>> = vec![None; n];
    let mut best_size = 0;
    for seed in order {
        if seen[seed] {
            continue;
        }
        let mut cell: Vec<Option<(i32, i32)>> = vec![None; n];
        cell[seed] = Some((0, 0));
        seen[seed] = true;
        let mut size = 1;
        loop {
            let mut pick: Option<(usize, (i32, i32), f64)> = None;
            for e in edges {
                for (from, to, sign) in [(e.i, e.j, 1), (e.j, e.i, -1)] {
                    let (Some(c), None) = (cell[from], cell[to]) else {
                        continue;
                    };
                    if pick.as_ref().is_none_or(|p| e.cost < p.2) {
                        let at = (c.0 + sign * e.offset.0, c.1 + sign * e.offset.1);
                        pick = Some((to, at, e.cost));
                    }
                }
            }
            let Some((to, at, _)) = pick else { break };
            cell[to] = Some(at);
            seen[to] = true;
            size += 1;
        }
        if size > best_size {
            best_size = size;
            best = cell;
        }
    }
    best
}

/// One cell step along columns and rows, in frame pixels.
struct Prior {
    u: V2,
    v: V2,
}

/// Fits cells to pixels, dropping the worst outliers first.
fn fit_cells(qs: &[Quad], cells: &[Option<(i32, i32)>], prior: &Prior) -> M3 {
    let mut pts: Vec<(V2, V2)> = qs
        .iter()
        .zip(cells)
        .filter_map(|(q, c)| c.map(|c| ((f64::from(c.0), f64::from(c.1)), q.centre())))
        .collect();
    let max_drop = pts.len() / 3;
    let mut h = fit_points(&pts, prior);
    for _ in 0..max_drop {
        let lattice = Lattice { cell_to_image: h };
        let worst = pts
            .iter()
            .enumerate()
            .map(|(k, (c, p))| {
                let res = lattice
                    .to_cell((p.0 as f32, p.1 as f32))
                    .map_or(f64::INFINITY, |x| (x.0 - c.0).hypot(x.1 - c.1));
                (k, res)
            })
            .max_by(|a, b| a.1.total_cmp(&b.1));
        match worst {
            Some((k, res)) if res > PLACE_TOLERANCE => {
                pts.remove(k);
                h = fit_points(&pts, prior);
            }
            _ => break,
        }
    }
    h
}

/// A homography when the cells span both directions well enough to pin
/// one down, else an affine map that borrows the prior where the cells say
/// nothing.
fn fit_points(pts: &[(V2, V2)], prior: &Prior) -> M3 {
    let affine = fit_affine(pts, prior);
    let spans = {
        let n = pts.len() as f64;
        let (mc, mr) = pts
            .iter()
            .fold((0.0, 0.0), |a, (c, _)| (a.0 + c.0 / n, a.1 + c.1 / n));
        let (mut scc, mut scr, mut srr) = (0.0, 0.0, 0.0);
        for (c, _) in pts {
            let (dc, dr) = (c.0 - mc, c.1 - mr);
            scc += dc * dc / n;
            scr += dc * dr / n;
            srr += dr * dr / n;
        }
        // The smaller eigenvalue of the cells' spread.
        let half = (scc + srr) / 2.0;
        let small = half - (((scc - srr) / 2.0).powi(2) + scr * scr).sqrt();
        small > 0.15
    };
    if pts.len() >= 6
        && spans
        && let Some(h) = fit_homography(pts, &affine)
    {
        return h;
    }
    affine
}

/// Least squares `p ≈ o + c·u + r·v`, pulled weakly towards the prior's
/// `u` and `v` (which decides them where the cells are in one line).
fn fit_affine(pts: &[(V2, V2)], prior: &Prior) -> M3 {
    const PULL: f64 = 0.02;
    let mut rows = [[0.0; 3]; 2];
    for (k, row) in rows.iter_mut().enumerate() {
        let pick = |v: V2| if k == 0 { v.0 } else { v.1 };
        let mut a = vec![vec![0.0; 3]; 3];
        let mut b = vec![0.0; 3];
        for (c, p) in pts {
            let x = [1.0, c.0, c.1];
            for i in 0..3 {
                for j in 0..3 {
                    a[i][j] += x[i] * x[j];
                }
                b[i] += x[i] * pick(*p);
            }
        }
        a[1][1] += PULL;
        a[2][2] += PULL;
        b[1] += PULL * pick(prior.u);
        b[2] += PULL * pick(prior.v);
        if pts.is_empty() {
            a[0][0] += 1.0;
        }
        let s = solve(a, b).unwrap_or_else(|| vec![0.0, pick(prior.u), pick(prior.v)]);
        *row = [s[1], s[2], s[0]];
    }
    [rows[0], rows[1], [0.0, 0.0, 1.0]]
}

/// Levenberg–Marquardt on the pixel error, from the affine fit, in
/// normalised coordinates.
fn fit_homography(pts: &[(V2, V2)], affine: &M3) -> Option<M3> {
    let n = pts.len() as f64;
    let norm = |pick: fn(&(V2, V2)) -> V2| -> M3 {
        let m = pts.iter().fold((0.0, 0.0), |a, p| {
            let v = pick(p);
            (a.0 + v.0 / n, a.1 + v.1 / n)
        });
        let rms = (pts
            .iter()
            .map(|p| {
                let v = pick(p);
                (v.0 - m.0).powi(2) + (v.1 - m.1).powi(2)
            })
            .sum::<f64>()
            / n)
            .sqrt()
            .max(1e-9);
        let k = 1.0 / rms;
        [[k, 0.0, -m.0 * k], [0.0, k, -m.1 * k], [0.0, 0.0, 1.0]]
    };
    let tc = norm(|p| p.0);
    let tp = norm(|p| p.1);
    let data: Vec<(V2, V2)> = pts
        .iter()
        .map(|(c, p)| {
            let (x, y, _) = mul(&tc, *c);
            let (u, v, _) = mul(&tp, *p);
            ((x, y), (u, v))
        })
        .collect();
    let start = normalised(&matmul(&matmul(&tp, affine), &invert(&tc)?));
    let mut h = [
        start[0][0],
        start[0][1],
        start[0][2],
        start[1][0],
        start[1][1],
        start[1][2],
        start[2][0],
        start[2][1],
    ];
    let cost = |h: &[f64; 8]| -> f64 {
        data.iter()
            .map(|((x, y), (u, v))| {
                let w = h[6] * x + h[7] * y + 1.0;
                let pu = (h[0] * x + h[1] * y + h[2]) / w;
                let pv = (h[3] * x + h[4] * y + h[5]) / w;
                (pu - u).powi(2) + (pv - v).powi(2)
            })
            .sum()
    };
    let mut damping = 1e-3;
    let mut current = cost(&h);
    for _ in 0..30 {
        let mut jtj = vec![vec![0.0; 8]; 8];
        let mut jtr = [0.0; 8];
        for ((x, y), (u, v)) in &data {
            let w = h[6] * x + h[7] * y + 1.0;
            let pu = (h[0] * x + h[1] * y + h[2]) / w;
            let pv = (h[3] * x + h[4] * y + h[5]) / w;
            let ju = [
                x / w,
                y / w,
                1.0 / w,
                0.0,
                0.0,
                0.0,
                -pu * x / w,
                -pu * y / w,
            ];
            let jv = [
                0.0,
                0.0,
                0.0,
                x / w,
                y / w,
                1.0 / w,
                -pv * x / w,
                -pv * y / w,
            ];
            for (j, r) in [(ju, pu - u), (jv, pv - v)] {
                for a in 0..8 {
                    jtr[a] += j[a] * r;
                    for b in 0..8 {
                        jtj[a][b] += j[a] * j[b];
                    }
                }
            }
        }
        let mut improved = false;
        for _ in 0..8 {
            let mut a = jtj.clone();
            for (k, row) in a.iter_mut().enumerate() {
                row[k] += damping * (1.0 + row[k]);
            }
            let Some(step) = solve(a, jtr.iter().map(|v| -v).collect()) else {
                damping *= 10.0;
                continue;
            };
            let mut next = h;
            for k in 0..8 {
                next[k] += step[k];
            }
            let c = cost(&next);
            if c < current {
                let gain = current - c;
                h = next;
                current = c;
                damping = (damping / 10.0).max(1e-9);
                improved = gain > 1e-12;
                break;
            }
            damping *= 10.0;
        }
        if !improved {
            break;
        }
    }
    // A camera's horizon lies far outside the cards: reject fits that put it
    // near them.
    for (x, y) in [(-2.0, -2.0), (2.0, -2.0), (2.0, 2.0), (-2.0, 2.0)] {
        let w = h[6] * x + h[7] * y + 1.0;
        if !(0.5..=2.0).contains(&w) {
            return None;
        }
    }
    let hn = [[h[0], h[1], h[2]], [h[3], h[4], h[5]], [h[6], h[7], 1.0]];
    let full = matmul(&matmul(&invert(&tp)?, &hn), &tc);
    let full = normalised(&full);
    full.iter().flatten().all(|v| v.is_finite()).then_some(full)
}

/// Scaled so that `w` is 1 at cell (0, 0) when that is in front of the
/// camera, else so that `w` at (0, 0) is positive.
fn normalised(h: &M3) -> M3 {
    let w = h[2][2];
    if w.abs() < 1e-12 {
        return *h;
    }
    let k = 1.0 / w;
    h.map(|row| row.map(|v| v * k))
}

fn dot(a: V2, b: V2) -> f64 {
    a.0 * b.0 + a.1 * b.1
}

/// An angle reduced to (-45°, 45°].
fn wrap90(a: f64) -> f64 {
    let q = std::f64::consts::FRAC_PI_2;
    let mut x = a.rem_euclid(q);
    if x > q / 2.0 {
        x -= q;
    }
    x
}

/// The angle (modulo 90°) with the least total distance to the others.
fn medoid_angle(angles: &[f64]) -> f64 {
    angles
        .iter()
        .map(|&a| {
            let total: f64 = angles.iter().map(|&b| wrap90(a - b).abs()).sum();
            (a, total)
        })
        .min_by(|x, y| x.1.total_cmp(&y.1))
        .map_or(0.0, |x| x.0)
}

fn median(v: &mut [f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Median of `(value, weight)` pairs.
fn weighted_median(v: &mut [(f64, f64)]) -> Option<f64> {
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = v.iter().map(|x| x.1).sum();
    let mut acc = 0.0;
    for x in v.iter() {
        acc += x.1;
        if acc >= total / 2.0 {
            return Some(x.0);
        }
    }
    None
}

fn polygon_area(p: &[(f64, f64)]) -> f64 {
    let n = p.len();
    (0..n)
        .map(|i| {
            let (a, b) = (p[i], p[(i + 1) % n]);
            a.0 * b.1 - b.0 * a.1
        })
        .sum::<f64>()
        .abs()
        / 2.0
}

fn mul(h: &M3, (x, y): V2) -> (f64, f64, f64) {
    (
        h[0][0] * x + h[0][1] * y + h[0][2],
        h[1][0] * x + h[1][1] * y + h[1][2],
        h[2][0] * x + h[2][1] * y + h[2][2],
    )
}

fn matmul(a: &M3, b: &M3) -> M3 {
    let mut m = [[0.0; 3]; 3];
    for (i, row) in m.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    m
}

pub(crate) fn invert(m: &M3) -> Option<M3> {
    let [[a, b, c], [d, e, f], [g, h, i]] = *m;
    let det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
    let scale = m.iter().flatten().map(|v| v.abs()).fold(0.0, f64::max);
    if !det.is_finite() || det.abs() <= 1e-12 * scale.powi(3) {
        return None;
    }
    let k = 1.0 / det;
    Some([
        [
            (e * i - f * h) * k,
            (c * h - b * i) * k,
            (b * f - c * e) * k,
        ],
        [
            (f * g - d * i) * k,
            (a * i - c * g) * k,
            (c * d - a * f) * k,
        ],
        [
            (d * h - e * g) * k,
            (b * g - a * h) * k,
            (a * e - b * d) * k,
        ],
    ])
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::finder::detect;
    use crate::print::classic::{back, face};
    use crate::scene::{Scene, SceneParams, felt, render};
    use arbiter_core::table::{Card, Table};
    use image::RgbImage;
    use image::imageops::FilterType;
    use std::collections::HashMap;
    use std::f64::consts::FRAC_PI_4;
    use std::sync::{Mutex, OnceLock};

    /// The printable deck, shrunk once to about twice its on-screen size.
    pub(crate) fn card_image(c: Option<Card>) -> RgbImage {
        static CACHE: OnceLock<Mutex<HashMap<Option<Card>, RgbImage>>> = OnceLock::new();
        let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
        if let Some(img) = cache.lock().unwrap().get(&c) {
            return img.clone();
        }
        let full = match c {
            Some(card) => face(card),
            None => back(),
        };
        let small = image::imageops::resize(&full, 124, 173, FilterType::Triangle);
        cache.lock().unwrap().insert(c, small.clone());
        small
    }

    pub(crate) fn cloth() -> &'static RgbImage {
        static F: OnceLock<RgbImage> = OnceLock::new();
        F.get_or_init(|| felt(128, 5))
    }

    pub(crate) fn table(text: &str) -> Table {
        Table::parse_grid(text, Cell::new(0, 0)).unwrap()
    }

    pub(crate) fn base() -> SceneParams {
        SceneParams {
            width: 640,
            height: 360,
            pitch_px: 40.0,
            ..SceneParams::clean()
        }
    }

    /// `(c, r)` turned a quarter `q` times: `(c, r) → (-r, c)` each time.
    pub(crate) fn turn(q: u8, c: Cell) -> Cell {
        let m = quarter(q);
        Cell::new(
            m[0][0] as i32 * c.col + m[0][1] as i32 * c.row,
            m[1][0] as i32 * c.col + m[1][1] as i32 * c.row,
        )
    }

    /// How the placed cells relate to the truth.
    #[derive(Debug)]
    pub(crate) struct Score {
        /// Detections that match a true card.
        pub detected: usize,
        /// Of those, placed on the true cell under the best transform.
        pub right: usize,
        /// Quarter turns and shift taking true cells to placed cells.
        pub turns: u8,
        /// Every quarter turn that does as well (a lone card fits all four).
        pub turn_options: Vec<u8>,
        pub shift: Cell,
        pub wrong: Vec<String>,
    }

    /// Matches detections to the true cards by centre and finds the quarter
    /// turn and shift under which most placed cells are the true ones.
    pub(crate) fn score(scene: &Scene, dets: &[Detected], placement: &Placement) -> Score {
        let truth_of = |d: &Detected| {
            scene
                .truth
                .iter()
                .map(|t| {
                    let e = (t.centre_px.0 - d.centre.0).hypot(t.centre_px.1 - d.centre.1);
                    let size = (t.corners_px[0].0 - t.corners_px[1].0)
                        .hypot(t.corners_px[0].1 - t.corners_px[1].1);
                    (t.cell, e / size)
                })
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .filter(|x| x.1 < 0.3)
                .map(|x| x.0)
        };
        let matched: Vec<(usize, Cell)> = dets
            .iter()
            .enumerate()
            .filter_map(|(i, d)| truth_of(d).map(|c| (i, c)))
            .collect();
        score_matched(&matched, placement)
    }

    /// The best quarter turn and shift from true cells (by detection index)
    /// to placed cells, and what it leaves wrong.
    pub(crate) fn score_matched(matched: &[(usize, Cell)], placement: &Placement) -> Score {
        let placed: HashMap<usize, Cell> = placement.cells.iter().map(|(c, i)| (*i, *c)).collect();
        let mut best = (0usize, 0u8, Cell::new(0, 0));
        let mut per_turn = [0usize; 4];
        for q in 0..4u8 {
            let mut votes: HashMap<Cell, usize> = HashMap::new();
            for (i, t) in matched {
                if let Some(p) = placed.get(i) {
                    *votes.entry(p.minus(turn(q, *t))).or_default() += 1;
                }
            }
            for (shift, n) in votes {
                per_turn[q as usize] = per_turn[q as usize].max(n);
                if n > best.0 {
                    best = (n, q, shift);
                }
            }
        }
        let (right, turns, shift) = best;
        let wrong = matched
            .iter()
            .filter(|(i, t)| placed.get(i) != Some(&turn(turns, *t).plus(shift)))
            .map(|(i, t)| format!("det {i} (true {t:?}) placed {:?}", placed.get(i)))
            .collect();
        Score {
            detected: matched.len(),
            right,
            turns,
            turn_options: (0..4u8)
                .filter(|&q| per_turn[q as usize] == right)
                .collect(),
            shift,
            wrong,
        }
    }

    /// Renders, detects, fits; the placement must exist.
    pub(crate) fn run(text: &str, p: &SceneParams) -> (Scene, Vec<Detected>, Placement, Score) {
        let scene = render(&table(text), p, &card_image, cloth());
        let dets = detect(&scene.image);
        let placement = fit(&dets).expect("cards to fit");
        let s = score(&scene, &dets, &placement);
        (scene, dets, placement, s)
    }

    /// Every detection of a true card lands on its cell; returns the score.
    pub(crate) fn all_right(name: &str, text: &str, p: &SceneParams) -> Score {
        let (scene, dets, placement, s) = run(text, p);
        println!(
            "{name}: {}/{} detected cards on their cells ({} true cards), turns {}, residual {:.3}",
            s.right,
            s.detected,
            scene.truth.len(),
            s.turns,
            placement.residual
        );
        assert!(s.wrong.is_empty(), "{name}: {:?}", s.wrong);
        assert!(s.detected > 0, "{name}: nothing detected");
        let lowest = |f: fn(&Cell) -> i32| placement.cells.iter().map(|(c, _)| f(c)).min();
        assert_eq!(lowest(|c| c.col), Some(0), "{name}");
        assert_eq!(lowest(|c| c.row), Some(0), "{name}");
        let _ = dets;
        s
    }

    /// The quarter turns that bring a layout rotation into (-45°, 45°].
    fn expected_turns(rotation_deg: f32) -> u8 {
        (((rotation_deg - 45.0) / 90.0).ceil() as i32).rem_euclid(4) as u8
    }

    #[test]
    fn clean_grids_land_on_their_cells() {
        for (i, text) in [
            "rK uQ ## wB\nbP ## yN rR\n",
            "wK bQ rB\n## uN ##\nyP wR bK\n",
        ]
        .iter()
        .enumerate()
        {
            let mut p = base();
            p.seed = i as u64;
            let s = all_right("clean", text, &p);
            assert_eq!(s.turns, 0);
            assert_eq!(s.detected, table(text).len());
        }
    }

    #[test]
    fn gaps_an_l_and_a_diagonal() {
        let layouts = [
            // Gaps of one and two cells, a missing corner.
            "rK .. uQ ## .. .. wB\n.. .. .. bP yN .. rR\nuN wR .. .. .. .. bK\n",
            // An L.
            "rK .. .. ..\nuQ .. .. ..\n## .. .. ..\nbP yN rR wB\n",
            // A diagonal.
            "rK .. .. ..\n.. uQ .. ..\n.. .. ## ..\n.. .. .. bP\n",
        ];
        for (i, text) in layouts.iter().enumerate() {
            let mut p = base();
            p.seed = 10 + i as u64;
            p.layout_rotation_deg = 12.0 * i as f32;
            p.per_card_skew_deg = 4.0;
            p.gap_jitter_px = 2.0;
            let s = all_right("gaps", text, &p);
            assert_eq!(s.turns, 0);
        }
    }

    /// Tallies how many detected cards landed right over several scenes.
    fn tally(name: &str, cases: &[(&str, SceneParams)], check: impl Fn(&SceneParams, &Score)) {
        let (mut right, mut detected, mut cards) = (0, 0, 0);
        for (text, p) in cases {
            let (scene, _, _, s) = run(text, p);
            assert!(
                s.wrong.is_empty(),
                "{name} (seed {}): {:?}",
                p.seed,
                s.wrong
            );
            check(p, &s);
            right += s.right;
            detected += s.detected;
            cards += scene.truth.len();
        }
        println!(
            "{name}: {right}/{detected} detected cards on their cells ({cards} true cards, {} scenes)",
            cases.len()
        );
    }

    const SIX: &str = "rK uQ ## wB\nbP ## .. rR\n.. yN wQ bB\n";

    #[test]
    fn any_layout_rotation_reads_in_the_quarter_nearest_the_frame() {
        let cases: Vec<(&str, SceneParams)> =
            [3.0f32, 38.0, 62.0, 100.0, 151.0, 196.0, 244.0, 289.0, 333.0]
                .iter()
                .enumerate()
                .map(|(i, &rot)| {
                    let mut p = base();
                    p.seed = 20 + i as u64;
                    p.layout_rotation_deg = rot;
                    p.per_card_skew_deg = 5.0;
                    p.gap_jitter_px = 2.0;
                    p.tilt_deg = 10.0;
                    (SIX, p)
                })
                .collect();
        tally("rotations", &cases, |p, s| {
            assert_eq!(
                s.turns,
                expected_turns(p.layout_rotation_deg),
                "{}°",
                p.layout_rotation_deg
            );
        });
    }

    #[test]
    fn quarter_turns_skew_and_jitter() {
        let cases: Vec<(&str, SceneParams)> = (0..4u64)
            .map(|seed| {
                let mut p = base();
                p.seed = 30 + seed;
                p.layout_rotation_deg = 17.0 + 71.0 * seed as f32;
                p.quarter_turns = true;
                p.per_card_skew_deg = 10.0;
                p.gap_jitter_px = 4.0;
                p.tilt_deg = 10.0;
                (SIX, p)
            })
            .collect();
        tally("turned+skew10+jitter4", &cases, |p, s| {
            assert_eq!(s.turns, expected_turns(p.layout_rotation_deg));
        });
    }

    #[test]
    fn thirty_degrees_of_tilt_without_calibration() {
        let cases: Vec<(&str, SceneParams)> = (0..4u64)
            .map(|seed| {
                let mut p = base();
                (p.width, p.height, p.pitch_px) = (960, 540, 44.0);
                p.seed = 40 + seed;
                p.layout_rotation_deg = 28.0 + 83.0 * seed as f32;
                p.quarter_turns = seed % 2 == 1;
                p.per_card_skew_deg = 10.0;
                p.gap_jitter_px = 4.0;
                p.tilt_deg = 30.0;
                (SIX, p)
            })
            .collect();
        tally("tilt30", &cases, |p, s| {
            assert_eq!(s.turns, expected_turns(p.layout_rotation_deg));
        });
    }

    #[test]
    fn a_single_card_and_a_single_row() {
        let mut p = base();
        p.seed = 50;
        p.layout_rotation_deg = 30.0;
        p.tilt_deg = 20.0;
        let (_, dets, placement, s) = run("bQ\n", &p);
        assert_eq!(dets.len(), 1);
        assert_eq!(placement.cells, vec![(Cell::new(0, 0), 0)]);
        assert!(s.wrong.is_empty());
        // The lattice steps about one card pitch from the card.
        let (u, v) = placement.lattice.steps_at((0.0, 0.0));
        let w = p.card_size().0 as f64;
        assert!((1.0..1.4).contains(&(u.0.hypot(u.1) / w)), "{u:?}");
        assert!((1.2..1.9).contains(&(v.0.hypot(v.1) / w)), "{v:?}");

        for (i, text) in ["rK .. uQ ## wB bP\n", "rK\nuQ\n..\n##\nwB\n"]
            .iter()
            .enumerate()
        {
            let mut p = base();
            p.seed = 51 + i as u64;
            p.layout_rotation_deg = 20.0;
            p.per_card_skew_deg = 8.0;
            p.gap_jitter_px = 3.0;
            p.tilt_deg = 15.0;
            let s = all_right("one line", text, &p);
            assert_eq!(s.right, s.detected);
        }
    }

    #[test]
    fn nothing_to_fit() {
        assert!(fit(&[]).is_none());
    }

    /// A layout seen by a camera, as the detector would report it, without
    /// an image: fast enough for hundreds of layouts.
    #[derive(Clone, Debug)]
    pub(crate) struct Synthetic {
        pub tilt_deg: f64,
        pub rotation_deg: f64,
        pub quarter_turns: bool,
        /// Cells as square as `quarter_turns` makes them, every card upright.
        pub square_cells: bool,
        pub skew_deg: f64,
        pub jitter_px: f64,
        /// Card width on the table, px.
        pub card_px: f64,
        pub frame: (u32, u32),
        /// Where the layout's cell (0, 0) lies on the table, px.
        pub origin: (f64, f64),
        /// The gap between cards, over the card's width.
        pub gap: f64,
        /// How far inside the card's edge the detector's outline lies, px.
        pub inset_px: f64,
        pub seed: u64,
    }

    impl Synthetic {
        pub(crate) fn new(seed: u64) -> Synthetic {
            Synthetic {
                tilt_deg: 0.0,
                rotation_deg: 0.0,
                quarter_turns: false,
                square_cells: false,
                skew_deg: 0.0,
                jitter_px: 0.0,
                card_px: 44.0,
                frame: (960, 540),
                origin: (0.0, 0.0),
                gap: 0.12,
                inset_px: 0.0,
                seed,
            }
        }

        /// Detections of the cards on `cells` (in their order) and the frame
        /// size; the cell pitch is the scene renderer's.
        pub(crate) fn detections(&self, cells: &[Cell]) -> Vec<Detected> {
            use rand::{Rng, SeedableRng};
            let mut rng = rand::rngs::StdRng::seed_from_u64(self.seed);
            let (fw, fh) = (f64::from(self.frame.0), f64::from(self.frame.1));
            let d = 1.2 * fw.max(fh);
            let (st, ct) = self.tilt_deg.to_radians().sin_cos();
            let (cx, cy) = ((fw - 1.0) / 2.0, (fh - 1.0) / 2.0);
            let h = [
                [1.0, cx * st / d, cx],
                [0.0, (d * ct + cy * st) / d, cy],
                [0.0, st / d, 1.0],
            ];
            let project = |p: V2| {
                let (x, y, w) = mul(&h, p);
                ((x / w) as f32, (y / w) as f32)
            };
            let (w, ht) = (self.card_px, self.card_px * CARD_H / CARD_W);
            let gap = self.gap * w;
            let pitch = if self.quarter_turns || self.square_cells {
                (ht + gap, ht + gap)
            } else {
                (w + gap, ht + gap)
            };
            let n = cells.len().max(1) as f64;
            let mid = cells.iter().fold((0.0, 0.0), |a, c| {
                (a.0 + f64::from(c.col) / n, a.1 + f64::from(c.row) / n)
            });
            let (rs, rc) = self.rotation_deg.to_radians().sin_cos();
            cells
                .iter()
                .map(|c| {
                    let mut jit = || rng.random_range(-1.0..=1.0) * self.jitter_px;
                    let q = (
                        (f64::from(c.col) - mid.0) * pitch.0 + jit(),
                        (f64::from(c.row) - mid.1) * pitch.1 + jit(),
                    );
                    let centre = (
                        rc * q.0 - rs * q.1 + self.origin.0,
                        rs * q.0 + rc * q.1 + self.origin.1,
                    );
                    let turns = if self.quarter_turns {
                        rng.random_range(0..4)
                    } else {
                        0
                    };
                    let skew = rng.random_range(-1.0..=1.0) * self.skew_deg;
                    let angle = (self.rotation_deg + 90.0 * f64::from(turns) + skew).to_radians();
                    let (s, k) = angle.sin_cos();
                    let (hw, hh) = (w / 2.0 - self.inset_px, ht / 2.0 - self.inset_px);
                    let mut corners = [(-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh)].map(|(x, y)| {
                        let p = project((centre.0 + k * x - s * y, centre.1 + s * x + k * y));
                        let mut noise = || rng.random_range(-0.4..=0.4f32);
                        (p.0 + noise(), p.1 + noise())
                    });
                    // The detector's portrait order: the shorter-looking side
                    // first, whatever the card's true long side.
                    let len = |a: (f32, f32), b: (f32, f32)| (a.0 - b.0).hypot(a.1 - b.1);
                    let side = |q: &[(f32, f32); 4], i: usize| {
                        len(q[i], q[(i + 1) % 4]) + len(q[(i + 2) % 4], q[(i + 3) % 4])
                    };
                    if side(&corners, 0) > side(&corners, 1) {
                        corners.rotate_left(1);
                    }
                    let c = project(centre);
                    Detected {
                        corners,
                        centre: c,
                        token: None,
                        confidence: 0.5,
                    }
                })
                .collect()
        }
    }

    /// A random layout: a patch of a grid with holes, at least one card.
    pub(crate) fn random_cells(seed: u64) -> Vec<Cell> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ 0xCE11);
        let (cols, rows) = (rng.random_range(1..=6), rng.random_range(1..=5));
        let keep = rng.random_range(0.3..=1.0);
        let mut cells: Vec<Cell> = (0..rows)
            .flat_map(|r| (0..cols).map(move |c| Cell::new(c, r)))
            .filter(|_| rng.random_bool(keep))
            .collect();
        if cells.is_empty() {
            cells.push(Cell::new(0, 0));
        }
        cells
    }

    #[test]
    fn random_layouts_without_images() {
        use rand::{Rng, SeedableRng};
        let (mut scenes, mut perfect, mut right, mut cards) = (0, 0, 0, 0);
        let mut bad = Vec::new();
        for seed in 0..400u64 {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let cells = random_cells(seed);
            let syn = Synthetic {
                tilt_deg: rng.random_range(0.0..=30.0),
                rotation_deg: rng.random_range(0.0..360.0),
                quarter_turns: rng.random_bool(0.5),
                skew_deg: rng.random_range(0.0..=10.0),
                jitter_px: rng.random_range(0.0..=4.0),
                card_px: rng.random_range(36.0..=56.0),
                ..Synthetic::new(seed)
            };
            let dets = syn.detections(&cells);
            let placement = fit(&dets).unwrap();
            let matched: Vec<(usize, Cell)> = cells.iter().copied().enumerate().collect();
            let s = score_matched(&matched, &placement);
            scenes += 1;
            cards += cells.len();
            right += s.right;
            let expect = expected_turns(syn.rotation_deg as f32);
            let near_diagonal =
                (wrap90(syn.rotation_deg.to_radians()).abs() - FRAC_PI_4).abs() < 0.1;
            if s.wrong.is_empty() && (s.turn_options.contains(&expect) || near_diagonal) {
                perfect += 1;
            } else {
                bad.push(format!(
                    "seed {seed}: {} cards, turns {} (want {expect}), {:?} {syn:?}",
                    cells.len(),
                    s.turns,
                    s.wrong
                ));
            }
        }
        println!("synthetic: {perfect}/{scenes} layouts all right, {right}/{cards} cards");
        for b in bad.iter().take(10) {
            println!("  {b}");
        }
        // Two lone cards with a hole between them, in a layout of square
        // cells, fit two pitches as well as one: that ambiguity is real.
        assert!(bad.len() <= 2, "{} layouts wrong", bad.len());
    }

    /// Gaps of up to half a card, with the outlines found a few pixels
    /// inside the cards' edges (a pale card's snap, a blurred frame): the
    /// measured pitch then runs some percent over the largest true one,
    /// and must not be taken for two cells.
    #[test]
    fn wide_gaps_measured_by_small_outlines_keep_their_pitch() {
        use rand::{Rng, SeedableRng};
        let mut bad = Vec::new();
        for seed in 0..200u64 {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let card_px = rng.random_range(40.0..=90.0);
            let syn = Synthetic {
                tilt_deg: rng.random_range(0.0..=30.0),
                rotation_deg: rng.random_range(0.0..360.0),
                skew_deg: rng.random_range(0.0..=8.0),
                jitter_px: rng.random_range(0.0..=2.0),
                card_px,
                gap: rng.random_range(0.4..=0.5),
                inset_px: 0.04 * card_px,
                ..Synthetic::new(seed)
            };
            let cells: Vec<Cell> = (0..3)
                .flat_map(|r| (0..4).map(move |c| Cell::new(c, r)))
                .filter(|_| rng.random_bool(0.85))
                .collect();
            if cells.len() < 3 {
                continue;
            }
            let dets = syn.detections(&cells);
            let placement = fit(&dets).unwrap();
            let matched: Vec<(usize, Cell)> = cells.iter().copied().enumerate().collect();
            let s = score_matched(&matched, &placement);
            if !s.wrong.is_empty() {
                bad.push(format!("seed {seed}: {:?} gap {:.2}", s.wrong, syn.gap));
            }
        }
        assert!(
            bad.len() <= 2,
            "{} layouts wrong: {:?}",
            bad.len(),
            &bad[..bad.len().min(5)]
        );
    }

    /// Held-out frames with a hand over a card were read wrong here: the
    /// cards seen were all a hole apart along one axis (three in a row
    /// and one below the last, the middle one covered; two columns with
    /// a covered row between; two cards in square cells), so half the
    /// true pitch explained them as well, and it was the nearer to a
    /// tight gap though it left no room for a card. The outlines here are
    /// exact, as a coded deck's codes give them.
    #[test]
    fn cards_a_hole_apart_keep_room_for_a_card_between() {
        use rand::{Rng, SeedableRng};
        let layouts: [&[(i32, i32)]; 4] = [
            &[(1, 0), (2, 0), (3, 0), (3, 1)],
            &[(1, 0), (2, 0), (3, 0), (1, 2), (3, 2)],
            &[(1, 0), (1, 1)],
            &[(0, 0), (1, 0), (1, 1), (3, 1)],
        ];
        let mut bad = Vec::new();
        let mut tried = 0;
        for seed in 0..240u64 {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let cells: Vec<Cell> = layouts[seed as usize % layouts.len()]
                .iter()
                .map(|&(c, r)| Cell::new(c, r))
                .collect();
            let syn = Synthetic {
                tilt_deg: rng.random_range(0.0..=28.0),
                rotation_deg: rng.random_range(-45.0..=45.0),
                square_cells: seed % 8 < 6,
                skew_deg: rng.random_range(0.0..=3.0),
                jitter_px: 1.0,
                card_px: rng.random_range(60.0..=160.0),
                frame: (1280, 720),
                origin: (640.0, 360.0),
                gap: rng.random_range(0.05..=0.5),
                ..Synthetic::new(seed)
            };
            let dets = syn.detections(&cells);
            let placement = fit(&dets).unwrap();
            let matched: Vec<(usize, Cell)> = cells.iter().copied().enumerate().collect();
            let s = score_matched(&matched, &placement);
            tried += 1;
            if !s.wrong.is_empty() {
                bad.push(format!(
                    "seed {seed} (square {}, gap {:.2}): {:?}",
                    syn.square_cells, syn.gap, s.wrong
                ));
            }
        }
        println!("{} of {tried} layouts placed right", tried - bad.len());
        assert!(
            bad.is_empty(),
            "{} wrong: {:?}",
            bad.len(),
            &bad[..bad.len().min(4)]
        );
    }
}
