//! A rough card outline put onto the card's edge at full resolution: each
//! side is the straight line nearby across which the frame steps most
//! consistently along its whole length.
//!
//! A finder that marks cards on a shrunk frame places each side within a
//! cell or two (several pixels of the full frame); a reader needs the
//! outline within a pixel or two. Along each side, the lightness step
//! across it is sampled at every offset and tilt within reach, and summed
//! along the side with its sign: a card's edge steps the same way all
//! along it and its sum is large, while wood grain, carpet and print step
//! both ways and cancel. Of the lines whose sum is near the largest, the
//! outermost that steps the same way is the card's edge (a card's print
//! can hold a straight line as strong as its edge, a frame line or a
//! band, but only the edge has nothing of the card outside it; a
//! neighbour's edge across a gap steps the other way).
//!
//! The steps are taken in the one shade, a mix of red, green and blue,
//! that most parts the card from what lies round it ([`contrast_plane`]):
//! a green back on brown wood differs from it in hue far more than in
//! lightness. The card may be turned from the rough outline by tens of
//! degrees: the fit is tried at the outline's own turn and at the way the
//! edges about it run most ([`turnings`]), and the one whose sides step
//! most kept.
//!
//! A helper of the learned finder's: imports only [`super::geometry`] and
//! [`super::plane`].

use image::RgbImage;

use super::geometry::{Line, Pt, Quad, add, dot, len, scale, sub};
use super::plane::{Plane, luma8};

/// Samples along a side lie between these fractions of it: clear of a
/// card's rounded corners.
const SPAN: (f32, f32) = (0.12, 0.88);
/// Offsets are tried every half pixel.
const STEP: f32 = 0.5;
/// Tilts are first tried every this many steps, then refined.
const COARSE: isize = 4;
/// Lines summing to at least this share of the strongest are the card's
/// edge's candidates.
const NEAR_BEST: f32 = 0.6;
/// The least mean step in lightness along a side's line (a central
/// difference over two pixels, of 255) for it to be an edge at all.
const MIN_MEAN_STEP: f32 = 8.0;
/// The least difference in mean lightness between a card's middle and
/// what surrounds it for the card's edge to be sought by its sign.
const MIN_CONTRAST: f32 = 12.0;
/// A fitted outline's long side over its short one: a card's, seen at a
/// slant.
const CARD_ASPECT: std::ops::RangeInclusive<f32> = 1.15..=1.75;
/// How far a fitted outline's corners may be from square, in radians.
const SQUARE_WITHIN: f32 = 0.2;
/// How far a fitted outline's sides are sought again, over its width.
const REFIT_REACH: f32 = 0.04;
/// How many of the strongest ways the edges about an outline run are
/// tried besides the outline's own, and the least share of the
/// strongest's weight a way needs (measured on the varied sets: each way
/// more fitted a point more of their cards and a tenth more phantoms).
const TURNINGS: usize = 1;
const PEAK_SHARE: f32 = 0.3;
/// The outline fitted may differ from the rough one in width by at most
/// this share.
const MAX_WIDTH_CHANGE: f32 = 0.35;

/// `rough` with each side moved onto the card's edge in `frame`, sought
/// `reach` pixels either side of it, in the shade that most parts the card
/// from its surroundings ([`contrast_plane`]), then fitted again from
/// there within [`REFIT_REACH`] of its width; `None` where a side has no
/// straight edge within reach or the four lines make no card-shaped
/// outline.
pub fn fit_card(frame: &RgbImage, rough: &Quad, reach: f32) -> Option<Quad> {
    let (plane, origin) = contrast_plane(frame, rough, reach);
    let back = scale(origin, -1.0);
    let once = fit_edges(&plane, &rough.translated(back), reach)?.translated(origin);
    // The first fit's shade and its ring outside the card were taken
    // about an outline up to a cell and a half off; about the fitted one
    // they are the card's own, and a short reach leaves fewer lines to
    // take for its edge (measured on the varied sets: fitted within 4%
    // of the width 27.2 → 29.4%; 29.7% sought within 0.08 of it, at twice
    // the cost). It is already turned the card's way: no other turn is
    // tried.
    let near = (REFIT_REACH * once.width()).max(2.0);
    let (plane, origin) = contrast_plane(frame, &once, near);
    let local = once.translated(scale(origin, -1.0));
    let again = fit_turned(
        &plane,
        &local,
        near,
        polarity(&plane, &local, near),
        local.width(),
    );
    Some(again.map_or(once, |(q, _)| q.translated(origin)))
}

/// The part of `frame` about `rough` that a fit within `reach` samples,
/// as one shade: each pixel's colour projected on the difference between
/// the card's middle and what lies just outside it (scaled so that its
/// weights' magnitudes sum to one: never a larger range than a channel's,
/// and a grey difference's step is its lightness step), or its lightness
/// where the two hardly differ. With the plane's origin in the frame.
fn contrast_plane(frame: &RgbImage, rough: &Quad, reach: f32) -> (Plane, Pt) {
    let (fw, fh) = (frame.width() as usize, frame.height() as usize);
    let margin = 2.0 * reach + 4.0;
    let xs = rough.0.iter().map(|p| p.0);
    let ys = rough.0.iter().map(|p| p.1);
    let clamp = |v: f32, hi: usize| (v.max(0.0) as usize).min(hi);
    let x0 = clamp(xs.clone().fold(f32::INFINITY, f32::min) - margin, fw);
    let x1 = clamp(xs.fold(f32::NEG_INFINITY, f32::max) + margin + 1.0, fw);
    let y0 = clamp(ys.clone().fold(f32::INFINITY, f32::min) - margin, fh);
    let y1 = clamp(ys.fold(f32::NEG_INFINITY, f32::max) + margin + 1.0, fh);
    let colour = |p: Pt| -> Option<[f32; 3]> {
        let (x, y) = (p.0.floor(), p.1.floor());
        (x >= 0.0 && y >= 0.0 && (x as usize) < fw && (y as usize) < fh)
            .then(|| frame.get_pixel(x as u32, y as u32).0.map(f32::from))
    };
    let mean = |pts: Vec<Pt>| -> Option<[f32; 3]> {
        let got: Vec<[f32; 3]> = pts.into_iter().filter_map(colour).collect();
        (!got.is_empty())
            .then(|| [0, 1, 2].map(|c| got.iter().map(|v| v[c]).sum::<f32>() / got.len() as f32))
    };
    let card = mean(middle_samples(rough));
    let out = mean(outside_samples(rough, reach));
    let weights = match (card, out) {
        (Some(card), Some(out)) => {
            let d = [0, 1, 2].map(|c| card[c] - out[c]);
            let l1: f32 = d.iter().map(|v| v.abs()).sum();
            (l1 >= MIN_CONTRAST).then(|| d.map(|v| v / l1))
        }
        _ => None,
    };
    let (w, h) = (x1.saturating_sub(x0).max(1), y1.saturating_sub(y0).max(1));
    let mut plane = Plane::new(w, h);
    let raw = frame.as_raw();
    for y in 0..y1 - y0 {
        let row = &raw[((y0 + y) * fw + x0) * 3..];
        for (x, px) in row.chunks_exact(3).take(x1 - x0).enumerate() {
            plane.data[y * w + x] = match weights {
                // Rounded half up by truncating (a cast saturates at 0
                // and 255).
                Some(k) => {
                    (128.0
                        + k[0] * (f32::from(px[0]) - 127.5)
                        + k[1] * (f32::from(px[1]) - 127.5)
                        + k[2] * (f32::from(px[2]) - 127.5)) as u8
                }
                None => luma8(px[0], px[1], px[2]),
            };
        }
    }
    (plane, (x0 as f32, y0 as f32))
}

/// `rough` with each side moved onto the card's edge, sought `reach`
/// pixels either side of it; `None` where a side has no straight edge
/// within reach or the four lines make no card-shaped outline.
pub fn fit_edges(full: &Plane, rough: &Quad, reach: f32) -> Option<Quad> {
    let polarity = polarity(full, rough, reach);
    let width = rough.width();
    // Each way the card may be turned is tried, and the outline whose
    // sides step most strongly is the card's: a dark card's faint edges
    // can be outnumbered by a bright neighbour's in the edges' directions
    // (measured on the varied sets: 25.3% of cards fitted within 4% by
    // the strongest direction alone, 27.2% by the better of it and the
    // outline's own way).
    turnings(full, rough, reach)
        .iter()
        .filter_map(|turned| fit_turned(full, turned, reach, polarity, width))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(q, _)| q)
}

/// Each side of `turned` on its edge within `reach` ([`side_line`]), as
/// is; with the sum of the sides' mean steps. `None` where a side has no
/// edge or the outline is not of a card's shape near `width`.
fn fit_turned(
    full: &Plane,
    turned: &Quad,
    reach: f32,
    polarity: Option<f32>,
    width: f32,
) -> Option<(Quad, f32)> {
    let c = turned.centre();
    let mut lines = Vec::with_capacity(4);
    let mut strength = 0.0;
    for i in 0..4 {
        let (a, b) = (turned.0[i], turned.0[(i + 1) % 4]);
        let (line, step) = side_line(full, (a, b), c, reach, polarity)?;
        lines.push(line);
        strength += step;
    }
    let mut corners = [(0.0, 0.0); 4];
    for i in 0..4 {
        corners[(i + 1) % 4] = lines[i].meet(&lines[(i + 1) % 4])?;
    }
    let fitted = Quad(corners).portrait();
    let card_shaped = CARD_ASPECT.contains(&fitted.aspect())
        && fitted.near_rectangular(SQUARE_WITHIN)
        && (fitted.width() - width).abs() <= MAX_WIDTH_CHANGE * width;
    card_shaped.then_some((fitted, strength))
}

/// The edge near side `a`–`b` of an outline about `centre`.
fn side_line(
    full: &Plane,
    (a, b): (Pt, Pt),
    centre: Pt,
    reach: f32,
    polarity: Option<f32>,
) -> Option<(Line, f32)> {
    let along = sub(b, a);
    let side = len(along);
    if side < 4.0 {
        return None;
    }
    let t = scale(along, 1.0 / side);
    let mut n = (-t.1, t.0);
    if dot(n, sub(a, centre)) < 0.0 {
        n = scale(n, -1.0);
    }
    let reach_steps = (reach / STEP).ceil() as isize;
    // The line may turn against the side (already turned the edges' way,
    // [`turned`]) by a few degrees: its ends' offsets may differ by up to
    // a seventh of its length (8°), within reach.
    let tilt_steps = ((0.07 * side).min(reach) / STEP).ceil() as isize;
    let offsets = (2 * (reach_steps + tilt_steps) + 1) as usize;
    let samples = ((side / 3.0) as usize).clamp(8, 40);
    let frac = |s: usize| SPAN.0 + (SPAN.1 - SPAN.0) * (s as f32 + 0.5) / samples as f32;
    // The step in lightness across the side, outward, at every sample and
    // offset (a central difference over two pixels).
    let mut steps = vec![0.0f32; samples * offsets];
    let lo = -(reach_steps + tilt_steps);
    for s in 0..samples {
        let base = add(a, scale(along, frac(s)));
        for k in 0..offsets {
            let p = add(base, scale(n, (lo + k as isize) as f32 * STEP));
            if !inside(full, p) {
                continue;
            }
            steps[s * offsets + k] = full.sample(add(p, n)) - full.sample(sub(p, n));
        }
    }
    // Each offset's best sum over the tilts, with its sign and tilt: the
    // tilts first every [`COARSE`] steps, then each offset's best of those
    // refined among its neighbours (a straight edge's sum falls away
    // smoothly as the line turns off it; a third of the work of trying
    // every tilt on a large card).
    // Where a line of each tilt crosses each sample's profile, for the
    // nearest offset, at the least offset.
    let tilts = (2 * tilt_steps + 1) as usize;
    let mut at = vec![0usize; tilts * samples];
    for (i, row) in at.chunks_mut(samples).enumerate() {
        let tilt = i as isize - tilt_steps;
        for (s, a) in row.iter_mut().enumerate() {
            let shift = (tilt as f32 * 2.0 * (frac(s) - 0.5)).round() as isize;
            *a = (s as isize * offsets as isize + shift - lo - reach_steps) as usize;
        }
    }
    let sum_at = |tilt: isize, j: usize| -> f32 {
        let row = (tilt + tilt_steps) as usize * samples;
        at[row..row + samples].iter().map(|&a| steps[a + j]).sum()
    };
    let mut best: Vec<(f32, isize)> = vec![(0.0, 0); (2 * reach_steps + 1) as usize];
    let coarse = (-tilt_steps..=tilt_steps).filter(|t| t % COARSE == 0 || t.abs() == tilt_steps);
    for tilt in coarse {
        for (j, slot) in best.iter_mut().enumerate() {
            let sum = sum_at(tilt, j);
            if sum.abs() > slot.0.abs() {
                *slot = (sum, tilt);
            }
        }
    }
    for (j, slot) in best.iter_mut().enumerate() {
        let around = slot.1;
        let near = (around - COARSE + 1).max(-tilt_steps)..=(around + COARSE - 1).min(tilt_steps);
        for tilt in near.filter(|&t| t != around) {
            let sum = sum_at(tilt, j);
            if sum.abs() > slot.0.abs() {
                *slot = (sum, tilt);
            }
        }
    }
    let strongest = best.iter().map(|b| b.0.abs()).fold(0.0f32, f32::max);
    if strongest < MIN_MEAN_STEP * samples as f32 {
        return None;
    }
    let j = match polarity {
        // The outermost line near the strongest of the card's own sign.
        Some(sign) => {
            let v = |j: usize| best[j].0 * sign;
            let own = (0..best.len()).map(v).fold(0.0f32, f32::max);
            if own < MIN_MEAN_STEP * samples as f32 {
                return None;
            }
            let peak = |j: usize| {
                (j == 0 || v(j) >= v(j - 1)) && (j + 1 == best.len() || v(j) >= v(j + 1))
            };
            (0..best.len())
                .rev()
                .find(|&j| v(j) >= NEAR_BEST * own && peak(j))?
        }
        // A card much like what surrounds it: the strongest line.
        None => (0..best.len()).max_by(|&x, &y| best[x].0.abs().total_cmp(&best[y].0.abs()))?,
    };
    let sign = best[j].0.signum();
    // Half a step either way, by the parabola through the peak.
    let v = |j: usize| best[j].0 * sign;
    let nudge = if j > 0 && j + 1 < best.len() {
        let (l, m, r) = (v(j - 1), v(j), v(j + 1));
        let curve = l - 2.0 * m + r;
        if curve < 0.0 {
            (0.5 * (l - r) / curve).clamp(-0.5, 0.5)
        } else {
            0.0
        }
    } else {
        0.0
    };
    let offset = (j as f32 - reach_steps as f32 + nudge) * STEP;
    let tilt = best[j].1 as f32 * STEP;
    // The line's offset at each end of the side.
    let from = add(a, scale(n, offset - tilt));
    let to = add(b, scale(n, offset + tilt));
    Some((Line::through(from, to), v(j) / samples as f32))
}

/// `rough` as it is, and turned about its centre to the ways the edges
/// near its outline run most ([`TURNINGS`]): a finder on a shrunk frame
/// outlines a small card's few cells by a rectangle that may be turned by
/// tens of degrees from the card, more than a side's fit turns it. The
/// edges' directions (a quarter turn folded onto itself) are gathered
/// over the band within `reach` of the outline, weighted by their
/// strength; the card's sides, and its print's lines, which run along
/// them, make a peak, the largest unless a brighter neighbour's edges
/// fall in the band, when the outline's own way is often the nearer.
fn turnings(full: &Plane, rough: &Quad, reach: f32) -> Vec<Quad> {
    const BINS: usize = 90;
    let outer = rough.grown(reach);
    let inner = rough.grown(-reach);
    let xs = outer.0.iter().map(|p| p.0);
    let ys = outer.0.iter().map(|p| p.1);
    let x0 = xs.clone().fold(f32::INFINITY, f32::min).max(1.0) as usize;
    let x1 = (xs.fold(0.0f32, f32::max) as usize).min(full.width.saturating_sub(2));
    let y0 = ys.clone().fold(f32::INFINITY, f32::min).max(1.0) as usize;
    let y1 = (ys.fold(0.0f32, f32::max) as usize).min(full.height.saturating_sub(2));
    let mut hist = [0.0f32; BINS];
    let px = |x: usize, y: usize| f32::from(full.data[y * full.width + x]);
    // Every other pixel each way where the band is wide: a card's sides
    // still give thousands of gradients, at a quarter of the cost.
    let stride = if reach >= 4.0 { 2 } else { 1 };
    for y in (y0..=y1).step_by(stride) {
        for x in (x0..=x1).step_by(stride) {
            let p = (x as f32 + 0.5, y as f32 + 0.5);
            if !outer.contains(p) || inner.contains(p) {
                continue;
            }
            let gx = px(x + 1, y - 1) + 2.0 * px(x + 1, y) + px(x + 1, y + 1)
                - px(x - 1, y - 1)
                - 2.0 * px(x - 1, y)
                - px(x - 1, y + 1);
            let gy = px(x - 1, y + 1) + 2.0 * px(x, y + 1) + px(x + 1, y + 1)
                - px(x - 1, y - 1)
                - 2.0 * px(x, y - 1)
                - px(x + 1, y - 1);
            // Steps fainter than a card edge's least (a Sobel response of
            // [`MIN_MEAN_STEP`] over its four rows' weights) are cloth and
            // noise: they would only blur the peak, and skipping them
            // spares most pixels the arctangent.
            let m2 = gx * gx + gy * gy;
            if m2 < (4.0 * MIN_MEAN_STEP).powi(2) {
                continue;
            }
            let m = m2.sqrt();
            let deg = gy.atan2(gx).to_degrees().rem_euclid(90.0);
            hist[(deg as usize).min(BINS - 1)] += m;
        }
    }
    // Smoothed over five degrees, round the fold.
    let smooth = |i: usize| (0..5).map(|k| hist[(i + BINS + k - 2) % BINS]).sum::<f32>();
    let smoothed: Vec<f32> = (0..BINS).map(smooth).collect();
    let top = smoothed.iter().copied().fold(0.0f32, f32::max);
    let mut peaks: Vec<usize> = (0..BINS)
        .filter(|&i| {
            let v = smoothed[i];
            v > 0.0
                && v >= PEAK_SHARE * top
                && v >= smoothed[(i + BINS - 1) % BINS]
                && v > smoothed[(i + 1) % BINS]
        })
        .collect();
    peaks.sort_by(|&a, &b| smoothed[b].total_cmp(&smoothed[a]));
    let mut out = vec![*rough];
    for peak in peaks.into_iter().take(TURNINGS) {
        let found = (peak as f32 + 0.5).to_radians();
        let (turned, turn) = turned_to(rough, found);
        // A turn of a degree or less is within a side fit's own.
        if turn.abs() > 1f32.to_radians() {
            out.push(turned);
        }
    }
    out
}

/// `rough` turned about its centre by the least turn that sets its sides
/// at `found` radians (folded to a quarter turn), and that turn.
fn turned_to(rough: &Quad, found: f32) -> (Quad, f32) {
    // The rough outline's own way (its first side's normal, folded the
    // same way), and the turn that takes it onto the edges' way.
    let side = sub(rough.0[1], rough.0[0]);
    let own = (-side.0)
        .atan2(side.1)
        .rem_euclid(std::f32::consts::FRAC_PI_2);
    let mut turn = found - own;
    let quarter = std::f32::consts::FRAC_PI_2;
    if turn > quarter / 2.0 {
        turn -= quarter;
    } else if turn < -quarter / 2.0 {
        turn += quarter;
    }
    let (sin, cos) = turn.sin_cos();
    let c = rough.centre();
    let turned = Quad(rough.0.map(|p| {
        let d = sub(p, c);
        add(c, (d.0 * cos - d.1 * sin, d.0 * sin + d.1 * cos))
    }));
    (turned, turn)
}

/// Which way lightness steps going out across the card's edge: the sign
/// of what lies just past reach outside `rough` against the middle of the
/// card; `None` when the two differ by less than [`MIN_CONTRAST`] (a white
/// card on white paper, or cards touching all round).
fn polarity(full: &Plane, rough: &Quad, reach: f32) -> Option<f32> {
    let mean = |pts: Vec<Pt>| {
        let got: Vec<f32> = pts
            .into_iter()
            .filter(|&p| inside(full, p))
            .map(|p| full.sample(p))
            .collect();
        (!got.is_empty()).then(|| got.iter().sum::<f32>() / got.len() as f32)
    };
    let step = mean(outside_samples(rough, reach))? - mean(middle_samples(rough))?;
    (step.abs() >= MIN_CONTRAST).then_some(step.signum())
}

/// Points just past `reach` outside each side of `rough`, 16 a side.
fn outside_samples(rough: &Quad, reach: f32) -> Vec<Pt> {
    let c = rough.centre();
    let mut pts = Vec::with_capacity(64);
    for i in 0..4 {
        let (a, b) = (rough.0[i], rough.0[(i + 1) % 4]);
        for s in 0..16 {
            let on = add(
                a,
                scale(
                    sub(b, a),
                    SPAN.0 + (SPAN.1 - SPAN.0) * (s as f32 + 0.5) / 16.0,
                ),
            );
            let out = sub(on, c);
            pts.push(add(on, scale(out, (reach + 2.0) / len(out).max(1e-3))));
        }
    }
    pts
}

/// An 8×8 grid of points over the middle of `rough` (0.6 of it each way).
fn middle_samples(rough: &Quad) -> Vec<Pt> {
    let middle = rough.scaled(0.6);
    let mut pts = Vec::with_capacity(64);
    for u in 0..8 {
        for v in 0..8 {
            let (fu, fv) = ((u as f32 + 0.5) / 8.0, (v as f32 + 0.5) / 8.0);
            let top = add(middle.0[0], scale(sub(middle.0[1], middle.0[0]), fu));
            let bottom = add(middle.0[3], scale(sub(middle.0[2], middle.0[3]), fu));
            pts.push(add(top, scale(sub(bottom, top), fv)));
        }
    }
    pts
}

fn inside(full: &Plane, p: Pt) -> bool {
    p.0 >= 1.0 && p.1 >= 1.0 && p.0 <= (full.width - 2) as f32 && p.1 <= (full.height - 2) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A light card on a darker, grained table, with a dark frame line
    /// printed inside its edge.
    fn card_on_grain(corners: [Pt; 4]) -> Plane {
        let (w, h) = (200, 200);
        let q = Quad(corners);
        let inner = q.scaled(0.85);
        let mut p = Plane::new(w, h);
        for y in 0..h {
            for x in 0..w {
                let pt = (x as f32 + 0.5, y as f32 + 0.5);
                let grain = if (x / 3 + y / 7) % 2 == 0 { 70 } else { 100 };
                let v = if inner.contains(pt) && !inner.scaled(0.95).contains(pt) {
                    40
                } else if q.contains(pt) {
                    220
                } else {
                    grain
                };
                p.data[y * w + x] = v;
            }
        }
        p
    }

    fn far(a: &Quad, b: &Quad) -> f32 {
        (0..4)
            .map(|shift| {
                (0..4)
                    .map(|i| {
                        let (p, q) = (a.0[(i + shift) % 4], b.0[i]);
                        (p.0 - q.0).hypot(p.1 - q.1)
                    })
                    .fold(0.0f32, f32::max)
            })
            .fold(f32::INFINITY, f32::min)
    }

    #[test]
    fn a_rough_outline_is_put_on_the_card_edge_not_its_print() {
        let truth = Quad([(60.0, 40.0), (130.0, 46.0), (121.0, 146.0), (51.0, 140.0)]);
        let plane = card_on_grain(truth.0);
        // Off by several pixels each way, and a little turned.
        let rough = Quad([(55.0, 37.0), (133.0, 40.0), (126.0, 150.0), (48.0, 147.0)]);
        let fitted = fit_edges(&plane, &rough, 8.0).expect("an edge is found");
        assert!(far(&fitted, &truth) <= 1.5, "{fitted:?} against {truth:?}");
    }

    #[test]
    fn an_outline_turned_off_the_card_is_turned_back_onto_it() {
        let truth = Quad([(60.0, 40.0), (130.0, 46.0), (121.0, 146.0), (51.0, 140.0)]);
        let plane = card_on_grain(truth.0);
        // The same size, turned 20° about the card's middle.
        let c = truth.centre();
        let (sin, cos) = 20f32.to_radians().sin_cos();
        let rough = Quad(truth.0.map(|p| {
            let d = sub(p, c);
            add(c, (d.0 * cos - d.1 * sin, d.0 * sin + d.1 * cos))
        }));
        let fitted = fit_edges(&plane, &rough, 10.0).expect("an edge is found");
        assert!(far(&fitted, &truth) <= 1.5, "{fitted:?} against {truth:?}");
    }

    /// A neighbour lies a few pixels past the card's edge: its edge steps
    /// the other way (table to card) and is not taken for this card's.
    #[test]
    fn a_neighbour_across_a_narrow_gap_is_not_taken_for_the_edge() {
        let truth = Quad([(50.0, 50.0), (120.0, 50.0), (120.0, 150.0), (50.0, 150.0)]);
        let mut plane = card_on_grain(truth.0);
        let neighbour = Quad([(125.0, 50.0), (195.0, 50.0), (195.0, 150.0), (125.0, 150.0)]);
        for y in 0..plane.height {
            for x in 0..plane.width {
                if neighbour.contains((x as f32 + 0.5, y as f32 + 0.5)) {
                    plane.data[y * plane.width + x] = 230;
                }
            }
        }
        let rough = Quad([(47.0, 46.0), (124.0, 46.0), (124.0, 153.0), (47.0, 153.0)]);
        let fitted = fit_edges(&plane, &rough, 9.0).expect("an edge is found");
        assert!(far(&fitted, &truth) <= 1.5, "{fitted:?} against {truth:?}");
    }

    /// A green back on brown wood of the same lightness: its edge is in
    /// hue alone, and is found in the shade that parts the two.
    #[test]
    fn a_card_as_light_as_the_table_is_fitted_by_its_hue() {
        let truth = Quad([(60.0, 40.0), (130.0, 46.0), (121.0, 146.0), (51.0, 140.0)]);
        let (green, brown) = ([40u8, 120, 60], [120u8, 84, 40]);
        assert!(
            luma8(green[0], green[1], green[2]).abs_diff(luma8(brown[0], brown[1], brown[2])) < 4
        );
        let frame = RgbImage::from_fn(200, 200, |x, y| {
            let grain = if (x / 3 + y / 7) % 2 == 0 { 0 } else { 12 };
            if truth.contains((x as f32 + 0.5, y as f32 + 0.5)) {
                image::Rgb(green)
            } else {
                image::Rgb(brown.map(|v| v - grain))
            }
        });
        let rough = Quad([(55.0, 37.0), (133.0, 40.0), (126.0, 150.0), (48.0, 147.0)]);
        let fitted = fit_card(&frame, &rough, 8.0).expect("an edge is found");
        assert!(far(&fitted, &truth) <= 1.5, "{fitted:?} against {truth:?}");
    }

    #[test]
    fn a_bare_table_gives_no_outline() {
        let mut plane = card_on_grain([(0.0, 0.0); 4]);
        for (i, v) in plane.data.iter_mut().enumerate() {
            *v = (i * 7919 % 31) as u8 + 80;
        }
        let rough = Quad([(60.0, 40.0), (130.0, 40.0), (130.0, 140.0), (60.0, 140.0)]);
        assert_eq!(fit_edges(&plane, &rough, 8.0), None);
    }
}
