//! Lattice: the cells of the table, from the cards' own pitch measured
//! locally.
//!
//! The first card placed (the one nearest the middle of the cards) is cell
//! (0, 0); its short side runs along the columns. Every other card is
//! placed from an already placed neighbour: their offset, in that
//! neighbour's own axes and pitch, rounds to a whole number of cells. A
//! card's pitch is the layout's (its card size and the gap between cards,
//! measured as medians over neighbouring pairs) scaled to the card's own
//! size on screen, so a tilted camera or a wide lens, which change the
//! size across the frame, do not add up over many cells.
//!
//! Which outlines are cards is decided here, before any pitch is measured:
//! a glyph's box, two cards touching side by side and a board's whole
//! outline are all card-shaped. The outlines the deck recognises as they
//! lie (the nearest face within a loose distance, no search) are the
//! seeds, and their size is a single card's; an outline a whole number of
//! single cards across and down is cut into them, one much smaller is a
//! part of a print and dropped. With no seed, the size most outlines share
//! stands in.
//!
//! Cells with no card found are predicted from their placed neighbours
//! (their outline moved by one pitch), for occupancy to judge.

use std::collections::HashMap;

use arbiter_core::table::Cell;

use super::finding::Found;
use super::geometry::{Pt, Quad, add, dist, dot, len, scale, sub};

/// A placed cell: its outline and, for a card found there, which.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    pub quad: Quad,
    /// Unit vectors along the columns and the rows, at this cell.
    pub axes: (Pt, Pt),
    /// One cell's step along the columns and the rows, pixels.
    pub pitch: (f32, f32),
}

/// The cells placed so far.
#[derive(Clone, Debug, Default)]
pub struct Lattice {
    pub cells: HashMap<Cell, Placed>,
    /// Gap between neighbouring cards over the card's side, along the
    /// columns and the rows.
    pub gap: (f32, f32),
    /// Each found card's cell (`None` for one no neighbour placed).
    pub of_found: Vec<Option<Cell>>,
}

/// A card's own axes, matched to the reference ones: the unit vector of
/// its side nearest `col`, then of the side after it, and those sides'
/// lengths.
fn axes_like(q: &Quad, col: Pt) -> ((Pt, Pt), (f32, f32)) {
    let c = &q.0;
    let mut best = (f32::MIN, 0usize, 1.0f32);
    for i in 0..4 {
        let d = sub(c[(i + 1) % 4], c[i]);
        let l = len(d).max(1e-3);
        let s = dot(d, col) / l;
        if s > best.0 {
            best = (s, i, l);
        }
    }
    let i = best.1;
    let a = sub(c[(i + 1) % 4], c[i]);
    let b = sub(c[(i + 2) % 4], c[(i + 1) % 4]);
    // The opposite sides' mean length.
    let a_len = (len(a) + dist(c[(i + 3) % 4], c[(i + 2) % 4])) / 2.0;
    let b_len = (len(b) + dist(c[i], c[(i + 3) % 4])) / 2.0;
    let ua = scale(a, 1.0 / len(a).max(1e-3));
    let mut ub = scale(b, 1.0 / len(b).max(1e-3));
    // Rows run a quarter-turn clockwise of the columns (y down).
    if ua.0 * ub.1 - ua.1 * ub.0 < 0.0 {
        ub = scale(ub, -1.0);
    }
    ((ua, ub), (a_len, b_len))
}

/// A card's axes matched to the reference (columns, rows), its sides along
/// them, and its size over the median card's.
type CardFrame = ((Pt, Pt), (f32, f32), f32);

/// The outline with its corners started so that the first side runs along
/// `col` (so neighbours' outlines can be averaged corner for corner).
fn along(q: &Quad, col: Pt) -> Quad {
    let c = &q.0;
    let i = (0..4)
        .max_by(|&i, &j| {
            let s = |k: usize| {
                let d = sub(c[(k + 1) % 4], c[k]);
                dot(d, col) / len(d).max(1e-3)
            };
            s(i).total_cmp(&s(j))
        })
        .unwrap_or(0);
    Quad([c[i], c[(i + 1) % 4], c[(i + 2) % 4], c[(i + 3) % 4]])
}

fn median(mut v: Vec<f32>) -> Option<f32> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f32::total_cmp);
    Some(v[v.len() / 2])
}

/// The loosest distance to the deck's nearest face, read as the outline
/// lies, of a seed (a card named is within 0.9; an outline a few percent
/// off its card, up to about 1.5).
pub const SEED_DISTANCE: f32 = 1.6;

/// The cards among the outlines found: seeds the deck recognises, blocks
/// of touching cards cut into single cards, parts of prints dropped.
/// `nearest` is the deck's distance to the nearest face of an outline as
/// it lies.
pub fn cards_of(found: &[Found], nearest: &dyn Fn(&Quad) -> Option<f32>) -> Vec<Found> {
    let distances: Vec<Option<f32>> = found.iter().map(|f| nearest(&f.quad)).collect();
    let seeds: Vec<&Found> = found
        .iter()
        .zip(&distances)
        .filter(|(_, d)| d.is_some_and(|d| d <= SEED_DISTANCE))
        .map(|(f, _)| f)
        .collect();
    let sides = |f: &Found| {
        let (a, b) = f.quad.side_pairs();
        (a.min(b), a.max(b))
    };
    let global = if seeds.is_empty() {
        modal_size(found)
    } else {
        let w = median(seeds.iter().map(|f| sides(f).0).collect());
        let h = median(seeds.iter().map(|f| sides(f).1).collect());
        w.zip(h)
    };
    let Some(global) = global else {
        return found.to_vec();
    };
    // A single card's size where an outline lies: the median of the seeds
    // nearest it (a tilted camera makes near cards larger than far ones).
    let local = |f: &Found| -> (f32, f32) {
        if seeds.len() < 5 {
            return global;
        }
        let c = f.quad.centre();
        let mut near: Vec<&&Found> = seeds.iter().collect();
        near.sort_by(|a, b| dist(a.quad.centre(), c).total_cmp(&dist(b.quad.centre(), c)));
        near.truncate(5);
        let w = median(near.iter().map(|f| sides(f).0).collect());
        let h = median(near.iter().map(|f| sides(f).1).collect());
        w.zip(h).unwrap_or(global)
    };
    let mut out = Vec::with_capacity(found.len());
    for (f, d) in found.iter().zip(&distances) {
        if d.is_some_and(|d| d <= SEED_DISTANCE) {
            out.push(f.clone());
            continue;
        }
        let (w, h) = local(f);
        let (a, b) = f.quad.side_pairs();
        let fits = |len: f32, unit: f32| {
            let k = (len / unit).round();
            ((1.0..=4.0).contains(&k) && (len / (k * unit) - 1.0).abs() < 0.15)
                .then_some(k as usize)
        };
        // Cards in the block upright (short side along side 0-1) or turned.
        let Some((i, j)) = [(w, h), (h, w)]
            .iter()
            .find_map(|&(ua, ub)| Some((fits(a, ua)?, fits(b, ub)?)))
        else {
            continue;
        };
        if i * j == 1 {
            out.push(f.clone());
            continue;
        }
        let q = &f.quad.0;
        let at = |u: f32, v: f32| {
            let top = add(q[0], scale(sub(q[1], q[0]), u));
            let bottom = add(q[3], scale(sub(q[2], q[3]), u));
            add(top, scale(sub(bottom, top), v))
        };
        for y in 0..j {
            for x in 0..i {
                let (u0, u1) = (x as f32 / i as f32, (x + 1) as f32 / i as f32);
                let (v0, v1) = (y as f32 / j as f32, (y + 1) as f32 / j as f32);
                out.push(Found {
                    quad: Quad([at(u0, v0), at(u1, v0), at(u1, v1), at(u0, v1)]).portrait(),
                    support: f.support,
                    light: f.light,
                });
            }
        }
    }
    out
}

/// The short and long side most outlines share, by the area they cover
/// (a glyph's box is card-shaped too, but smaller).
fn modal_size(found: &[Found]) -> Option<(f32, f32)> {
    let areas: Vec<f32> = found.iter().map(|c| c.quad.area()).collect();
    let cover = |x: f32| -> f32 { areas.iter().filter(|&&y| (y / x - 1.0).abs() < 0.2).sum() };
    let single = areas
        .iter()
        .copied()
        .max_by(|&a, &b| cover(a).total_cmp(&cover(b)))?;
    let near: Vec<&Found> = found
        .iter()
        .filter(|c| (c.quad.area() / single - 1.0).abs() < 0.2)
        .collect();
    let w = median(near.iter().map(|c| c.quad.width()).collect())?;
    let h = median(
        near.iter()
            .map(|c| {
                let (a, b) = c.quad.side_pairs();
                a.max(b)
            })
            .collect(),
    )?;
    Some((w, h))
}

impl Lattice {
    /// Places the cards on cells.
    pub fn from_cards(found: &[Found]) -> Lattice {
        let mut lat = Lattice {
            of_found: vec![None; found.len()],
            ..Lattice::default()
        };
        if found.is_empty() {
            return lat;
        }
        let widths: Vec<f32> = found.iter().map(|f| f.quad.width()).collect();
        let w = median(widths).unwrap_or(1.0);
        let (a, b) = found.iter().map(|f| f.quad.side_pairs()).fold(
            (Vec::new(), Vec::new()),
            |(mut s, mut l), (x, y)| {
                s.push(x.min(y));
                l.push(x.max(y));
                (s, l)
            },
        );
        let card = (median(a).unwrap_or(w), median(b).unwrap_or(w * 1.4));
        // The reference: the card nearest the middle of all cards.
        let mid = found.iter().fold((0.0, 0.0), |m, f| {
            add(m, scale(f.quad.centre(), 1.0 / found.len() as f32))
        });
        let root = (0..found.len())
            .min_by(|&i, &j| {
                dist(found[i].quad.centre(), mid).total_cmp(&dist(found[j].quad.centre(), mid))
            })
            .unwrap_or(0);
        let col0 = {
            let c = &found[root].quad.0;
            let d = sub(c[1], c[0]);
            scale(d, 1.0 / len(d).max(1e-3))
        };
        // Each card's axes matched to the reference, and its scale.
        let diag = (card.0.hypot(card.1)).max(1.0);
        let frames: Vec<CardFrame> = found
            .iter()
            .map(|f| {
                let (axes, sides) = axes_like(&f.quad, col0);
                (axes, sides, sides.0.hypot(sides.1) / diag)
            })
            .collect();
        // The gaps: neighbours side by side along one axis.
        let mut gaps: (Vec<f32>, Vec<f32>) = (Vec::new(), Vec::new());
        for i in 0..found.len() {
            let ((uc, ur), _, s) = frames[i];
            let (pc, pr) = (card.0 * s, card.1 * s);
            for (j, fj) in found.iter().enumerate() {
                if i == j {
                    continue;
                }
                let d = sub(fj.quad.centre(), found[i].quad.centre());
                let (a, b) = (dot(d, uc) / pc, dot(d, ur) / pr);
                if b.abs() < 0.3 && a.abs() > 0.8 && a.abs() < 1.8 {
                    gaps.0.push(a.abs() - 1.0);
                }
                if a.abs() < 0.3 && b.abs() > 0.8 && b.abs() < 1.8 {
                    gaps.1.push(b.abs() - 1.0);
                }
            }
        }
        let gc = median(gaps.0);
        let gr = median(gaps.1);
        lat.gap = match (gc, gr) {
            (Some(c), Some(r)) => (c.max(0.0), r.max(0.0)),
            // One axis measured: the layout's gap is much the same in
            // both, in card widths.
            (Some(c), None) => (c.max(0.0), (c * card.0 / card.1).max(0.0)),
            (None, Some(r)) => ((r * card.1 / card.0).max(0.0), r.max(0.0)),
            (None, None) => (0.1, 0.1),
        };
        let pitch_of = |k: usize| {
            let (_, _, s) = frames[k];
            (
                card.0 * s * (1.0 + lat.gap.0),
                card.1 * s * (1.0 + lat.gap.1),
            )
        };
        // Prim's walk: always the nearest unplaced card to a placed one.
        let origin = Cell::new(0, 0);
        lat.of_found[root] = Some(origin);
        lat.cells.insert(
            origin,
            Placed {
                quad: along(&found[root].quad, col0),
                axes: frames[root].0,
                pitch: pitch_of(root),
            },
        );
        let mut placed = vec![root];
        loop {
            let mut best: Option<(f32, usize, Cell)> = None;
            for &i in &placed {
                let ci = lat.of_found[i].unwrap_or(origin);
                let ((uc, ur), _, _) = frames[i];
                let (pc, pr) = pitch_of(i);
                for (j, fj) in found.iter().enumerate() {
                    if lat.of_found[j].is_some() {
                        continue;
                    }
                    let d = sub(fj.quad.centre(), found[i].quad.centre());
                    let dl = len(d);
                    if dl > 3.5 * pc.max(pr) || best.is_some_and(|(b, _, _)| dl >= b) {
                        continue;
                    }
                    let (a, b) = (dot(d, uc) / pc, dot(d, ur) / pr);
                    let (ra, rb) = (a.round(), b.round());
                    if (a - ra).abs() > 0.3 || (b - rb).abs() > 0.3 {
                        continue;
                    }
                    let cell = Cell::new(ci.col + ra as i32, ci.row + rb as i32);
                    best = Some((dl, j, cell));
                }
            }
            let Some((_, j, cell)) = best else {
                break;
            };
            lat.of_found[j] = Some(cell);
            placed.push(j);
            if lat.cells.contains_key(&cell) {
                // Two cards on one cell: the first stays, the other is
                // left for the reading to call the cell doubtful.
                continue;
            }
            lat.cells.insert(
                cell,
                Placed {
                    quad: along(&found[j].quad, frames[j].0.0),
                    axes: frames[j].0,
                    pitch: pitch_of(j),
                },
            );
        }
        lat
    }

    /// The outline a card at `cell` would have, from its placed
    /// four-neighbours (their outlines moved one pitch, averaged).
    pub fn predict(&self, cell: Cell) -> Option<Quad> {
        let mut sum = [(0.0f32, 0.0f32); 4];
        let mut n = 0.0;
        for (dc, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let from = Cell::new(cell.col - dc, cell.row - dr);
            let Some(p) = self.cells.get(&from) else {
                continue;
            };
            // Two placed cells in a line give the step there exactly
            // (perspective and the gaps included); one, the layout's pitch.
            let step = match self
                .cells
                .get(&Cell::new(cell.col - 2 * dc, cell.row - 2 * dr))
            {
                Some(before) => sub(p.quad.centre(), before.quad.centre()),
                None => add(
                    scale(p.axes.0, p.pitch.0 * dc as f32),
                    scale(p.axes.1, p.pitch.1 * dr as f32),
                ),
            };
            let q = p.quad.translated(step);
            // Corners matched to the neighbour's order.
            for (s, c) in sum.iter_mut().zip(q.0) {
                *s = add(*s, c);
            }
            n += 1.0;
        }
        (n > 0.0).then(|| Quad(sum.map(|s| scale(s, 1.0 / n))))
    }

    /// Places found cards the first walk could not reach, each from the
    /// nearest cell placed since (a walk across the cells between them may
    /// have come closer): their offset in that cell's axes and pitch must
    /// round to whole cells, and the cell be free. The cards placed, by
    /// index.
    pub fn attach(&mut self, found: &[Found]) -> Vec<usize> {
        let mut placed = Vec::new();
        for (i, f) in found.iter().enumerate() {
            if self.of_found[i].is_some() {
                continue;
            }
            let c = f.quad.centre();
            let Some((&cell, p)) = self
                .cells
                .iter()
                .min_by(|a, b| dist(a.1.quad.centre(), c).total_cmp(&dist(b.1.quad.centre(), c)))
            else {
                continue;
            };
            let d = sub(c, p.quad.centre());
            let (a, b) = (dot(d, p.axes.0) / p.pitch.0, dot(d, p.axes.1) / p.pitch.1);
            let (ra, rb) = (a.round(), b.round());
            if (a - ra).abs() > 0.3 || (b - rb).abs() > 0.3 || ra.abs() + rb.abs() > 4.0 {
                continue;
            }
            let at = Cell::new(cell.col + ra as i32, cell.row + rb as i32);
            if self.cells.contains_key(&at) {
                continue;
            }
            let axes = axes_like(&f.quad, p.axes.0).0;
            self.cells.insert(
                at,
                Placed {
                    quad: along(&f.quad, axes.0),
                    axes,
                    pitch: p.pitch,
                },
            );
            self.of_found[i] = Some(at);
            placed.push(i);
        }
        placed
    }

    /// Puts a cell's outline on the lattice (a card occupancy found, or an
    /// empty cell's refined outline), with its neighbour's axes and pitch.
    pub fn place(&mut self, cell: Cell, quad: Quad) {
        let near = [(1, 0), (-1, 0), (0, 1), (0, -1)]
            .iter()
            .find_map(|(dc, dr)| self.cells.get(&Cell::new(cell.col + dc, cell.row + dr)))
            .cloned();
        if let Some(p) = near {
            self.cells.insert(
                cell,
                Placed {
                    quad: along(&quad, p.axes.0),
                    axes: p.axes,
                    pitch: p.pitch,
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A card at cell `(c, r)` of a layout turned by `angle` radians, of
    /// `w`×`h` pixels with `gap` (over the card's side) between cards,
    /// centred on `origin`.
    fn card_at(c: i32, r: i32, angle: f32, (w, h): (f32, f32), gap: f32, origin: Pt) -> Quad {
        let (cos, sin) = (angle.cos(), angle.sin());
        let rot = |p: Pt| {
            (
                p.0 * cos - p.1 * sin + origin.0,
                p.0 * sin + p.1 * cos + origin.1,
            )
        };
        let (cx, cy) = (c as f32 * w * (1.0 + gap), r as f32 * h * (1.0 + gap));
        let corners = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]
            .map(|(u, v): (f32, f32)| rot((cx + u * w, cy + v * h)));
        Quad(corners)
    }

    fn found(q: Quad) -> Found {
        Found {
            quad: q.portrait(),
            support: 1.0,
            light: true,
        }
    }

    #[test]
    fn cards_of_a_turned_layout_get_cells_and_a_missing_one_is_predicted() {
        let size = (50.0, 70.0);
        let (angle, gap, origin) = (0.5, 0.12, (400.0, 300.0));
        let mut cards = Vec::new();
        for r in -1..=1 {
            for c in -2..=2 {
                if (c, r) != (1, 0) {
                    // Every other card turned half round: a card either
                    // way up is the same card.
                    let q = card_at(c, r, angle, size, gap, origin);
                    let q = if (c + r) % 2 == 0 {
                        q
                    } else {
                        Quad([q.0[2], q.0[3], q.0[0], q.0[1]])
                    };
                    cards.push((c, r, found(q)));
                }
            }
        }
        let list: Vec<Found> = cards.iter().map(|(_, _, f)| f.clone()).collect();
        let lat = Lattice::from_cards(&list);
        assert!(
            (lat.gap.0 - gap).abs() < 0.02 && (lat.gap.1 - gap).abs() < 0.02,
            "gap {:?}",
            lat.gap
        );
        // The cells differ as the layout's do (up to the lattice's own
        // origin and quarter-turn): check against the first card.
        let first = lat.of_found[0].expect("placed");
        let (c0, r0) = (cards[0].0, cards[0].1);
        let turns: Vec<(i32, i32)> = (0..4)
            .map(|q| match q {
                0 => (1, 0),
                1 => (0, 1),
                2 => (-1, 0),
                _ => (0, -1),
            })
            .collect();
        let ok = turns.iter().any(|&(a, b)| {
            cards.iter().zip(&lat.of_found).all(|((c, r, _), cell)| {
                let cell = cell.expect("every card placed");
                let (dc, dr) = (c - c0, r - r0);
                // (dc, dr) turned by the quarter-turn (a, b).
                let want = (a * dc - b * dr, b * dc + a * dr);
                (cell.col - first.col, cell.row - first.row) == want
            })
        });
        assert!(ok, "cells {:?}", lat.of_found);
        // The missing card's cell, from the cells either side of it.
        let left = lat.of_found[cards
            .iter()
            .position(|(c, r, _)| (*c, *r) == (0, 0))
            .unwrap()]
        .unwrap();
        let right = lat.of_found[cards
            .iter()
            .position(|(c, r, _)| (*c, *r) == (2, 0))
            .unwrap()]
        .unwrap();
        let missing = Cell::new((left.col + right.col) / 2, (left.row + right.row) / 2);
        let predicted = lat.predict(missing).expect("a prediction");
        let truth = card_at(1, 0, angle, size, gap, origin);
        assert!(
            predicted.corner_distance(&truth) < 2.0,
            "{predicted:?} against {truth:?}"
        );
    }
}

#[cfg(test)]
mod cards_of_tests {
    use super::*;

    fn rect(x: f32, y: f32, w: f32, h: f32) -> Found {
        Found {
            quad: Quad([(x, y), (x + w, y), (x + w, y + h), (x, y + h)]).portrait(),
            support: 1.0,
            light: true,
        }
    }

    /// Two cards touching side by side make one card-shaped outline (126
    /// by 88 against 63 by 88): beside single cards the deck recognises,
    /// it is cut into the two. A glyph's box, card-shaped but a third of
    /// the size, is dropped.
    #[test]
    fn a_block_of_two_cards_is_cut_apart_and_a_glyphs_box_dropped() {
        let found = vec![
            rect(0.0, 0.0, 63.0, 88.0),
            rect(100.0, 0.0, 63.0, 88.0),
            rect(0.0, 120.0, 126.0, 88.0),
            rect(220.0, 20.0, 21.0, 29.0),
        ];
        // The deck recognises the single cards as they lie, nothing else.
        let nearest = |q: &Quad| {
            Some(if (q.width() - 63.0).abs() < 3.0 && q.area() < 6000.0 {
                0.2
            } else {
                3.0
            })
        };
        let cards = cards_of(&found, &nearest);
        assert_eq!(cards.len(), 4, "{cards:?}");
        let mut centres: Vec<(i32, i32)> = cards
            .iter()
            .map(|c| {
                (
                    c.quad.centre().0.round() as i32,
                    c.quad.centre().1.round() as i32,
                )
            })
            .collect();
        centres.sort();
        assert_eq!(centres, vec![(32, 44), (32, 164), (95, 164), (132, 44)]);
    }
}
