//! Where the cards could be, whatever they lie on.
//!
//! A card is a card because of its outline: a closed, straight-sided
//! quadrilateral of the 63×88 aspect with an edge all round it (the stock
//! against the cloth, its bevel, its shadow). The cloth may have any colour
//! or pattern, so nothing here asks what colour the table is.
//!
//! 1. **Edges.** The frame is halved (2×2 means: noise and JPEG blocks
//!    average out, and the rest costs a quarter), smoothed, and the colour
//!    gradient taken as the largest Sobel response over luminance and two
//!    opponent chroma channels. A pixel is an *edge* when its gradient beats
//!    a threshold set from the frame's own texture: a multiple of the median
//!    gradient, which on any table is the cloth's (cards are the minority),
//!    so wood grain or linen weave raise it and a plain cloth keeps it low.
//! 2. **Regions.** The four-connected components of the non-edge pixels.
//!    An edge band separates every card from the table, so a card shows up
//!    twice: as a *region* of its own (the face inside its printed frame,
//!    the back's field), and as a *hole* in the region around it (the whole
//!    card with its edge band). Both are candidates, holes filled; either
//!    may fail (a glyph that touches the frame line cuts the face region; a
//!    grained table has no one region around the card) and the other still
//!    finds the card.
//! 3. **Blobs.** Each candidate is handed on, at frame resolution, to the
//!    card fitter ([`super::cards`]), which fits the quadrilateral, splits
//!    touching cards and reads them; [`snap`] then moves each side onto the
//!    card's outer edge in the full-resolution frame.
//!
//! Blobs far from any card's size or shape (the table itself, a wood
//! grain's strip, a gingham check) are dropped here already.

use image::RgbImage;

use crate::shapes::{Run, bilinear, components, fit_line, intersect};

/// The largest share of the frame a card may cover: one held close to
/// the camera, half the frame wide.
pub(crate) const CLOSE_UP: f32 = 0.65;

/// Frames whose shorter side is at least this are halved before the edge
/// search.
const HALVE_FROM: u32 = 400;
/// The edge threshold over the frame's median gradient.
const TEXTURE_FACTOR: f32 = 3.0;
/// The least edge threshold, in 0–255 units of a step's height: sensor noise
/// on a plain cloth.
const MIN_THRESHOLD: f32 = 8.0;
/// Fewest grid pixels a candidate may have (a card 40 px wide, halved, has
/// about 400).
const MIN_CANDIDATE: usize = 60;

/// The edge map at grid resolution.
pub(super) struct Edges {
    /// Grid size.
    pub w: usize,
    pub h: usize,
    /// Frame pixels per grid pixel (1 or 2).
    pub scale: usize,
    /// Colour gradient, 0–255 (a step's height).
    pub mag: Vec<u8>,
    pub threshold: u8,
    /// Mean colour of each grid pixel.
    pub rgb: Vec<[u8; 3]>,
    /// The gradient's direction at each grid pixel (of the channel that
    /// gave `mag`), quantised to 0°, 45°, 90°, 135°: 0–3.
    pub dir: Vec<u8>,
}

impl Edges {
    pub fn new(frame: &RgbImage) -> Edges {
        let (fw, fh) = (frame.width() as usize, frame.height() as usize);
        let scale = if frame.width().min(frame.height()) >= HALVE_FROM {
            2
        } else {
            1
        };
        let (w, h) = (fw / scale, fh / scale);
        // Opponent channels, scaled so that each spans about 0–255 ×4 (a
        // fixed point for the 2×2 mean): L = (r + 2g + b), A = 2(r - g),
        // B = (r + g) - 2b. Chroma steps count half as much as luminance:
        // JPEG halves its resolution and noise is larger in it.
        let n = w * h;
        let mut chans = [vec![0i32; n], vec![0i32; n], vec![0i32; n]];
        let mut rgb = vec![[0u8; 3]; n];
        let src = frame.as_raw();
        for y in 0..h {
            for x in 0..w {
                let (mut r, mut g, mut b) = (0i32, 0i32, 0i32);
                for dy in 0..scale {
                    let row = (y * scale + dy) * fw;
                    for dx in 0..scale {
                        let i = 3 * (row + x * scale + dx);
                        r += i32::from(src[i]);
                        g += i32::from(src[i + 1]);
                        b += i32::from(src[i + 2]);
                    }
                }
                let k = 4 / (scale * scale) as i32;
                let (r, g, b) = (r * k, g * k, b * k);
                let i = y * w + x;
                rgb[i] = [r, g, b].map(|v| ((v + 2) / 4).min(255) as u8);
                chans[0][i] = r + 2 * g + b;
                chans[1][i] = r - g;
                chans[2][i] = (r + g - 2 * b) / 2;
            }
        }
        // Each channel is now 16× its 0–255 value for luminance (4 from
        // the mean's fixed point, 4 from the weights), 4× for chroma, then
        // halved again in importance: luminance /16, chroma /8 (4, and ½).
        let mut mag = vec![0u8; n];
        let mut dir = vec![0u8; n];
        let mut tmp = vec![0i32; n];
        for (c, chan) in chans.iter_mut().enumerate() {
            smooth(chan, &mut tmp, w, h);
            // After smoothing (weights summing to 16): luminance ×256,
            // chroma ×64. A Sobel response is 4× a step's height.
            let unit = if c == 0 {
                256.0 * 4.0
            } else {
                64.0 * 4.0 * 2.0
            };
            for y in 1..h.saturating_sub(1) {
                for x in 1..w - 1 {
                    let i = y * w + x;
                    let p = |dx: isize, dy: isize| {
                        chan[(i as isize + dy * w as isize + dx) as usize] as f32
                    };
                    let gx =
                        p(1, -1) + 2.0 * p(1, 0) + p(1, 1) - p(-1, -1) - 2.0 * p(-1, 0) - p(-1, 1);
                    let gy =
                        p(-1, 1) + 2.0 * p(0, 1) + p(1, 1) - p(-1, -1) - 2.0 * p(0, -1) - p(1, -1);
                    let m = ((gx * gx + gy * gy).sqrt() / unit).min(255.0) as u8;
                    if m > mag[i] {
                        mag[i] = m;
                        dir[i] = quantised_direction(gx, gy);
                    }
                }
            }
        }
        edge_ring(&mut mag, w, h);
        let mut hist = [0usize; 256];
        for &m in &mag {
            hist[m as usize] += 1;
        }
        let (mut seen, mut median) = (0, 0);
        for (v, &c) in hist.iter().enumerate() {
            seen += c;
            if 2 * seen >= n {
                median = v;
                break;
            }
        }
        let threshold = (TEXTURE_FACTOR * median as f32).clamp(MIN_THRESHOLD, 60.0) as u8;
        Edges {
            w,
            h,
            scale,
            mag,
            threshold,
            rgb,
            dir,
        }
    }

    /// The edges thinned to their crests and traced: a pixel is an edge
    /// where its gradient is the largest across the edge (non-maximum
    /// suppression) and either beats the threshold or joins, through such
    /// crests, one that does (hysteresis down to half of it). The seam
    /// between touching cards is then a line of its own, where the plain
    /// map's band of three or four pixels swallows it, and a faint stretch
    /// that continues a clear one is kept. (Where a faint line meets a
    /// clear one at an angle, the clear one's gradient suppresses the
    /// faint one's last pixels: a gap, as in Canny's edges.)
    pub fn thinned(&self) -> Edges {
        let (w, h) = (self.w, self.h);
        let mut crest = vec![false; w * h];
        for y in 1..h.saturating_sub(1) {
            for x in 1..w - 1 {
                let i = y * w + x;
                let m = self.mag[i];
                if m == 0 {
                    continue;
                }
                let (dx, dy): (isize, isize) = match self.dir[i] {
                    0 => (1, 0),
                    1 => (1, 1),
                    2 => (0, 1),
                    _ => (-1, 1),
                };
                let at = |k: isize| self.mag[(i as isize + dy * k * w as isize + dx * k) as usize];
                crest[i] = m >= at(1) && m > at(-1);
            }
        }
        let low = self.threshold / 2;
        let mut edge = vec![false; w * h];
        let mut stack: Vec<usize> = (0..w * h)
            .filter(|&i| crest[i] && self.mag[i] > self.threshold)
            .collect();
        for &i in &stack {
            edge[i] = true;
        }
        while let Some(i) = stack.pop() {
            let (x, y) = ((i % w) as isize, (i / w) as isize);
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let (nx, ny) = (x + dx, y + dy);
                    if nx < 0 || ny < 0 || nx >= w as isize || ny >= h as isize {
                        continue;
                    }
                    let j = ny as usize * w + nx as usize;
                    if !edge[j] && crest[j] && self.mag[j] > low {
                        edge[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        let mut mag: Vec<u8> = edge.iter().map(|&e| if e { 255 } else { 0 }).collect();
        edge_ring(&mut mag, w, h);
        Edges {
            w,
            h,
            scale: self.scale,
            mag,
            threshold: 128,
            rgb: self.rgb.clone(),
            dir: Vec::new(),
        }
    }

    /// The table's own texture raises no edge threshold above the floor
    /// that sensor noise sets.
    pub fn plain(&self) -> bool {
        f32::from(self.threshold) <= MIN_THRESHOLD + 2.0
    }

    /// The same gradients with another threshold (and no colours).
    pub fn with_threshold(&self, threshold: u8) -> Edges {
        Edges {
            w: self.w,
            h: self.h,
            scale: self.scale,
            mag: self.mag.clone(),
            threshold,
            rgb: Vec::new(),
            dir: Vec::new(),
        }
    }

    /// The grid's colours as an image: the frame at `1 / scale` its size,
    /// each pixel the mean of the frame's it covers.
    pub fn image(&self) -> RgbImage {
        RgbImage::from_raw(
            self.w as u32,
            self.h as u32,
            self.rgb.iter().flatten().copied().collect(),
        )
        .expect("one colour a grid pixel")
    }

    fn is_edge(&self, i: usize) -> bool {
        self.mag[i] > self.threshold
    }
}

/// Makes the outer ring of a `w`×`h` gradient map an edge: without it,
/// every region that reaches the frame's side would join every other along
/// the ring.
fn edge_ring(mag: &mut [u8], w: usize, h: usize) {
    for x in 0..w {
        mag[x] = 255;
        mag[(h - 1) * w + x] = 255;
    }
    for y in 0..h {
        mag[y * w] = 255;
        mag[y * w + w - 1] = 255;
    }
}

/// A gradient's direction quantised to the nearest of 0°, 45°, 90° and
/// 135° (y down): 0–3.
fn quantised_direction(gx: f32, gy: f32) -> u8 {
    // tan 22.5° ≈ 0.4142
    let (ax, ay) = (gx.abs(), gy.abs());
    if ay <= 0.4142 * ax {
        0
    } else if ax <= 0.4142 * ay {
        2
    } else if (gx > 0.0) == (gy > 0.0) {
        1
    } else {
        3
    }
}

/// A 3×3 binomial blur in place (weights sum to 16), borders copied.
fn smooth(c: &mut [i32], tmp: &mut [i32], w: usize, h: usize) {
    tmp.copy_from_slice(c);
    for y in 0..h {
        let row = y * w;
        for x in 1..w.saturating_sub(1) {
            let i = row + x;
            tmp[i] = c[i - 1] + 2 * c[i] + c[i + 1];
        }
        if w > 1 {
            tmp[row] *= 4;
            tmp[row + w - 1] *= 4;
        }
    }
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            c[i] = if y == 0 || y + 1 == h {
                4 * tmp[i]
            } else {
                tmp[i - w] + 2 * tmp[i] + tmp[i + w]
            };
        }
    }
}

/// Why a blob became a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Source {
    /// A region of its own: inside the card's outline.
    Region,
    /// A hole in the region around it: the card with its edge band.
    Hole,
    /// Pixels unlike the table's colour there (see [`TableModel`]).
    Colour,
}

/// A candidate blob, in frame pixels.
pub(super) struct Blob {
    pub runs: Vec<Run>,
    pub source: Source,
    /// Its area in frame pixels.
    pub area: usize,
    /// Touches the frame's border.
    pub at_border: bool,
}

/// A large region that is no card: the table, a piece of it, or something
/// over it (a hand, an arm, a sleeve). At grid resolution.
pub(super) struct Object {
    pub runs: Vec<Run>,
    /// Grid pixels.
    pub area: usize,
    /// The frame sides it touches: left, top, right, bottom.
    pub sides: [bool; 4],
}

impl Object {
    /// It reaches from one side of the frame to the opposite one, as a
    /// table's edge, a plank or a stripe does, and an arm does not.
    pub fn spans(&self) -> bool {
        (self.sides[0] && self.sides[2]) || (self.sides[1] && self.sides[3])
    }
}

/// The frame's regions sorted for the card fitter and the hand test.
pub(super) struct Regions {
    /// Candidate card blobs, in frame pixels.
    pub blobs: Vec<Blob>,
    /// Regions at least [`MIN_OBJECT`] of the frame, largest first.
    pub objects: Vec<Object>,
}

/// Fraction of the grid a region must cover to be an [`Object`].
const MIN_OBJECT: f32 = 0.003;

impl Blob {
    /// A blob of frame pixels `runs` (a `w`×`h` frame's, row-major).
    pub fn of_runs(runs: Vec<Run>, source: Source, w: usize, h: usize) -> Blob {
        let area = runs.iter().map(|r| (r.x1 - r.x0) as usize).sum();
        let at_border = runs.first().is_some_and(|r| r.y == 0)
            || runs.last().is_some_and(|r| r.y as usize + 1 == h)
            || runs.iter().any(|r| r.x0 == 0 || r.x1 as usize == w);
        Blob {
            runs,
            source,
            area,
            at_border,
        }
    }
}

/// The candidate blobs of a frame: regions and holes of regions (see the
/// module's steps 2 and 3), each with its holes filled; and the large
/// regions.
pub(super) fn regions(edges: &Edges) -> Regions {
    let (w, h) = (edges.w, edges.h);
    // A card held close to the camera (see [`CLOSE_UP`]).
    let max_area = (CLOSE_UP * (w * h) as f32) as usize;
    let regions = components(w, h, |i| !edges.is_edge(i));
    let mut out = Vec::new();
    let mut objects = Vec::new();
    for runs in regions {
        let area: usize = runs.iter().map(|r| (r.x1 - r.x0) as usize).sum();
        if area < MIN_CANDIDATE / 4 {
            continue;
        }
        let (x_lo, x_hi) = runs
            .iter()
            .fold((u32::MAX, 0), |a, r| (a.0.min(r.x0), a.1.max(r.x1)));
        let (y_lo, y_hi) = (runs[0].y, runs[runs.len() - 1].y);
        // The edge map's outer ring is never an edge: a region touches the
        // frame's side when it reaches that ring.
        let sides = [
            x_lo <= 1,
            y_lo <= 1,
            x_hi as usize + 1 >= w,
            y_hi as usize + 2 >= h,
        ];
        let at_border = sides.iter().any(|&s| s);
        if area as f32 >= MIN_OBJECT * (w * h) as f32 {
            objects.push(Object {
                runs: runs.clone(),
                area,
                sides,
            });
        }
        let bw = (x_hi - x_lo) as usize;
        let bh = (y_hi - y_lo) as usize + 1;
        // A region's holes: the components of its bounding box's other
        // pixels that do not reach the box's border.
        if bw >= 6 && bh >= 6 {
            let mut on = vec![false; bw * bh];
            for r in &runs {
                let row = (r.y - y_lo) as usize * bw;
                on[row + (r.x0 - x_lo) as usize..row + (r.x1 - x_lo) as usize].fill(true);
            }
            let mut filled = runs.clone();
            for hole in components(bw, bh, |i| !on[i]) {
                let n: usize = hole.iter().map(|r| (r.x1 - r.x0) as usize).sum();
                let touches = hole.iter().any(|r| {
                    r.y == 0 || r.y as usize + 1 == bh || r.x0 == 0 || r.x1 as usize == bw
                });
                if touches {
                    continue;
                }
                let shifted: Vec<Run> = hole
                    .iter()
                    .map(|r| Run {
                        y: r.y + y_lo,
                        x0: r.x0 + x_lo,
                        x1: r.x1 + x_lo,
                    })
                    .collect();
                if n >= MIN_CANDIDATE && n <= max_area {
                    out.push(Blob {
                        area: n,
                        runs: shifted.clone(),
                        source: Source::Hole,
                        at_border: false,
                    });
                }
                filled.extend(shifted);
            }
            if !at_border && (MIN_CANDIDATE..=max_area).contains(&area) {
                filled.sort_by_key(|r| (r.y, r.x0));
                let n = filled.iter().map(|r| (r.x1 - r.x0) as usize).sum();
                out.push(Blob {
                    area: n,
                    runs: filled,
                    source: Source::Region,
                    at_border,
                });
            }
        }
    }
    objects.sort_by_key(|o| std::cmp::Reverse(o.area));
    // To frame pixels.
    let s = edges.scale as u32;
    for b in &mut out {
        b.area *= (s * s) as usize;
        if s > 1 {
            b.runs = b
                .runs
                .iter()
                .flat_map(|r| {
                    (0..s).map(move |k| Run {
                        y: r.y * s + k,
                        x0: r.x0 * s,
                        x1: r.x1 * s,
                    })
                })
                .collect();
            b.runs.sort_by_key(|r| (r.y, r.x0));
        }
    }
    Regions {
        blobs: out,
        objects,
    }
}

/// Which of the colour steps near a side [`snap`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Prefer {
    /// The outermost step nearly as strong as the strongest, so that a
    /// face's printed frame line does not stand in for the card's own edge
    /// (for an outline found inside or around the card).
    Outermost,
    /// The strongest, discounted by its distance from the side: for an
    /// outline predicted from a neighbour, whose side lies near the edge
    /// and may have another card's edges just beyond it.
    Nearest,
}

/// Moves each side of `corners` (a card's outline, portrait order) onto a
/// straight colour step near it in the full-resolution frame: within
/// `inward` pixels inside and `outward` outside, chosen as `prefer` says.
/// `None` when a side finds no step along most of its length.
pub(super) fn snap(
    frame: &RgbImage,
    corners: &[(f32, f32); 4],
    inward: f32,
    outward: f32,
    prefer: Prefer,
) -> Option<[(f32, f32); 4]> {
    const SAMPLES: usize = 16;
    let c = corners
        .iter()
        .fold((0.0, 0.0), |a, p| (a.0 + p.0 / 4.0, a.1 + p.1 / 4.0));
    let mut lines = Vec::with_capacity(4);
    for i in 0..4 {
        let (a, b) = (corners[i], corners[(i + 1) % 4]);
        let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt().max(1e-3);
        let d = ((b.0 - a.0) / len, (b.1 - a.1) / len);
        let mut n = (-d.1, d.0);
        if (a.0 - c.0) * n.0 + (a.1 - c.1) * n.1 < 0.0 {
            n = (-n.0, -n.1);
        }
        let steps = ((inward + outward) * 2.0).ceil() as usize + 1;
        let mut pts = Vec::with_capacity(SAMPLES);
        let mut prof = vec![[0.0f32; 3]; steps + 1];
        for k in 0..SAMPLES {
            let t = 0.12 + 0.76 * (k as f32 + 0.5) / SAMPLES as f32;
            let p = (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t);
            let mut ok = true;
            for (j, v) in prof.iter_mut().enumerate() {
                let s = -inward + j as f32 * 0.5;
                match sample(frame, p.0 + n.0 * s, p.1 + n.1 * s) {
                    Some(px) => *v = px,
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            if !ok {
                continue;
            }
            // Step strength between samples a pixel apart.
            let strength = |j: usize| step(prof[j], prof[j + 2]);
            let best = (0..steps.saturating_sub(1))
                .map(strength)
                .fold(0.0f32, f32::max);
            if best < MIN_THRESHOLD {
                continue;
            }
            let chosen = match prefer {
                Prefer::Outermost => (0..steps.saturating_sub(1))
                    .rev()
                    .find(|&j| strength(j) >= 0.6 * best),
                Prefer::Nearest => {
                    let reach = inward.max(outward).max(1.0);
                    let score = |j: usize| {
                        let off = (-inward + (j as f32 + 1.0) * 0.5).abs();
                        strength(j) * (1.0 - 0.5 * off / reach)
                    };
                    (0..steps.saturating_sub(1)).max_by(|&a, &b| score(a).total_cmp(&score(b)))
                }
            };
            let Some(j) = chosen else {
                continue;
            };
            let s = -inward + (j as f32 + 1.0) * 0.5;
            pts.push((p.0 + n.0 * s, p.1 + n.1 * s));
        }
        if pts.len() < SAMPLES / 2 {
            return None;
        }
        // Trimmed total least squares: a sample that caught a glyph or a
        // neighbour's edge is dropped.
        let mut line = fit_line(&pts)?;
        for tol in [2.0, 1.0] {
            let nn = (-line.1.1, line.1.0);
            let kept: Vec<(f32, f32)> = pts
                .iter()
                .copied()
                .filter(|p| ((p.0 - line.0.0) * nn.0 + (p.1 - line.0.1) * nn.1).abs() < tol)
                .collect();
            if kept.len() < SAMPLES / 3 {
                return None;
            }
            line = fit_line(&kept)?;
        }
        lines.push(line);
    }
    let mut out = [(0.0, 0.0); 4];
    for (i, o) in out.iter_mut().enumerate() {
        let (l0, l1) = (lines[(i + 3) % 4], lines[i]);
        let p = intersect(
            (l0.0, (l0.0.0 + l0.1.0, l0.0.1 + l0.1.1)),
            (l1.0, (l1.0.0 + l1.1.0, l1.0.1 + l1.1.1)),
        )?;
        let moved = ((p.0 - corners[i].0).powi(2) + (p.1 - corners[i].1).powi(2)).sqrt();
        if moved > 2.0 * (inward + outward) + 2.0 {
            return None;
        }
        *o = p;
    }
    Some(out)
}

/// The colour step between two samples, in 0–255 levels of the largest of
/// luminance and two opponent chroma channels.
#[inline]
pub(super) fn step(x: [f32; 3], y: [f32; 3]) -> f32 {
    let l = ((x[0] + 2.0 * x[1] + x[2]) - (y[0] + 2.0 * y[1] + y[2])).abs() / 4.0;
    let ca = ((x[0] - x[1]) - (y[0] - y[1])).abs() / 2.0;
    let cb = ((x[0] + x[1] - 2.0 * x[2]) - (y[0] + y[1] - 2.0 * y[2])).abs() / 4.0;
    l.max(ca).max(cb)
}

/// The frame's colour at a point, bilinear; `None` outside.
#[inline]
pub(super) fn sample(frame: &RgbImage, x: f32, y: f32) -> Option<[f32; 3]> {
    let (w, h) = (frame.width() as usize, frame.height() as usize);
    if !(x >= 0.0 && y >= 0.0 && x < (w - 1) as f32 && y < (h - 1) as f32) {
        return None;
    }
    let (x0, y0) = (x as usize, y as usize);
    let (fx, fy) = (x - x0 as f32, y - y0 as f32);
    let raw = frame.as_raw();
    let i = 3 * (y0 * w + x0);
    let j = i + 3 * w;
    Some(std::array::from_fn(|k| {
        let top = f32::from(raw[i + k]) * (1.0 - fx) + f32::from(raw[i + 3 + k]) * fx;
        let bot = f32::from(raw[j + k]) * (1.0 - fx) + f32::from(raw[j + 3 + k]) * fx;
        top * (1.0 - fy) + bot * fy
    }))
}

/// The table's colour, learned from the frame: the largest region of the
/// edge map is the table (or the most of it that one region holds), and its
/// colour is averaged in tiles, so that a light gradient, a lamp's glare or
/// a soft shadow is part of the model. Tiles under cards take their
/// neighbours' colour. A pixel is *table* when its chromaticity and its
/// brightness are both close to its tile's; everything else is something on
/// the table. On a plain cloth of any colour this outlines the cards more
/// surely than edges do (a blurred frame closes the gaps between edges);
/// where a card looks like the cloth (white on white, a back the cloth's
/// colour), or the cloth is patterned, the edge map's candidates remain.
pub(super) struct TableModel {
    scale: usize,
    tw: usize,
    th: usize,
    /// Mean R, G, B per tile.
    means: Vec<[f32; 3]>,
    /// Largest chromaticity difference that is still table.
    chroma_tol: f32,
    /// Largest brightness ratio (either way) that is still table, as a
    /// log ratio.
    bright_tol: f32,
    /// `bright_tol` as the ratios of brightness themselves: the most a
    /// pixel may be lighter than the cloth's mean, and the least it may be
    /// darker (a shadow included), so that the test per pixel needs no log.
    lightest: f32,
    darkest: f32,
    /// The cloth has a clear hue: its chromaticity alone tells it from a
    /// card, and brightness (a shadow between cards, a lamp) is ignored. A
    /// grey, white or black table needs brightness too.
    chromatic: bool,
    /// On a patterned cloth, the frame blurred until the pattern is one
    /// colour: the model is of that, and pixels are looked up in it.
    blurred: Option<RgbImage>,
    blur: usize,
}

/// How much darker than the cloth a shadow may make it, beyond the cloth's
/// own spread, as a log ratio (half as bright).
const SHADOW: f32 = 0.4;
/// A pixel of the table's region whose chromaticity lies this far from
/// the region's median is no cloth: the region leaked into a card.
const LEAKED: f32 = 0.15;
/// Side of a tile of [`TableModel`], in grid pixels.
const TILE: usize = 12;
/// The least share of the grid the largest region must hold to be taken
/// for the table: on a patterned cloth no region does.
const MIN_TABLE: f32 = 0.2;

/// Chromaticity of a colour: brightness does not change it; the constant
/// keeps dark pixels' noisy hue from counting much.
fn chroma(c: [f32; 3]) -> (f32, f32) {
    let s = c[0] + c[1] + c[2] + 24.0;
    ((c[0] - c[1]) / s, (c[2] - c[1]) / s)
}

impl TableModel {
    /// `None` when no region is large enough to be the table.
    pub fn learn(edges: &Edges, objects: &[Object]) -> Option<TableModel> {
        let table = objects.first()?;
        let (w, h) = (edges.w, edges.h);
        if (table.area as f32) < MIN_TABLE * (w * h) as f32 {
            return None;
        }
        let (tw, th) = (w.div_ceil(TILE), h.div_ceil(TILE));
        let mut sums = vec![[0.0f32; 4]; tw * th];
        let (mut ca, mut cb) = (Vec::new(), Vec::new());
        for r in table.runs.iter().step_by(3) {
            let y = r.y as usize;
            for x in (r.x0 as usize..r.x1 as usize).step_by(3) {
                let c = chroma(edges.rgb[y * w + x].map(f32::from));
                ca.push(c.0);
                cb.push(c.1);
            }
        }
        let median = |v: &mut Vec<f32>| {
            v.sort_by(f32::total_cmp);
            v.get(v.len() / 2).copied().unwrap_or(0.0)
        };
        // The region can leak into cards through an edge the blur or the
        // noise broke (navy backs on dim green stripes): the tiles there
        // would learn the card's colour and call it cloth. Pixels far in
        // hue from the region's median are left out of the tiles' means
        // (not of the spread below, which the hands' model is tuned on).
        let cloth = (median(&mut ca), median(&mut cb));
        let leaked = |c: [u8; 3]| {
            let c = chroma(c.map(f32::from));
            (c.0 - cloth.0).abs().max((c.1 - cloth.1).abs()) > LEAKED
        };
        for r in &table.runs {
            let y = r.y as usize;
            for x in r.x0 as usize..r.x1 as usize {
                let c = edges.rgb[y * w + x];
                if leaked(c) {
                    continue;
                }
                let t = &mut sums[y / TILE * tw + x / TILE];
                t[0] += f32::from(c[0]);
                t[1] += f32::from(c[1]);
                t[2] += f32::from(c[2]);
                t[3] += 1.0;
            }
        }
        // Tiles with too little table take the mean of their known
        // neighbours, ring by ring.
        let enough = (TILE * TILE / 5) as f32;
        let mut means: Vec<Option<[f32; 3]>> = sums
            .iter()
            .map(|t| (t[3] >= enough).then(|| [t[0] / t[3], t[1] / t[3], t[2] / t[3]]))
            .collect();
        if means.iter().all(|m| m.is_none()) {
            return None;
        }
        while means.iter().any(|m| m.is_none()) {
            let before = means.clone();
            for ty in 0..th {
                for tx in 0..tw {
                    if before[ty * tw + tx].is_some() {
                        continue;
                    }
                    let (mut acc, mut n) = ([0.0f32; 3], 0.0);
                    for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                        let (x, y) = (tx as isize + dx, ty as isize + dy);
                        if x < 0 || y < 0 || x >= tw as isize || y >= th as isize {
                            continue;
                        }
                        if let Some(m) = before[y as usize * tw + x as usize] {
                            for k in 0..3 {
                                acc[k] += m[k];
                            }
                            n += 1.0;
                        }
                    }
                    if n > 0.0 {
                        means[ty * tw + tx] = Some(acc.map(|a| a / n));
                    }
                }
            }
        }
        let means: Vec<[f32; 3]> = means.into_iter().map(|m| m.unwrap_or([0.0; 3])).collect();
        // The cloth's own spread about its tiles (grain, weave, noise),
        // robustly: the median deviation.
        let mut dc = Vec::new();
        let mut db = Vec::new();
        for r in table.runs.iter().step_by(3) {
            let y = r.y as usize;
            for x in (r.x0 as usize..r.x1 as usize).step_by(3) {
                let c = edges.rgb[y * w + x].map(f32::from);
                let m = means[y / TILE * tw + x / TILE];
                let (a, b) = (chroma(c), chroma(m));
                dc.push((a.0 - b.0).abs().max((a.1 - b.1).abs()));
                let (sc, sm) = (c[0] + c[1] + c[2] + 24.0, m[0] + m[1] + m[2] + 24.0);
                db.push((sc / sm).ln().abs());
            }
        }
        let chroma_tol = (6.0 * median(&mut dc)).max(0.04);
        let bright_tol = (6.0 * median(&mut db)).max(0.3);
        let total = sums.iter().fold([0.0f32; 4], |a, t| {
            [a[0] + t[0], a[1] + t[1], a[2] + t[2], a[3] + t[3]]
        });
        let mean = chroma([total[0], total[1], total[2]].map(|v| v / total[3].max(1.0)));
        let chromatic = mean.0.abs().max(mean.1.abs()) > 0.08;
        Some(TableModel {
            chromatic,
            scale: edges.scale,
            tw,
            th,
            means,
            chroma_tol,
            bright_tol,
            lightest: bright_tol.exp(),
            darkest: (-(bright_tol + SHADOW)).exp(),
            blurred: None,
            blur: 0,
        })
    }

    /// The model of a patterned cloth (checks, stripes) or of a table in
    /// pieces (planks), learned from the frame blurred: `grid` is the
    /// `w`×`h` frame at `1 / scale` its size ([`Edges::image`]), blurred
    /// over `r` of its pixels. `None` unless the blurred table is one
    /// colour ([`Self::tight`]).
    pub fn learn_blurred(
        grid: &RgbImage,
        scale: usize,
        r: usize,
        w: u32,
        h: u32,
    ) -> Option<TableModel> {
        let blurred = box_blur(grid, r);
        let edges = Edges::new(&blurred);
        let regions = regions(&edges);
        let mut model = TableModel::learn(&edges, &regions.objects)?;
        if !model.tight() {
            return None;
        }
        // The model's pixels are the grid's, or coarser.
        model.scale *= scale;
        model.blurred = Some(enlarge(&blurred, scale as u32, w, h));
        model.blur = scale * r;
        Some(model)
    }

    /// The cloth's colours spread far: two or more colours (a pattern).
    pub fn loose(&self) -> bool {
        self.chroma_tol > 0.2 || self.bright_tol > 0.45
    }

    /// The model can tell a card from the cloth by colour: a patterned
    /// cloth's colours spread so far, unless blurred into one, that
    /// nearly anything passes for cloth (a navy back on red and yellow
    /// stripes did).
    pub fn tells_cards(&self) -> bool {
        !self.loose() || self.blurred.is_some()
    }

    /// The cloth is one colour, give or take grain and noise.
    pub fn tight(&self) -> bool {
        self.chroma_tol <= 0.1 && self.bright_tol <= 0.36
    }

    /// The blurred frame the model is of, and the blur's half-width, on a
    /// patterned cloth.
    pub fn blurred(&self) -> Option<(&RgbImage, f32)> {
        self.blurred.as_ref().map(|b| (b, self.blur as f32))
    }

    /// The image the model's colours are of: `frame`, or its blurred copy.
    fn seen<'a>(&'a self, frame: &'a RgbImage) -> &'a RgbImage {
        self.blurred.as_ref().unwrap_or(frame)
    }

    /// Whether the frame pixel `(x, y)` of colour `c` looks like the table.
    fn is_table(&self, x: usize, y: usize, c: [u8; 3]) -> bool {
        let (tx, ty) = (
            (x / self.scale / TILE).min(self.tw - 1),
            (y / self.scale / TILE).min(self.th - 1),
        );
        let m = self.means[ty * self.tw + tx];
        let c = c.map(f32::from);
        let (a, b) = (chroma(c), chroma(m));
        let (sc, sm) = (c[0] + c[1] + c[2] + 24.0, m[0] + m[1] + m[2] + 24.0);
        // Shadows darken the cloth by half (a card's own contact shadow, a
        // hand's); lighter than the cloth by a little is already a card.
        (a.0 - b.0).abs() <= self.chroma_tol
            && (a.1 - b.1).abs() <= self.chroma_tol
            && (self.chromatic || sc <= self.lightest * sm && sc >= self.darkest * sm)
    }

    /// The share of a region's pixels (grid runs) that look like the
    /// table.
    pub fn share_like_table(&self, edges: &Edges, runs: &[Run]) -> f32 {
        let (mut like, mut all) = (0usize, 0usize);
        for r in runs.iter().step_by(2) {
            let y = r.y as usize;
            for x in (r.x0 as usize..r.x1 as usize).step_by(2) {
                all += 1;
                let s = edges.scale;
                like += usize::from(self.is_table(x * s, y * s, edges.rgb[y * edges.w + x]));
            }
        }
        like as f32 / all.max(1) as f32
    }

    /// The share of the pixels inside a quadrilateral (frame pixels,
    /// corners in order) that look like the table, sampled on a grid.
    pub fn share_in(&self, frame: &RgbImage, q: &[(f32, f32); 4]) -> f32 {
        let frame = self.seen(frame);
        const N: usize = 10;
        let (mut like, mut all) = (0usize, 0usize);
        for i in 0..N {
            for j in 0..N {
                let (u, v) = ((i as f32 + 0.5) / N as f32, (j as f32 + 0.5) / N as f32);
                let (x, y) = bilinear(q, u, v);
                if x < 0.0 || y < 0.0 || x >= frame.width() as f32 || y >= frame.height() as f32 {
                    continue;
                }
                all += 1;
                let c = frame.get_pixel(x as u32, y as u32).0;
                like += usize::from(self.is_table(x as usize, y as usize, c));
            }
        }
        like as f32 / all.max(1) as f32
    }

    /// The blobs of pixels unlike the table, in frame pixels, holes up to a
    /// tenth of their area filled (ink that happens to match the cloth).
    pub fn blobs(&self, frame: &RgbImage) -> Vec<Blob> {
        let frame = self.seen(frame);
        let (w, h) = (frame.width() as usize, frame.height() as usize);
        let raw = frame.as_raw();
        let mut on = vec![false; w * h];
        for y in 0..h {
            for x in 0..w {
                let i = y * w + x;
                on[i] = !self.is_table(x, y, [raw[3 * i], raw[3 * i + 1], raw[3 * i + 2]]);
            }
        }
        // Blocks of touching cards larger than any one card are kept: their
        // corners seed the search for the cards in them.
        let max_area = w * h * 3 / 5;
        components(w, h, |i| on[i])
            .into_iter()
            .map(|runs| Blob::of_runs(runs, Source::Colour, w, h))
            .filter(|b| (MIN_CANDIDATE..=max_area).contains(&b.area))
            .collect()
    }
}

/// `frame` averaged over a square of side `2r + 1` (twice over, close to a
/// Gaussian; the square cut at the frame's sides): a cloth's checks or
/// stripes finer than that become one even colour, while a card, larger,
/// keeps its own.
pub(super) fn box_blur(frame: &RgbImage, r: usize) -> RgbImage {
    let (w, h) = (frame.width() as usize, frame.height() as usize);
    let mut a: Vec<u16> = frame.as_raw().iter().map(|&v| u16::from(v)).collect();
    let mut b = vec![0u16; a.len()];
    for _ in 0..2 {
        blur_rows(&a, &mut b, w, r);
        blur_columns(&b, &mut a, w, h, r);
    }
    RgbImage::from_raw(
        w as u32,
        h as u32,
        a.into_iter().map(|v| v.min(255) as u8).collect(),
    )
    .expect("same size")
}

/// Each row's running mean over `2r + 1` pixels (RGB, `w` pixels a row).
fn blur_rows(src: &[u16], dst: &mut [u16], w: usize, r: usize) {
    let mut prefix = vec![[0u32; 3]; w + 1];
    for (row, out) in src.chunks_exact(3 * w).zip(dst.chunks_exact_mut(3 * w)) {
        for x in 0..w {
            for c in 0..3 {
                prefix[x + 1][c] = prefix[x][c] + u32::from(row[3 * x + c]);
            }
        }
        for x in 0..w {
            let (lo, hi) = (x.saturating_sub(r), (x + r + 1).min(w));
            let n = (hi - lo) as u32;
            for c in 0..3 {
                out[3 * x + c] = ((prefix[hi][c] - prefix[lo][c] + n / 2) / n) as u16;
            }
        }
    }
}

/// Each column's running mean over `2r + 1` rows, kept as one sum per
/// column updated row by row (rows are contiguous; columns are not).
fn blur_columns(src: &[u16], dst: &mut [u16], w: usize, h: usize, r: usize) {
    let stride = 3 * w;
    let mut sum = vec![0u32; stride];
    let (mut lo, mut hi) = (0, 0);
    for y in 0..h {
        while hi < (y + r + 1).min(h) {
            for (s, &v) in sum.iter_mut().zip(&src[hi * stride..(hi + 1) * stride]) {
                *s += u32::from(v);
            }
            hi += 1;
        }
        while lo < y.saturating_sub(r) {
            for (s, &v) in sum.iter_mut().zip(&src[lo * stride..(lo + 1) * stride]) {
                *s -= u32::from(v);
            }
            lo += 1;
        }
        let n = (hi - lo) as u32;
        for (d, &s) in dst[y * stride..(y + 1) * stride].iter_mut().zip(&sum) {
            *d = ((s + n / 2) / n) as u16;
        }
    }
}

/// `small` back at `w`×`h`, `scale` times its size, each pixel repeated.
fn enlarge(small: &RgbImage, scale: u32, w: u32, h: u32) -> RgbImage {
    let (sw, sh) = (small.width(), small.height());
    RgbImage::from_fn(w, h, |x, y| {
        *small.get_pixel((x / scale).min(sw - 1), (y / scale).min(sh - 1))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Thinned, a step is one pixel wide; a stretch of it too faint for
    /// the threshold is kept where it continues a clear one, and dropped
    /// where it stands alone.
    #[test]
    fn thinned_edges_are_one_pixel_wide_and_traced_from_clear_ones() {
        // Rows 0–49: a step at x = 100 that fades from clear at the top
        // to faint from y = 30 on. Rows 70–89: a faint step alone.
        let frame = RgbImage::from_fn(200, 100, |x, y| {
            let v = match y {
                _ if x < 100 => 120,
                0..30 => 128 + 72 * (30 - y) / 30,
                30..50 | 70..90 => 128,
                _ => 120,
            };
            image::Rgb([v as u8, v as u8, v as u8])
        });
        let edges = Edges::new(&frame);
        let thin = edges.thinned();
        let on = |e: &Edges, y: usize| (95..106).filter(|&x| e.is_edge(y * e.w + x)).count();
        // The clear stretch: a band in the edge map, one pixel thinned.
        assert!(on(&edges, 10) >= 2, "{}", on(&edges, 10));
        assert_eq!(on(&thin, 10), 1);
        // The faint stretch below it: no edge at the threshold, traced.
        assert_eq!(on(&edges, 40), 0);
        assert_eq!(on(&thin, 40), 1);
        // The faint step alone is not.
        assert_eq!(on(&thin, 80), 0);
    }

    /// Checks finer than the blur become their mean colour; a region
    /// larger than it keeps its own colour in its middle.
    #[test]
    fn blur_evens_fine_checks_and_keeps_a_card() {
        let frame = RgbImage::from_fn(120, 80, |x, y| {
            if (40..80).contains(&x) && (20..60).contains(&y) {
                image::Rgb([250, 250, 250])
            } else if (x / 3 + y / 3) % 2 == 0 {
                image::Rgb([240, 240, 240])
            } else {
                image::Rgb([40, 70, 170])
            }
        });
        let b = box_blur(&frame, 4);
        let cloth = b.get_pixel(15, 40).0;
        for (c, mean) in cloth.iter().zip([140.0f32, 155.0, 205.0]) {
            assert!((f32::from(*c) - mean).abs() < 20.0, "{cloth:?}");
        }
        let far = b.get_pixel(110, 10).0;
        for (a, c) in cloth.iter().zip(far) {
            assert!(a.abs_diff(c) < 20, "{cloth:?} {far:?}");
        }
        assert_eq!(b.get_pixel(60, 40).0, [250, 250, 250]);
    }
}
