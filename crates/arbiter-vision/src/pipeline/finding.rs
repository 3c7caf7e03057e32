//! Finding: card outlines as quadrilaterals, from the image's structure
//! alone.
//!
//! On the decimated lightness, each pixel is compared with the mean of a
//! window about it: clearly lighter (a face's paper, a light back) or
//! clearly darker (a dark back) than its surroundings. The connected
//! regions of each, labelled run by run, are the candidates. A region is a
//! card when its convex hull fills a rectangle of a card's proportions;
//! a large card's flat middle matches its surroundings and drops out, but
//! its rim is a ring whose hull is still the card. Each candidate is then
//! refined at full resolution: along each side, the strongest step in
//! lightness across the side is sought, a line fitted through those
//! points, and the corners put where the lines meet. How much of its
//! outline shows a step is the candidate's edge support.
//!
//! No hue is assumed anywhere: the thresholds are in lightness relative to
//! the surroundings, and how large a step counts is the table model's
//! (the noise it measured on the table).

use imageproc::geometry::{arc_length, contour_area, convex_hull, min_area_rect};
use imageproc::point::Point;

use super::geometry::{Line, Pt, Quad, add, dot, len, scale, sub};
use super::plane::{Integral, Plane};
use super::regions::label;
use super::table_model::TableModel;

/// A card outline found in the frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// Portrait order, frame pixels, on the card's outer edge.
    pub quad: Quad,
    /// Share of its outline, 0–1, that shows a clear step in lightness.
    pub support: f32,
    /// Lighter than its surroundings (a face, a light back) or darker.
    pub light: bool,
}

/// What finding hands on: the cards, and the arms: regions too large and
/// too shapeless to be cards that reach in from one place of the frame's
/// edge (told by shape alone, never by colour).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Finding {
    pub cards: Vec<Found>,
    pub intruders: Vec<Intruder>,
}

/// A large shapeless region reaching in from the frame's edge.
#[derive(Clone, Debug, PartialEq)]
pub struct Intruder {
    /// Bounding box, frame pixels: `x0, y0, x1, y1`.
    pub bbox: (f32, f32, f32, f32),
}

/// Tolerances of a card's shape, for candidates and refined outlines.
const MIN_ASPECT: f32 = 1.18;
const MAX_ASPECT: f32 = 1.72;
/// Least share of its bounding rectangle a card's hull fills (rounded
/// corners and a soft edge cost a few percent).
const MIN_HULL_FILL: f32 = 0.86;
/// Smallest card width on the decimated frame, pixels.
const MIN_WIDTH_DEC: f32 = 8.0;
/// The narrow window's half-size (decimated pixels) that the thin shadow
/// between touching cards is darker than.
const SEAM_RADIUS: usize = 2;

/// The three masks finding labels.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    Light,
    Dark,
    Seams,
}

/// How far a side of an outline from the decimated frame may be off, over
/// the card's width.
const ROUGH_REACH: f32 = 0.12;
/// Least edge support of a refined outline.
const MIN_SUPPORT: f32 = 0.6;

/// Finds cards in a frame: `full` is its lightness, `dec` the same
/// decimated by `k`.
pub fn find(full: &Plane, dec: &Plane, k: usize, model: &TableModel) -> Finding {
    let ii = Integral::of(dec);
    let r = model.window_radius;
    let c = model.contrast;
    let (w, h) = (dec.width, dec.height);
    let mut out = Finding::default();
    let mut candidates: Vec<(Quad, bool)> = Vec::new();
    let mut mask = vec![0u8; w * h];
    // Each pixel against the wide window's mean, and (for the third mask)
    // the narrow one's, computed once.
    let mut wide = vec![0f32; w * h];
    let mut narrow = vec![0f32; w * h];
    for y in 0..h {
        for x in 0..w {
            wide[y * w + x] = ii.mean_about(x, y, r);
            narrow[y * w + x] = ii.mean_about(x, y, SEAM_RADIUS);
        }
    }
    // Three masks: lighter or darker than a wide window (cards apart on
    // the cloth), and lighter than the wide window but not darker than a
    // narrow one (the paper of cards that touch, cut apart by the thin
    // shadow between them).
    for pass in [Pass::Light, Pass::Dark, Pass::Seams] {
        for (i, m) in mask.iter_mut().enumerate() {
            let v = f32::from(dec.data[i]);
            let set = match pass {
                Pass::Light => v > wide[i] + c,
                Pass::Dark => v < wide[i] - c,
                Pass::Seams => v > wide[i] + c && v > narrow[i] - c * 0.5,
            };
            *m = u8::from(set);
        }
        let light = pass != Pass::Dark;
        let min_side = MIN_WIDTH_DEC as usize;
        let (regions, labels) = label(&mask, w, h, |area, (bw, bh)| {
            area >= 24 && bw.max(bh) >= min_side && bw.min(bh) >= min_side / 2
        });
        let contacts = edge_contacts(&labels, w, h, regions.len());
        for (gi, g) in regions.iter().enumerate() {
            if g.boundary.is_empty() {
                continue;
            }
            match card_shape(&g.boundary) {
                Some(q) => candidates.push((q, light)),
                None => {
                    let (bw, bh) = g.bbox_size();
                    let (runs, reach) = contacts[gi];
                    // An arm comes in at one place on the frame's edge and
                    // is solid; a cloth's pattern reaches the edge all
                    // round, or across in thin stripes.
                    let arm_like = (1..=2).contains(&runs)
                        && (reach as f32) < 0.2 * (w + h) as f32
                        && g.area as f32 > 0.3 * (bw * bh) as f32;
                    if arm_like && (bw * bh) as f32 > (w * h) as f32 * 0.01 {
                        let kf = k as f32;
                        out.intruders.push(Intruder {
                            bbox: (
                                g.bbox.0 as f32 * kf,
                                g.bbox.1 as f32 * kf,
                                (g.bbox.2 + 1) as f32 * kf,
                                (g.bbox.3 + 1) as f32 * kf,
                            ),
                        });
                    }
                }
            }
        }
    }
    // To full resolution, refined, the strongest of overlapping ones kept.
    let kf = k as f32;
    let to_full = |p: Pt| ((p.0 + 0.5) * kf - 0.5, (p.1 + 0.5) * kf - 0.5);
    let refined: Vec<Found> = candidates
        .into_iter()
        .filter_map(|(q, light)| {
            let q = Quad(q.0.map(to_full));
            let (quad, support) = refine(full, &q, model.step, Some(light), ROUGH_REACH)?;
            (support >= MIN_SUPPORT).then_some(Found {
                quad,
                support,
                light,
            })
        })
        .collect();
    // A card's print may hold a smaller rectangle (a frame line, a back's
    // panel): the card is the outer one. But an outline holding two or
    // more others apart is a block of cards (a board's outline is
    // card-shaped too), and they are the cards.
    let holds = |o: &Found, refined: &[Found]| {
        let inner: Vec<&Found> = refined
            .iter()
            .filter(|f| f.quad.area() < 0.7 * o.quad.area() && o.quad.contains(f.quad.centre()))
            .collect();
        inner.iter().enumerate().any(|(i, a)| {
            inner[i + 1..]
                .iter()
                .any(|b| !a.quad.contains(b.quad.centre()) && !b.quad.contains(a.quad.centre()))
        })
    };
    let blocks: Vec<bool> = refined.iter().map(|o| holds(o, &refined)).collect();
    let mut refined: Vec<Found> = refined
        .into_iter()
        .zip(blocks)
        .filter_map(|(f, block)| (!block).then_some(f))
        .collect();
    refined.sort_by(|a, b| b.quad.area().total_cmp(&a.quad.area()));
    for f in refined {
        let inside = out
            .cards
            .iter()
            .any(|o| o.quad.contains(f.quad.centre()) || f.quad.contains(o.quad.centre()));
        if !inside {
            out.cards.push(f);
        }
    }
    out
}

/// For each region, how many separate stretches of the frame's edge it
/// touches, and how many edge pixels in all.
fn edge_contacts(labels: &[u32], w: usize, h: usize, n: usize) -> Vec<(usize, usize)> {
    let mut out = vec![(0usize, 0usize); n];
    // The frame's edge clockwise from the top-left corner.
    let ring = (0..w)
        .map(|x| (x, 0))
        .chain((1..h).map(|y| (w - 1, y)))
        .chain((0..w - 1).rev().map(|x| (x, h - 1)))
        .chain((1..h - 1).rev().map(|y| (0, y)));
    let mut prev = u32::MAX;
    let mut first = u32::MAX;
    for (i, (x, y)) in ring.enumerate() {
        let l = labels[y * w + x];
        if i == 0 {
            first = l;
        }
        if l != u32::MAX {
            out[l as usize].1 += 1;
            if l != prev {
                out[l as usize].0 += 1;
            }
        }
        prev = l;
    }
    // A stretch across the starting corner was counted twice.
    if first != u32::MAX && prev == first && out[first as usize].0 > 1 {
        out[first as usize].0 -= 1;
    }
    out
}

/// The card-shaped rectangle a region's outline fills, if it does
/// (decimated pixels).
fn card_shape(boundary: &[(u16, u16)]) -> Option<Quad> {
    let pts: Vec<Point<i32>> = boundary
        .iter()
        .map(|&(x, y)| Point::new(i32::from(x), i32::from(y)))
        .collect();
    let hull = convex_hull(pts);
    if hull.len() < 4 {
        return None;
    }
    let rect = min_area_rect(&hull);
    // Pixel centres: the rectangle through them is a pixel short of the
    // region's extent on each axis.
    let q = Quad(rect.map(|p| (p.x as f32, p.y as f32)));
    let q = grow_by(&q, 0.5);
    let (a, b) = q.side_pairs();
    let (short, long) = (a.min(b), a.max(b));
    if short < MIN_WIDTH_DEC {
        return None;
    }
    let aspect = long / short;
    if !(MIN_ASPECT..=MAX_ASPECT).contains(&aspect) {
        return None;
    }
    // Pixel centres again: the hull through them is half a pixel short of
    // the region all round.
    let hull_area = (contour_area(&hull) + 0.5 * arc_length(&hull, true)) as f32;
    if hull_area < MIN_HULL_FILL * q.area() {
        return None;
    }
    Some(q.portrait())
}

/// The quad moved outward by `d` along each side's normal.
fn grow_by(q: &Quad, d: f32) -> Quad {
    let m = q.centre();
    let k = |p: Pt| {
        let v = sub(p, m);
        let l = len(v).max(1e-3);
        add(p, scale(v, d * std::f32::consts::SQRT_2 / l))
    };
    Quad(q.0.map(k))
}

/// Refines a rough outline at full resolution: each side moved onto the
/// strongest step in lightness across it: for a card `light`er than what
/// surrounds it, a step down going outward, for a darker one a step up
/// (so a neighbour's edge close by, which steps the other way, is not
/// taken for the card's own); either, when not known. The refined outline
/// and its edge support; `None` when it is no longer card-shaped.
/// `reach` is how far, over the card's width, each side is sought.
pub fn refine(
    full: &Plane,
    q: &Quad,
    min_step: f32,
    light: Option<bool>,
    reach: f32,
) -> Option<(Quad, f32)> {
    let width = q.width();
    let reach = (reach * width).max(3.0);
    let c = q.centre();
    let mut lines: Vec<Line> = Vec::with_capacity(4);
    let mut hits = 0usize;
    let mut tries = 0usize;
    for i in 0..4 {
        let (a, b) = (q.0[i], q.0[(i + 1) % 4]);
        let along = sub(b, a);
        let side = len(along);
        let t = scale(along, 1.0 / side.max(1e-3));
        let mut n = (-t.1, t.0);
        if dot(n, sub(a, c)) < 0.0 {
            n = scale(n, -1.0);
        }
        // Samples along the side, clear of the rounded corners.
        let samples = ((side / 3.0) as usize).clamp(6, 40);
        let mut pts: Vec<(Pt, f32)> = Vec::with_capacity(samples);
        for s in 0..samples {
            let f = 0.15 + 0.7 * (s as f32 + 0.5) / samples as f32;
            let base = add(a, scale(along, f));
            tries += 1;
            if let Some((off, step)) = strongest_step(full, base, n, reach, light)
                && step >= min_step
            {
                hits += 1;
                pts.push((add(base, scale(n, off)), step));
            }
        }
        if pts.len() < 3 {
            return None;
        }
        let line = Line::fit(trimmed(&pts))?;
        lines.push(line);
    }
    let mut corners = [(0.0, 0.0); 4];
    for i in 0..4 {
        corners[(i + 1) % 4] = lines[i].meet(&lines[(i + 1) % 4])?;
    }
    let quad = Quad(corners).portrait();
    let aspect = quad.aspect();
    if !(MIN_ASPECT..=MAX_ASPECT).contains(&aspect)
        || !quad.near_rectangular(0.35)
        || (quad.width() - width).abs() > 0.35 * width
    {
        return None;
    }
    Some((quad, hits as f32 / tries.max(1) as f32))
}

/// The points nearest the line through all of them: the outer fifth by
/// residual dropped (a neighbour's edge, a glyph near the side).
fn trimmed(pts: &[(Pt, f32)]) -> Vec<(Pt, f32)> {
    let Some(first) = Line::fit(pts.iter().map(|&(p, _)| (p, 1.0))) else {
        return pts.to_vec();
    };
    let mut by: Vec<(f32, (Pt, f32))> = pts
        .iter()
        .map(|&(p, w)| (first.distance(p).abs(), (p, w)))
        .collect();
    by.sort_by(|a, b| a.0.total_cmp(&b.0));
    let keep = (by.len() * 4).div_ceil(5).max(3);
    by.truncate(keep);
    by.into_iter().map(|(_, pw)| (pw.0, 1.0)).collect()
}

/// Along the outward normal `n` from `base`, within `reach`, the offset of
/// the largest change in lightness (central difference over two pixels)
/// of the sign a card `light`er or darker than its surroundings makes, and
/// that change's size.
fn strongest_step(
    full: &Plane,
    base: Pt,
    n: Pt,
    reach: f32,
    light: Option<bool>,
) -> Option<(f32, f32)> {
    let steps = (reach * 2.0).ceil() as i32;
    let mut profile: Vec<(f32, f32)> = Vec::with_capacity(2 * steps as usize + 1);
    for s in -steps..=steps {
        let off = s as f32 * 0.5;
        let p = add(base, scale(n, off));
        if p.0 < 1.0 || p.1 < 1.0 || p.0 > (full.width - 2) as f32 || p.1 > (full.height - 2) as f32
        {
            continue;
        }
        let d = full.sample(add(p, n)) - full.sample(sub(p, n));
        let g = match light {
            Some(true) => -d,
            Some(false) => d,
            None => d.abs(),
        };
        profile.push((off, g));
    }
    let strongest = profile.iter().map(|&(_, g)| g).fold(f32::MIN, f32::max);
    // The outermost of the strong steps: a card's print can step as
    // sharply as its edge (a black band, a corner code's modules), but
    // only the edge has nothing of the card outside it. Going outward
    // past the rough outline, a strong step the other way is a
    // neighbour's edge: the search stops there.
    let strong = 0.6 * strongest;
    let mut best: Option<(f32, f32)> = None;
    for (i, &(off, g)) in profile.iter().enumerate() {
        if light.is_some() && off > 0.0 && -g >= strong && best.is_some() {
            break;
        }
        let peak =
            profile.get(i + 1).is_none_or(|&(_, n)| g >= n) && (i == 0 || g >= profile[i - 1].1);
        if g >= strong && peak {
            best = Some((off, g));
        }
    }
    best
}
