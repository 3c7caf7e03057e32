//! The first stage of recognition: finding the cards in a frame and reading
//! each one.
//!
//! 1. **Mask.** A pixel is *felt* when green clearly dominates it in
//!    chromaticity (`g - max(r, b)` over `r + g + b`, which a light gradient
//!    or a shadow does not change); *skin* when it is warm (`r > g > b` with
//!    blue well above zero, unlike yellow ink). Everything else is card-like:
//!    white stock, inks, the navy back.
//! 2. **Blobs.** Four-connected components of the card-like mask; tiny ones
//!    are dropped.
//! 3. **Quadrilateral.** A minimum-area rectangle around the blob's hull
//!    gives four rough sides; the blob's boundary pixels near each side are
//!    fitted with a line (trimmed least squares), and neighbouring lines meet
//!    in the corners, which follows perspective. The corners are ordered so
//!    that the first side is a short one (portrait).
//! 4. **Identity.** The card is rectified by a homography to
//!    [`RECT_W`]×[`RECT_H`] and read with [`read_corner_code`]; failing that
//!    it is tested for the back (navy over most of it, a white lattice in
//!    the middle); failing that the token is `None`. A blob that is not
//!    card-shaped, or that skin touches, is never given a token.

use image::{GrayImage, Luma, Rgb, RgbImage};
use imageproc::distance_transform::Norm;
use imageproc::geometry::{convex_hull, min_area_rect};
use imageproc::morphology::erode;
use imageproc::point::Point;
use imageproc::region_labelling::{Connectivity, connected_components};

use crate::deck::print::read_corner_code;
use crate::table::Token;

/// Width of a rectified card.
pub const RECT_W: u32 = 186;
/// Height of a rectified card.
pub const RECT_H: u32 = 260;

/// One card found in a frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Detected {
    /// Portrait order: top-left, top-right, bottom-right, bottom-left of the
    /// card as rectified (which end is the top is not decided: either upright
    /// orientation reads the same).
    pub corners: [(f32, f32); 4],
    pub centre: (f32, f32),
    /// `Some(Token::Up(card))` from the corner code, `Some(Token::Down)` for a
    /// back, `None` when the card was seen but not read.
    pub token: Option<Token>,
    /// 0–1: how sure the detector is of the token (of the card's presence
    /// when `token` is `None`).
    pub confidence: f32,
}

/// Fewest pixels a blob must have to be considered a card.
const MIN_AREA: usize = 120;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Felt,
    Card,
    Skin,
}

fn classify(p: &Rgb<u8>) -> Class {
    let [r, g, b] = p.0.map(f32::from);
    let sum = r + g + b + 1.0;
    let green = (g - r.max(b)) / sum;
    if green > 0.07 {
        return Class::Felt;
    }
    if r > g
        && g > b
        && b > 0.35 * r
        && r - g > 0.1 * r
        && g - b < 1.1 * (r - g)
        && g - b > 0.3 * (r - g)
        && r > 50.0
    {
        return Class::Skin;
    }
    Class::Card
}

/// Whether the frame shows a hand (enough skin-coloured pixels).
pub fn hand_present(frame: &RgbImage) -> bool {
    let skin = frame
        .pixels()
        .filter(|p| classify(p) == Class::Skin)
        .count();
    skin as f32 > 0.002 * (frame.width() * frame.height()) as f32
}

/// Tells which card a rectified card image shows.
pub trait Identify {
    /// `card` is [`RECT_W`]×[`RECT_H`], portrait, either way up. The token
    /// (`Token::Down` for a back) and a confidence in 0–1; `None` when the
    /// card cannot be read with confidence.
    fn identify(&self, card: &RgbImage) -> (Option<Token>, f32);
}

/// The bundled printable deck read by its corner code (and its back by its
/// pattern): needs no learned templates.
pub struct CornerCode;

impl Identify for CornerCode {
    fn identify(&self, card: &RgbImage) -> (Option<Token>, f32) {
        if let Some(card) = read_corner_code(card) {
            (Some(Token::Up(card)), 0.95)
        } else if is_back(card) {
            (Some(Token::Down), 0.9)
        } else {
            (None, 0.5)
        }
    }
}

/// Finds the cards on the felt and reads each one by its corner code.
pub fn detect(frame: &RgbImage) -> Vec<Detected> {
    detect_with(frame, &CornerCode)
}

/// Finds the cards on the felt and reads each one with `id`.
pub fn detect_with(frame: &RgbImage, id: &dyn Identify) -> Vec<Detected> {
    let (w, h) = frame.dimensions();
    if w < 8 || h < 8 {
        return Vec::new();
    }
    let classes: Vec<Class> = frame.pixels().map(classify).collect();
    let mask = GrayImage::from_fn(w, h, |x, y| {
        Luma([u8::from(classes[(y * w + x) as usize] == Class::Card) * 255])
    });
    let skin_core = |x: i64, y: i64| {
        let skin = |x: i64, y: i64| {
            x >= 0
                && y >= 0
                && x < w as i64
                && y < h as i64
                && classes[(y as u32 * w + x as u32) as usize] == Class::Skin
        };
        // A lone skin-coloured pixel is noise on ink; a hand is a patch.
        skin(x, y) && skin(x - 1, y) && skin(x + 1, y) && skin(x, y - 1) && skin(x, y + 1)
    };
    let max_area = (w * h) as usize / 6;
    let mut out = Vec::new();
    // One pixel of erosion parts cards whose corners nearly touch.
    let (labels, blobs) = label(&erode(&mask, Norm::LInf, 1));
    let mut first = Vec::new();
    for (i, blob) in blobs.iter().enumerate() {
        if blob.len() < MIN_AREA || blob.len() > max_area {
            continue;
        }
        if let Some((d, shaped)) = examine(frame, &labels, i as u32 + 1, blob, &skin_core, 1.5, id) {
            first.push((i, d, shaped));
        }
    }
    // The typical card's area, from the card-shaped blobs.
    let mut areas: Vec<f32> = first
        .iter()
        .filter(|f| f.2)
        .map(|f| polygon_area(&f.1.corners))
        .collect();
    areas.sort_by(f32::total_cmp);
    let typical = areas.get(areas.len() / 2).copied();
    for (i, d, shaped) in first {
        let oversized = typical.is_some_and(|t| polygon_area(&d.corners) > 1.5 * t);
        if shaped && !oversized {
            out.push(d);
            continue;
        }
        let d = if oversized {
            Detected {
                token: None,
                confidence: 0.2,
                ..d
            }
        } else {
            d
        };
        // Not card-shaped: perhaps cards touching. Erode this blob harder
        // and take the parts if every part is a card.
        let single = GrayImage::from_fn(w, h, |x, y| {
            Luma([u8::from(labels.get_pixel(x, y).0[0] == i as u32 + 1) * 255])
        });
        let mut split = None;
        for k in 2..=4u8 {
            let (sub_labels, parts) = label(&erode(&single, Norm::LInf, k));
            let parts: Vec<_> = parts
                .iter()
                .enumerate()
                .filter(|(_, p)| p.len() >= MIN_AREA)
                .collect();
            if parts.len() < 2 {
                continue;
            }
            let found: Vec<_> = parts
                .iter()
                .filter_map(|(j, p)| {
                    examine(
                        frame,
                        &sub_labels,
                        *j as u32 + 1,
                        p,
                        &skin_core,
                        1.5 + f32::from(k),
                        id,
                    )
                })
                .collect();
            if found.len() == parts.len() && found.iter().all(|f| f.1) {
                split = Some(found.into_iter().map(|f| f.0).collect::<Vec<_>>());
                break;
            }
        }
        match split {
            Some(parts) => out.extend(parts),
            None => out.push(d),
        }
    }
    out
}

type Labels = image::ImageBuffer<Luma<u32>, Vec<u32>>;

/// Four-connected components of a mask, and each one's pixels.
fn label(mask: &GrayImage) -> (Labels, Vec<Vec<(u32, u32)>>) {
    let labels = connected_components(mask, Connectivity::Four, Luma([0u8]));
    let mut blobs: Vec<Vec<(u32, u32)>> = Vec::new();
    for (x, y, l) in labels.enumerate_pixels() {
        let l = l.0[0] as usize;
        if l == 0 {
            continue;
        }
        if blobs.len() < l {
            blobs.resize_with(l, Vec::new);
        }
        blobs[l - 1].push((x, y));
    }
    (labels, blobs)
}

/// Fits and reads one blob; also tells whether it is card-shaped.
fn examine(
    frame: &RgbImage,
    labels: &Labels,
    label: u32,
    blob: &[(u32, u32)],
    skin_at: &dyn Fn(i64, i64) -> bool,
    edge: f32,
    id: &dyn Identify,
) -> Option<(Detected, bool)> {
    let (w, h) = labels.dimensions();
    let inside = |x: i64, y: i64| {
        x >= 0
            && y >= 0
            && x < w as i64
            && y < h as i64
            && labels.get_pixel(x as u32, y as u32).0[0] == label
    };
    // Boundary pixels, and whether the blob touches the frame edge.
    let mut boundary = Vec::new();
    let mut at_edge = false;
    for &(x, y) in blob {
        let (xi, yi) = (x as i64, y as i64);
        if x == 0 || y == 0 || x == w - 1 || y == h - 1 {
            at_edge = true;
        }
        if !(inside(xi - 1, yi) && inside(xi + 1, yi) && inside(xi, yi - 1) && inside(xi, yi + 1)) {
            boundary.push((x as f32, y as f32));
        }
    }
    let pts: Vec<Point<f32>> = boundary.iter().map(|&(x, y)| Point::new(x, y)).collect();
    let hull = convex_hull(pts);
    if hull.len() < 3 {
        return None;
    }
    let rect = min_area_rect(&hull).map(|p| (p.x, p.y));
    let rough_area = polygon_area(&rect);
    if rough_area < 1.0 {
        return None;
    }
    let corners = refine(&rect, &boundary, edge).unwrap_or(rect);
    let corners = portrait(corners);
    let area = polygon_area(&corners);
    let top = dist(corners[0], corners[1]);
    let bottom = dist(corners[3], corners[2]);
    let left = dist(corners[0], corners[3]);
    let right = dist(corners[1], corners[2]);
    let aspect = (left + right) / (top + bottom).max(1e-3);
    // The blob should fill its quadrilateral (boundary pixels sit half a
    // pixel inside the edge, so allow for the rim).
    let rim = (top + bottom + left + right) * edge;
    let fill = (blob.len() as f32 + rim) / area.max(1.0);
    let shaped = (1.15..1.75).contains(&aspect) && (0.9..1.12).contains(&fill) && !at_edge;
    if std::env::var("DBG").is_ok() {
        let c = corners.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0 / 4.0, a.1 + p.1 / 4.0));
        eprintln!("  blob n={} edge={edge} c=({:.0},{:.0}) aspect={aspect:.2} fill={fill:.2} at_edge={at_edge} shaped={shaped} short={:.0}", blob.len(), c.0, c.1, (top+bottom)/2.0);
    }
    let centre =
        intersect((corners[0], corners[2]), (corners[1], corners[3])).unwrap_or_else(|| {
            let c = corners
                .iter()
                .fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
            (c.0 / 4.0, c.1 / 4.0)
        });
    // Skin on or right around the card.
    let grow = 0.12 * (top + bottom) / 2.0 + 2.0;
    let grown = expand(&corners, centre, grow);
    let (mut skin, mut total) = (0usize, 0usize);
    let xs = grown.map(|p| p.0);
    let ys = grown.map(|p| p.1);
    let x0 = xs.iter().cloned().fold(f32::INFINITY, f32::min).floor() as i64;
    let x1 = xs.iter().cloned().fold(f32::NEG_INFINITY, f32::max).ceil() as i64;
    let y0 = ys.iter().cloned().fold(f32::INFINITY, f32::min).floor() as i64;
    let y1 = ys.iter().cloned().fold(f32::NEG_INFINITY, f32::max).ceil() as i64;
    for y in y0..=y1 {
        for x in x0..=x1 {
            if point_in_quad(&grown, (x as f32, y as f32)) {
                total += 1;
                if skin_at(x, y) {
                    skin += 1;
                }
            }
        }
    }
    let skin_frac = skin as f32 / total.max(1) as f32;
    if !shaped || skin > 0 {
        let skin_frac = skin_frac.max(0.01 * f32::from(u8::from(skin > 0)));
        // Seen, but a hand is on it or it is no clean card: no token.
        let confidence = if shaped {
            (0.5 - skin_frac * 5.0).clamp(0.05, 0.5)
        } else {
            0.2
        };
        if !shaped && (!(1.0..2.2).contains(&aspect) || !(0.75..1.2).contains(&fill)) {
            return None;
        }
        let d = Detected {
            corners,
            centre,
            token: None,
            confidence,
        };
        return Some((d, shaped));
    }
    let (token, confidence) = id.identify(&rectify(frame, &corners));
    let d = Detected {
        corners,
        centre,
        token,
        confidence,
    };
    Some((d, true))
}

fn dist(a: (f32, f32), b: (f32, f32)) -> f32 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

fn polygon_area(p: &[(f32, f32); 4]) -> f32 {
    let mut s = 0.0;
    for i in 0..4 {
        let (a, b) = (p[i], p[(i + 1) % 4]);
        s += a.0 * b.1 - b.0 * a.1;
    }
    (s / 2.0).abs()
}

fn point_in_quad(q: &[(f32, f32); 4], p: (f32, f32)) -> bool {
    let mut sign = 0.0f32;
    for i in 0..4 {
        let (a, b) = (q[i], q[(i + 1) % 4]);
        let c = (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0);
        if c != 0.0 {
            if sign != 0.0 && c.signum() != sign {
                return false;
            }
            sign = c.signum();
        }
    }
    true
}

fn expand(q: &[(f32, f32); 4], c: (f32, f32), by: f32) -> [(f32, f32); 4] {
    q.map(|p| {
        let d = dist(p, c).max(1e-3);
        (p.0 + (p.0 - c.0) / d * by, p.1 + (p.1 - c.1) / d * by)
    })
}

/// Intersection of the lines through `a` and `b`.
fn intersect(a: ((f32, f32), (f32, f32)), b: ((f32, f32), (f32, f32))) -> Option<(f32, f32)> {
    let (p, r) = (a.0, (a.1.0 - a.0.0, a.1.1 - a.0.1));
    let (q, s) = (b.0, (b.1.0 - b.0.0, b.1.1 - b.0.1));
    let den = r.0 * s.1 - r.1 * s.0;
    if den.abs() < 1e-6 {
        return None;
    }
    let t = ((q.0 - p.0) * s.1 - (q.1 - p.1) * s.0) / den;
    Some((p.0 + t * r.0, p.1 + t * r.1))
}

/// A line as a point and a unit direction.
type Line = ((f32, f32), (f32, f32));

/// Total least squares line through points.
fn fit_line(pts: &[(f32, f32)]) -> Option<Line> {
    if pts.len() < 3 {
        return None;
    }
    let n = pts.len() as f32;
    let (mx, my) = pts
        .iter()
        .fold((0.0, 0.0), |a, p| (a.0 + p.0 / n, a.1 + p.1 / n));
    let (mut sxx, mut sxy, mut syy) = (0.0, 0.0, 0.0);
    for p in pts {
        let (dx, dy) = (p.0 - mx, p.1 - my);
        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
    }
    let angle = 0.5 * (2.0 * sxy).atan2(sxx - syy);
    Some(((mx, my), (angle.cos(), angle.sin())))
}

/// Refines the rough rectangle's sides against the blob's boundary and
/// returns the corners where the fitted sides meet.
fn refine(rect: &[(f32, f32); 4], boundary: &[(f32, f32)], edge: f32) -> Option<[(f32, f32); 4]> {
    let centre = rect
        .iter()
        .fold((0.0, 0.0), |a, p| (a.0 + p.0 / 4.0, a.1 + p.1 / 4.0));
    let mut lines: Vec<Line> = Vec::with_capacity(4);
    for i in 0..4 {
        let (a, b) = (rect[i], rect[(i + 1) % 4]);
        let len = dist(a, b).max(1e-3);
        let d = ((b.0 - a.0) / len, (b.1 - a.1) / len);
        let normal = (-d.1, d.0);
        let tol = (0.08 * len).max(2.5);
        let mut near: Vec<(f32, f32)> = boundary
            .iter()
            .filter(|p| {
                let (vx, vy) = (p.0 - a.0, p.1 - a.1);
                let along = vx * d.0 + vy * d.1;
                let off = (vx * normal.0 + vy * normal.1).abs();
                along > 0.15 * len && along < 0.85 * len && off < tol
            })
            .cloned()
            .collect();
        let mut line = fit_line(&near)?;
        for _ in 0..2 {
            let n = (-line.1.1, line.1.0);
            near.retain(|p| ((p.0 - line.0.0) * n.0 + (p.1 - line.0.1) * n.1).abs() < 1.5);
            line = fit_line(&near)?;
        }
        // Boundary pixel centres sit half a pixel inside the edge, and the
        // mask was eroded by one.
        let n = (-line.1.1, line.1.0);
        let side = (centre.0 - line.0.0) * n.0 + (centre.1 - line.0.1) * n.1;
        let out = if side > 0.0 { -edge } else { edge };
        lines.push(((line.0.0 + n.0 * out, line.0.1 + n.1 * out), line.1));
    }
    let mut corners = [(0.0, 0.0); 4];
    for (i, c) in corners.iter_mut().enumerate() {
        let l0 = lines[(i + 3) % 4];
        let l1 = lines[i];
        let p = intersect(
            (l0.0, (l0.0.0 + l0.1.0, l0.0.1 + l0.1.1)),
            (l1.0, (l1.0.0 + l1.1.0, l1.0.1 + l1.1.1)),
        )?;
        // A refined corner far from the rough one means the fit went wrong.
        if dist(p, rect[i]) > 0.25 * dist(rect[0], rect[2]) {
            return None;
        }
        *c = p;
    }
    Some(corners)
}

/// Orders corners clockwise (in the frame) starting so that the first side
/// is a short one, with the first corner the upper-left of the two choices.
fn portrait(mut q: [(f32, f32); 4]) -> [(f32, f32); 4] {
    // Clockwise in image coordinates (y down): positive shoelace sum.
    let mut s = 0.0;
    for i in 0..4 {
        let (a, b) = (q[i], q[(i + 1) % 4]);
        s += a.0 * b.1 - b.0 * a.1;
    }
    if s < 0.0 {
        q.reverse();
    }
    let side = |q: &[(f32, f32); 4], i: usize| {
        dist(q[i], q[(i + 1) % 4]) + dist(q[(i + 2) % 4], q[(i + 3) % 4])
    };
    if side(&q, 0) > side(&q, 1) {
        q.rotate_left(1);
    }
    // Of the two portrait orders, start from the corner nearer the top left.
    if q[0].0 + q[0].1 + q[1].0 + q[1].1 > q[2].0 + q[2].1 + q[3].0 + q[3].1 {
        q.rotate_left(2);
    }
    q
}

/// Homography taking `src[i]` to `dst[i]` (row-major 3×3).
fn homography(src: &[(f32, f32); 4], dst: &[(f32, f32); 4]) -> Option<[f64; 9]> {
    let mut a = [[0.0f64; 9]; 8];
    for i in 0..4 {
        let (x, y) = (src[i].0 as f64, src[i].1 as f64);
        let (u, v) = (dst[i].0 as f64, dst[i].1 as f64);
        a[2 * i] = [x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y, u];
        a[2 * i + 1] = [0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y, v];
    }
    // Gaussian elimination with partial pivoting.
    for col in 0..8 {
        let piv = (col..8).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[piv][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, piv);
        let pivot_row = a[col];
        for (row, r) in a.iter_mut().enumerate() {
            if row != col {
                let f = r[col] / pivot_row[col];
                for (x, p) in r.iter_mut().zip(pivot_row).skip(col) {
                    *x -= f * p;
                }
            }
        }
    }
    let mut h = [0.0; 9];
    for i in 0..8 {
        h[i] = a[i][8] / a[i][i];
    }
    h[8] = 1.0;
    Some(h)
}

/// The card under `corners` rectified to [`RECT_W`]×[`RECT_H`], bilinear.
pub fn rectify(frame: &RgbImage, corners: &[(f32, f32); 4]) -> RgbImage {
    let (rw, rh) = (RECT_W as f32, RECT_H as f32);
    let dst = [(0.0, 0.0), (rw, 0.0), (rw, rh), (0.0, rh)];
    // Corners are outer edges; output pixel centres are at +0.5.
    let Some(m) = homography(&dst, corners) else {
        return RgbImage::new(RECT_W, RECT_H);
    };
    let (fw, fh) = (frame.width() as f32, frame.height() as f32);
    RgbImage::from_fn(RECT_W, RECT_H, |x, y| {
        let (u, v) = (x as f64 + 0.5, y as f64 + 0.5);
        let wq = m[6] * u + m[7] * v + m[8];
        let sx = ((m[0] * u + m[1] * v + m[2]) / wq) as f32;
        let sy = ((m[3] * u + m[4] * v + m[5]) / wq) as f32;
        // Frame pixel (x, y) has its centre at (x, y) in corner coordinates
        // shifted by half a pixel.
        let (sx, sy) = (sx - 0.5, sy - 0.5);
        if sx < 0.0 || sy < 0.0 || sx > fw - 1.0 || sy > fh - 1.0 {
            return Rgb([0, 0, 0]);
        }
        let (x0, y0) = (sx.floor() as u32, sy.floor() as u32);
        let (x1, y1) = (
            (x0 + 1).min(frame.width() - 1),
            (y0 + 1).min(frame.height() - 1),
        );
        let (fx, fy) = (sx - x0 as f32, sy - y0 as f32);
        let p = |x, y| frame.get_pixel(x, y).0.map(f32::from);
        let (a, b, c, d) = (p(x0, y0), p(x1, y0), p(x0, y1), p(x1, y1));
        let mut o = [0u8; 3];
        for k in 0..3 {
            let top = a[k] + (b[k] - a[k]) * fx;
            let bot = c[k] + (d[k] - c[k]) * fx;
            o[k] = (top + (bot - top) * fy).round().clamp(0.0, 255.0) as u8;
        }
        Rgb(o)
    })
}

/// The back: navy over most of the card (the corners included), and a white
/// lattice in the middle.
fn is_back(card: &RgbImage) -> bool {
    let (w, h) = (card.width() as f32, card.height() as f32);
    let navy = |p: &Rgb<u8>| {
        let [r, g, b] = p.0.map(f32::from);
        b > r + 15.0 && b > g + 10.0 && (b - r) / (r + g + b + 1.0) > 0.2
    };
    let luma =
        |p: &Rgb<u8>| 0.299 * f32::from(p[0]) + 0.587 * f32::from(p[1]) + 0.114 * f32::from(p[2]);
    let (mut n_navy, mut n_all) = (0usize, 0usize);
    let (mut corner_navy, mut corner_all, mut corner_luma) = (0usize, 0usize, 0.0f32);
    let (mut n_mid, mut mid_luma) = (0usize, 0.0f32);
    for (x, y, p) in card.enumerate_pixels() {
        let (u, v) = ((x as f32 + 0.5) / w, (y as f32 + 0.5) / h);
        if !(0.08..0.92).contains(&u) || !(0.06..0.94).contains(&v) {
            continue;
        }
        n_all += 1;
        let is_navy = navy(p);
        n_navy += usize::from(is_navy);
        if !(0.3..=0.7).contains(&u) && !(0.2..=0.8).contains(&v) {
            corner_all += 1;
            corner_navy += usize::from(is_navy);
            corner_luma += luma(p);
        }
        if ((u - 0.5) / 0.3).powi(2) + ((v - 0.5) / 0.25).powi(2) < 1.0 {
            n_mid += 1;
            mid_luma += luma(p);
        }
    }
    let f = |a: usize, b: usize| a as f32 / b.max(1) as f32;
    let corner_luma = corner_luma / corner_all.max(1) as f32;
    let mid_luma = mid_luma / n_mid.max(1) as f32;
    f(n_navy, n_all) > 0.4 && f(corner_navy, corner_all) > 0.7 && mid_luma > 1.1 * corner_luma
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deck::print::{back, face};
    use crate::table::{Card, Cell, Table};
    use crate::vision::scene::{HandParams, SceneParams, felt, render};
    use image::imageops::FilterType;
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};

    /// Card images shrunk once to about twice their on-screen size.
    fn card_image(c: Option<Card>) -> RgbImage {
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

    fn cloth() -> &'static RgbImage {
        static F: OnceLock<RgbImage> = OnceLock::new();
        F.get_or_init(|| felt(128, 3))
    }

    fn table(text: &str) -> Table {
        Table::parse_grid(text, Cell::new(0, 0)).unwrap()
    }

    const TABLES: [&str; 3] = [
        "rK uQ ## wB\nbP ## yN rR\n",
        "wK bQ rB\n## uN ##\nyP wR bK\n",
        "uK ## rQ bN wP\n## yB ## uR rP\n",
    ];

    fn base() -> SceneParams {
        SceneParams {
            width: 640,
            height: 360,
            pitch_px: 48.0,
            ..SceneParams::clean()
        }
    }

    #[derive(Default)]
    struct Tally {
        cards: usize,
        identified: usize,
        wrong: usize,
        missed: usize,
    }

    /// Runs detection on one scene and matches detections to the truth by
    /// centre.
    fn run(t: &Table, p: &SceneParams, tally: &mut Tally, strict: bool, covered_only: bool) {
        let s = render(t, p, &card_image, cloth());
        if std::env::var("DUMP").is_ok() { s.image.save(format!("/tmp/scene_{}.png", p.seed)).unwrap_or(()); }
        let found = detect(&s.image);
        let (cw, _) = p.card_size();
        for ct in &s.truth {
            let in_frame = ct.corners_px.iter().all(|c| {
                (0.0..p.width as f32).contains(&c.0) && (0.0..p.height as f32).contains(&c.1)
            });
            if !in_frame || (covered_only && ct.visible >= 1.0) {
                continue;
            }
            tally.cards += 1;
            let near: Vec<&Detected> = found
                .iter()
                .filter(|d| dist(d.centre, ct.centre_px) < 0.4 * cw)
                .collect();
            if strict {
                assert_eq!(near.len(), 1, "{:?} detected {} times", ct.cell, near.len());
                let d = near[0];
                assert!(
                    dist(d.centre, ct.centre_px) < 2.0,
                    "{:?}: centre {:?} vs {:?}",
                    ct.cell,
                    d.centre,
                    ct.centre_px
                );
                assert_eq!(d.token, Some(ct.token), "{:?}", ct.cell);
            }
            let Some(d) = near.first() else {
                eprintln!("MISSED {:?} seed {} at ({:.0},{:.0}) turns {} angle {:.0}", ct.cell, p.seed, ct.centre_px.0, ct.centre_px.1, ct.turns, ct.angle_deg);
                tally.missed += 1;
                continue;
            };
            match d.token {
                Some(tok) if tok == ct.token => tally.identified += 1,
                Some(tok) => {
                    tally.wrong += 1;
                    eprintln!(
                        "WRONG {:?}: {:?} read as {:?} (seed {})",
                        ct.cell, ct.token, tok, p.seed
                    );
                }
                None => {}
            }
        }
    }

    fn report(name: &str, t: &Tally) {
        println!(
            "{name}: identified {}/{} ({:.0}%), missed {}, confident-wrong {}",
            t.identified,
            t.cards,
            100.0 * t.identified as f32 / t.cards.max(1) as f32,
            t.missed,
            t.wrong
        );
    }

    #[test]
    fn clean_scenes_find_and_read_every_card() {
        let mut tally = Tally::default();
        for (i, text) in TABLES.iter().enumerate() {
            let mut p = base();
            p.seed = i as u64;
            run(&table(text), &p, &mut tally, true, false);
        }
        report("clean", &tally);
        assert_eq!(tally.identified, tally.cards);
    }

    #[test]
    fn turned_and_tilted_scenes_are_never_read_wrong() {
        let mut tally = Tally::default();
        for seed in 0..6u64 {
            let text = TABLES[seed as usize % TABLES.len()];
            let mut p = base();
            p.seed = seed;
            p.layout_rotation_deg = (seed as f32 * 37.0) % 360.0;
            p.per_card_skew_deg = 10.0;
            p.quarter_turns = true;
            p.gap_jitter_px = 2.0;
            p.tilt_deg = 20.0 * (seed % 3) as f32 / 2.0;
            run(&table(text), &p, &mut tally, false, false);
        }
        report("rotated/skewed/turned/tilt<=20", &tally);
        assert_eq!(tally.wrong, 0);
        assert!(tally.identified * 2 > tally.cards, "too few identified");
    }

    #[test]
    fn a_hand_over_cards_is_never_read_wrong() {
        let mut tally = Tally::default();
        let mut covered = Tally::default();
        for seed in 0..4u64 {
            let text = TABLES[seed as usize % TABLES.len()];
            let mut p = base();
            p.seed = seed;
            p.hand = Some(HandParams {
                reach: 0.5,
                from_deg: Some(seed as f32 * 90.0),
                size: 1.0,
            });
            let s = render(&table(text), &p, &card_image, cloth());
            assert!(hand_present(&s.image));
            run(&table(text), &p, &mut tally, false, false);
            run(&table(text), &p, &mut covered, false, true);
        }
        report("hand (all cards)", &tally);
        report("hand (covered cards)", &covered);
        assert_eq!(covered.wrong, 0);
        assert_eq!(tally.wrong, 0);
        let mut p = base();
        p.seed = 9;
        let s = render(&table(TABLES[0]), &p, &card_image, cloth());
        assert!(!hand_present(&s.image));
    }

    #[test]
    fn light_blur_noise_and_jpeg_are_never_read_wrong() {
        let mut tally = Tally::default();
        for seed in 0..4u64 {
            let text = TABLES[seed as usize % TABLES.len()];
            let mut p = base();
            p.seed = seed;
            p.layout_rotation_deg = seed as f32 * 20.0;
            p.per_card_skew_deg = 5.0;
            p.tilt_deg = 10.0;
            p.light_gradient = 0.3;
            p.shadow = 0.2;
            p.blur_sigma = 0.8;
            p.noise_sigma = 3.0;
            p.jpeg_quality = Some(85);
            run(&table(text), &p, &mut tally, false, false);
        }
        report("light/blur/noise/jpeg", &tally);
        assert_eq!(tally.wrong, 0);
    }

    /// `cargo test --release --lib vision::cards::tests::timing -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn timing() {
        for (w, h, pitch) in [(640, 360, 48.0), (1280, 720, 96.0)] {
            let mut p = base();
            (p.width, p.height, p.pitch_px) = (w, h, pitch);
            p.layout_rotation_deg = 20.0;
            p.tilt_deg = 10.0;
            let s = render(&table(TABLES[1]), &p, &card_image, cloth());
            let start = std::time::Instant::now();
            let n = 10;
            let mut found = 0;
            for _ in 0..n {
                found = detect(&s.image).len();
            }
            println!(
                "{w}x{h}: {:?} per frame, {found} cards",
                start.elapsed() / n
            );
        }
    }
}
