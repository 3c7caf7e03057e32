//! Growing the layout from the cards already read: a card of a layout lies
//! beside another, one card's width or length (and the layout's gap) away.
//!
//! Cards that touch make one blob in the colour mask and share their edge
//! bands in the edge map, so the finder ([`super::cards`]) misses most of a
//! dense layout and reads only the cards at its rim. Each card read is a
//! ruler for its neighbours: its sides give the directions and the size of
//! the cards next to it, under the camera's local perspective, and the
//! gap between read neighbours gives the layout's spacing. A neighbour's
//! outline is predicted there, its sides are moved onto the nearest straight
//! colour step (the seam between touching cards is one) or, failing a read,
//! onto the line with the most edge along it ([`settle`]), and it is kept
//! only when the deck reads a card in it clearly. What is kept is a ruler
//! in turn, so a layout is read outward from any card of it.
//!
//! A block of touching cards with no card read yet is seeded at its convex
//! corners ([`rim_seeds`]).
//!
//! A chain of rulers breaks at a card not read, and a seed a few pixels
//! off mispredicts every neighbour it seeds; so once the layout has grown,
//! every empty cell of it is predicted through the lattice fitted to all
//! the cards read, which holds the camera's perspective ([`complete`]).

use std::cell::{Cell, RefCell};

use image::RgbImage;

use super::cards::{
    Detected, Hands, Identify, PrintFit, Quad, centroid, dist, judge, judge_near, median, portrait,
    quad_of,
};
use super::outline::{self, Prefer, Source, TableModel};
use crate::cards::CARD_ASPECT;
use arbiter_core::table::Token;

/// How far each predicted side may move onto the card's edge, over the
/// card's short side: a neighbour skewed by 8° the other way, or a gap a
/// little off the layout's.
const REACH: f32 = 0.18;
/// The sizes tried at a block's corner, over the typical card's: under a
/// tilted camera a card on the far side is up to a fifth smaller than the
/// frame's typical card, one on the near side a fifth larger.
const RIM_SIZES: [f32; 3] = [1.0, 0.85, 1.18];
/// With no card's size known, the sizes scanned at a block's corner: from
/// the smallest card up, each this much larger.
const SCAN_STEP: f32 = 1.15;
/// With no card's size known, how many of a block's corners are scanned.
const SCAN_CORNERS: usize = 6;
/// The gaps tried, over the short side, when no two cards read side by
/// side tell the layout's: touching, and two spacings apart.
const GAPS_UNKNOWN: [f32; 3] = [0.0, 0.25, 0.5];
/// The least confidence of a card read where a neighbour predicted it. A
/// loose outline can still read as a card of a forgiving deck (a stand-in's
/// colour block, a plain back) and be placed half a card off, so a read
/// must be clearer than the deck's own threshold. Over the varied sets
/// (the print fit, the twins' colour split and every twin compared
/// faded; before reads were held when moved): 0.65 reads 92.75% right
/// and none wrong; 0.6 reads 92.89% but one card wrong (a 41 px black
/// pawn read as the rook on black felt);
/// 0.55 and 0.5 read 93.35% and 93.46% with none wrong on these frames,
/// but the pawn shows that reads under 0.65 can be wrong, and which
/// cells such a bar lets through depends on the order they are reached.
/// On frames of the same specs drawn with other seeds (`accuracy --unseen
/// 1` and `2`, 6,649 cells, every grown read held when moved) 0.5 read
/// 1.0% more right and 2 cards more wrong: a white knight read as the
/// bishop, a blue king as the bishop.
const GROWN_SURE: f32 = 0.65;
/// How surely a back must read where the table's colour fills its outline
/// (see [`BACK_SHADE`]).
const SURE_BACK: f32 = 0.8;
/// The lightness, over the deck's back's as the faces' paper in the frame
/// scales it, of a cell of cloth that may be a back of the cloth's colour.
const BACK_SHADE: (f32, f32) = (0.6, 1.6);
/// How far apart in chromaticity (red's or blue's share, see
/// [`super::cards::chroma_in`]) a cell of cloth and the backs read in the
/// frame may be for the cloth to pass for a back of its colour: a navy
/// back is not grey slate of its lightness.
const BACK_CHROMA: f32 = 0.05;
/// From how many seeds one cell is predicted at most.
const SEEDS_PER_CELL: usize = 2;
/// The most outlines predicted in one frame (each costs a read).
const MAX_TRIES: usize = 300;
/// Above this share of table-coloured pixels, a predicted outline is an
/// empty cell.
const EMPTY: f32 = 0.5;
/// At or above this share a predicted outline is bare table, where the
/// faces read in the frame lie off the table's model (each at most
/// [`FACE_APART`] table-like): no card is there, printed or not.
const BARE: f32 = 0.98;
/// The most table-like share of a face read (its paper, mostly) for the
/// table's model to tell this deck's cards from the table.
const FACE_APART: f32 = 0.5;

/// A read card's geometry: its centre, its side directions (unit) and
/// lengths.
struct Ruler {
    centre: (f32, f32),
    across: (f32, f32),
    along: (f32, f32),
    short: f32,
    long: f32,
    aspect: f32,
    area: f32,
}

impl Ruler {
    fn of(d: &Detected) -> Ruler {
        let c = d.corners;
        let sum = |a: (f32, f32), b: (f32, f32)| (a.0 + b.0, a.1 + b.1);
        let sub = |a: (f32, f32), b: (f32, f32)| (a.0 - b.0, a.1 - b.1);
        let across = sum(sub(c[1], c[0]), sub(c[2], c[3]));
        let along = sum(sub(c[3], c[0]), sub(c[2], c[1]));
        let unit = |v: (f32, f32)| {
            let n = (v.0 * v.0 + v.1 * v.1).sqrt().max(1e-6);
            (v.0 / n, v.1 / n)
        };
        let short = (dist(c[0], c[1]) + dist(c[3], c[2])) / 2.0;
        let long = (dist(c[0], c[3]) + dist(c[1], c[2])) / 2.0;
        Ruler {
            centre: d.centre,
            across: unit(across),
            along: unit(along),
            short,
            long,
            aspect: long / short.max(1e-6),
            area: short * long,
        }
    }

    /// `p` in this card's axes: (across, along), in pixels.
    fn local(&self, p: (f32, f32)) -> (f32, f32) {
        let d = (p.0 - self.centre.0, p.1 - self.centre.1);
        (
            d.0 * self.across.0 + d.1 * self.across.1,
            d.0 * self.along.0 + d.1 * self.along.1,
        )
    }
}

fn is_read(d: &Detected) -> bool {
    matches!(d.token, Some(Token::Up(_)) | Some(Token::Down)) && d.confidence >= 0.5
}

/// The layout's gap over a card's short side, from cards read side by side
/// (square to each other, one card's width or length apart), and whether
/// two lay side by side across (rather than only one above another);
/// `None` when no two are.
fn layout_gap(rulers: &[Ruler]) -> Option<(f32, bool)> {
    let mut gaps = Vec::new();
    let mut across = false;
    for a in rulers {
        for b in rulers {
            let turn = (a.across.0 * b.across.0 + a.across.1 * b.across.1).abs();
            if std::ptr::eq(a, b) || turn < 0.95 {
                continue;
            }
            let (u, v) = a.local(b.centre);
            if v.abs() < 0.25 * a.long && (0.9..1.7).contains(&(u.abs() / a.short)) {
                gaps.push((u.abs() - a.short) / a.short);
                across = true;
            } else if u.abs() < 0.25 * a.short && (0.9..1.7).contains(&(v.abs() / a.long)) {
                gaps.push((v.abs() - a.long) / a.short);
            }
        }
    }
    if gaps.is_empty() {
        return None;
    }
    gaps.sort_by(f32::total_cmp);
    Some((gaps[gaps.len() / 2].max(0.0), across))
}

/// The layout's pitch ([`layout_pitch`]) when its cards lie both ways;
/// else its one gap all round ([`layout_gap`]).
fn layout_pitch_or_gap(rulers: &[Ruler], both_ways: bool) -> Pitch {
    if both_ways {
        return layout_pitch(rulers);
    }
    let gap = layout_gap(rulers);
    Pitch {
        across: gap.map(|(g, _)| 1.0 + g),
        along: None,
        across_seen: gap.is_some_and(|(_, seen)| seen),
    }
}

/// The layout's pitch, from cards read side by side: the step from a card
/// to its neighbour across (over its short side) and along (over its long
/// side), each when measured. Cards lie on the layout's grid whichever way
/// each is turned, so a neighbour turned a quarter measures as well.
struct Pitch {
    across: Option<f32>,
    along: Option<f32>,
    /// The step across was measured from cards side by side across, not
    /// taken from the gap between rows (a layout's rows may lie closer
    /// than its columns).
    across_seen: bool,
}

fn layout_pitch(rulers: &[Ruler]) -> Pitch {
    let (mut across, mut along) = (Vec::new(), Vec::new());
    for a in rulers {
        for b in rulers {
            let turn = (a.across.0 * b.across.0 + a.across.1 * b.across.1).abs();
            // Square to each other, or a quarter turned.
            if std::ptr::eq(a, b) || (0.3..0.95).contains(&turn) {
                continue;
            }
            let (u, v) = a.local(b.centre);
            if v.abs() < 0.25 * a.short && (0.9..2.0).contains(&(u.abs() / a.short)) {
                across.push(u.abs() / a.short);
            } else if u.abs() < 0.25 * a.short && (0.85..1.7).contains(&(v.abs() / a.long)) {
                along.push(v.abs() / a.long);
            }
        }
    }
    let across = median(across);
    Pitch {
        across_seen: across.is_some(),
        across,
        along: median(along),
    }
}

impl Pitch {
    /// The steps to try from the card `r` to its neighbours across and
    /// along, pixels. Unmeasured, a step is the card's side and the gap
    /// the other step shows (or, neither measured, each gap of
    /// [`GAPS_UNKNOWN`]).
    fn steps(&self, r: &Ruler) -> (Vec<f32>, Vec<f32>) {
        let gaps: Vec<f32> = match (self.across, self.along) {
            (Some(a), _) => vec![(a - 1.0).max(0.0)],
            (None, Some(b)) => vec![((b - 1.0) * r.aspect).max(0.0)],
            (None, None) => GAPS_UNKNOWN.to_vec(),
        };
        let across = match self.across {
            Some(a) if self.across_seen => vec![a * r.short],
            // Taken from the rows' gap only: the columns' may differ.
            Some(_) => GAPS_UNKNOWN.iter().map(|g| r.short * (1.0 + g)).collect(),
            None => gaps.iter().map(|g| r.short * (1.0 + g)).collect(),
        };
        let along = match self.along {
            Some(b) => vec![b * r.long],
            None => gaps.iter().map(|g| r.long + g * r.short).collect(),
        };
        (across, along)
    }
}

/// Settles each card of `dets` seen and not read onto its edges and reads
/// it again: an outline found from the edge map may be a little off the
/// card (a region snapped onto a neighbour's print), and a card read now
/// seeds [`grow`].
pub(super) fn reread(
    frame: &RgbImage,
    hands: &Hands,
    dets: &mut [(Detected, Source)],
    id: &dyn Identify,
) {
    let climbs = Cell::new(CLIMB_BUDGET);
    for (d, _) in dets.iter_mut() {
        if d.token.is_some() {
            continue;
        }
        let r = Ruler::of(d);
        if !(1.2..1.7).contains(&r.aspect) {
            continue;
        }
        let reach = REACH * r.short;
        let (q, c) = (d.corners, d.centre);
        let read_at = |fitted: [(f32, f32); 4]| {
            read_outline(
                frame,
                hands,
                id,
                &r,
                c,
                &q,
                Some(fitted),
                false,
                false,
                &climbs,
            )
        };
        let read = fit_rigid(frame, &q, reach)
            .and_then(read_at)
            .or_else(|| settle(frame, &q, reach).and_then(read_at));
        if let Some(read) = read {
            *d = read;
        }
    }
}

/// Adds the cards found beside the cards read in `dets` (see the module's
/// doc). A card found and not read where a neighbour is read now is
/// replaced by it.
pub(super) fn grow(
    frame: &RgbImage,
    hands: &Hands,
    table: Option<&TableModel>,
    dets: &mut Vec<(Detected, Source)>,
    id: &dyn Identify,
    effort: &Effort,
) {
    let (fw, fh) = (frame.width() as f32, frame.height() as f32);
    let rulers: Vec<Ruler> = dets
        .iter()
        .filter(|(d, _)| is_read(d))
        .map(|(d, _)| Ruler::of(d))
        .collect();
    if rulers.is_empty() {
        return;
    }
    // Cards of the layout lie both ways (DoubleCross, Enochian): each
    // neighbour may be turned a quarter from its seed, and the cells are
    // as wide as they are long. Else the gap between cards is one all
    // round.
    // Faces tell it (a plain back's outline may be taken the other way
    // round under a steep tilt), four at least each turned from another.
    let faces: Vec<Ruler> = dets
        .iter()
        .filter(|(d, _)| is_read(d) && matches!(d.token, Some(Token::Up(_))))
        .map(|(d, _)| Ruler::of(d))
        .collect();
    let turned_faces = faces
        .iter()
        .filter(|a| {
            faces
                .iter()
                .any(|b| (a.across.0 * b.across.0 + a.across.1 * b.across.1).abs() < 0.3)
        })
        .count();
    let both_ways = turned_faces >= 4;
    let pitch = layout_pitch_or_gap(&rulers, both_ways);
    let seen = Seen::of(frame, table, dets, id);
    let mut queue: Vec<usize> = (0..dets.len()).filter(|&i| is_read(&dets[i].0)).collect();
    let mut tried: Vec<((f32, f32), usize)> = Vec::new();
    effort.climbs.set(CLIMB_BUDGET);
    // Unread cards replaced by a neighbour read where they lie.
    let mut replaced = vec![false; dets.len()];
    let mut tries = 0;
    while let Some(i) = queue.pop() {
        let seed = dets[i].0.clone();
        let r = Ruler::of(&seed);
        let turned = both_ways.then(|| quarter_turned(&seed));
        let (across_steps, along_steps) = pitch.steps(&r);
        for (dir, steps) in [
            (r.across, &across_steps),
            ((-r.across.0, -r.across.1), &across_steps),
            (r.along, &along_steps),
            ((-r.along.0, -r.along.1), &along_steps),
        ] {
            for &step in steps {
                if tries >= MAX_TRIES {
                    queue.clear();
                    break;
                }
                let t = (dir.0 * step, dir.1 * step);
                let centre = (r.centre.0 + t.0, r.centre.1 + t.1);
                let near = |p: (f32, f32), f: f32| dist(p, centre) < f * r.short;
                // A neighbour read already: nothing to find on this side.
                if dets.iter().any(|(d, _)| is_read(d) && near(d.centre, 0.5)) {
                    break;
                }
                // A cell is tried from two seeds at most: each predicts it
                // off by its own skew.
                if tried.iter().filter(|&&(p, _)| near(p, 0.3)).count() >= SEEDS_PER_CELL
                    || tried.iter().any(|&(p, from)| from == i && near(p, 0.3))
                {
                    continue;
                }
                tried.push((centre, i));
                let Some(d) = std::iter::once(&seed)
                    .chain(turned.as_ref())
                    .find_map(|seed| {
                        let predicted = seed.corners.map(|p| (p.0 + t.0, p.1 + t.1));
                        let inside = predicted
                            .iter()
                            .all(|p| p.0 >= 1.0 && p.1 >= 1.0 && p.0 < fw - 2.0 && p.1 < fh - 2.0);
                        if !inside || tries >= MAX_TRIES {
                            return None;
                        }
                        tries += 1;
                        read_predicted(
                            frame,
                            hands,
                            table,
                            id,
                            &Ruler::of(seed),
                            centre,
                            &predicted,
                            effort,
                            false,
                            seen,
                        )
                    })
                else {
                    continue;
                };
                add_found(dets, &mut replaced, d, r.short);
                queue.push(dets.len() - 1);
                break;
            }
        }
    }
    drop_replaced(dets, &replaced);
}

/// Completes the layout from the lattice the cards read fit: every cell
/// of the layout's rectangle (and a ring about it) with no card read is
/// predicted through the lattice's homography, which holds the camera's
/// perspective across the whole layout, and read as a neighbour's
/// prediction is ([`read_predicted`]). A card read here is added; an unread
/// outline about it is replaced. A cell `bare` tells empty is not tried.
pub(super) fn complete(
    frame: &RgbImage,
    hands: &Hands,
    table: Option<&TableModel>,
    dets: &mut Vec<(Detected, Source)>,
    id: &dyn Identify,
    bare: &Bare<'_>,
    effort: &Effort,
) {
    let read: Vec<Detected> = dets
        .iter()
        .filter(|(d, _)| is_read(d))
        .map(|(d, _)| d.clone())
        .collect();
    if read.len() < COMPLETE_LEAST {
        return;
    }
    let Some(placement) = super::lattice::fit(&read) else {
        return;
    };
    let lattice = &placement.lattice;
    // Each placed card's corners about its cell's centre, in cells; a
    // card's corners are in portrait order from either end, so each is
    // started at the corner nearer the cell's (-, -) quadrant.
    let mut shapes: Vec<[(f64, f64); 4]> = Vec::new();
    for (cell, i) in &placement.cells {
        let d = &read[*i];
        let Some(cs) = d
            .corners
            .iter()
            .map(|&p| lattice.to_cell(p))
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        let (c, r) = (f64::from(cell.col), f64::from(cell.row));
        let off: Vec<(f64, f64)> = cs.iter().map(|p| (p.0 - c, p.1 - r)).collect();
        let start = if off[0].0 + off[0].1 <= off[2].0 + off[2].1 {
            0
        } else {
            2
        };
        shapes.push(std::array::from_fn(|k| off[(k + start) % 4]));
    }
    if shapes.len() < COMPLETE_LEAST {
        return;
    }
    let typical = typical_shapes(&shapes);
    let seen = Seen::of(frame, table, dets, id);
    let occupied: Vec<(i32, i32)> = placement
        .cells
        .iter()
        .map(|(c, _)| (c.col, c.row))
        .collect();
    let (c0, c1) = (
        occupied.iter().map(|c| c.0).min().unwrap_or(0) - 1,
        occupied.iter().map(|c| c.0).max().unwrap_or(0) + 1,
    );
    let (r0, r1) = (
        occupied.iter().map(|c| c.1).min().unwrap_or(0) - 1,
        occupied.iter().map(|c| c.1).max().unwrap_or(0) + 1,
    );
    let (fw, fh) = (frame.width() as f32, frame.height() as f32);
    effort.climbs.set(CLIMB_BUDGET);
    let mut replaced = vec![false; dets.len()];
    let mut tries = 0;
    for col in c0..=c1 {
        for row in r0..=r1 {
            if occupied.contains(&(col, row)) || tries >= MAX_TRIES {
                continue;
            }
            let (c, r) = (f64::from(col), f64::from(row));
            let centre = lattice.to_image((c, r));
            for shape in &typical {
                let predicted: [(f32, f32); 4] =
                    shape.map(|o| lattice.to_image((c + o.0, r + o.1)));
                let inside = predicted
                    .iter()
                    .all(|p| p.0 >= 1.0 && p.1 >= 1.0 && p.0 < fw - 2.0 && p.1 < fh - 2.0);
                if !inside {
                    continue;
                }
                let predicted = portrait(predicted);
                let ruler = Ruler::of(&Detected {
                    corners: predicted,
                    centre,
                    token: None,
                    confidence: 0.0,
                });
                // A card read already lies there (one the lattice did not
                // place, a card a little off its cell, a throne pair), or an
                // outline larger than a card not read (a throne pair read
                // one way only: its top card alone is not the cell's token).
                if dets.iter().any(|(d, _)| {
                    dist(d.centre, centre) < 0.5 * ruler.short
                        && (d.token.is_some() || Ruler::of(d).area > OVERSIZED * ruler.area)
                }) {
                    break;
                }
                if bare(&predicted) {
                    continue;
                }
                tries += 1;
                let Some(d) = read_predicted(
                    frame, hands, table, id, &ruler, centre, &predicted, effort, true, seen,
                ) else {
                    continue;
                };
                add_found(dets, &mut replaced, d, ruler.short);
                break;
            }
        }
    }
    drop_replaced(dets, &replaced);
}

/// The typical card's corners about its cell's centre, in cells, from
/// every card's (`shapes`, each from the corner nearer the cell's (-, -)
/// quadrant): each corner's median offset. In a layout whose cards lie
/// both ways (turned a quarter, as in DoubleCross and Enochian) the median
/// of all is square and neither card: the cards lying each way are
/// typical apart, the more common way first, and the other only when at
/// least [`QUARTER_LEAST`] cards lie so.
fn typical_shapes(shapes: &[[(f64, f64); 4]]) -> Vec<[(f64, f64); 4]> {
    // Portrait order runs a short side, then a long one.
    let upright = |s: &[(f64, f64); 4]| (s[2].1 - s[1].1).abs() > (s[2].0 - s[1].0).abs();
    let median = |group: &[[(f64, f64); 4]]| -> [(f64, f64); 4] {
        std::array::from_fn(|k| {
            let mut xs: Vec<f64> = group.iter().map(|s| s[k].0).collect();
            let mut ys: Vec<f64> = group.iter().map(|s| s[k].1).collect();
            xs.sort_by(f64::total_cmp);
            ys.sort_by(f64::total_cmp);
            (xs[xs.len() / 2], ys[ys.len() / 2])
        })
    };
    // A card's corners may start at either end of it: a card lying across
    // its cell starts at the cell's (+, -) or (-, +) corner alike, and the
    // median of both mixed is no card. Each shape is started where it lies
    // nearest the first one, then nearest the median of those.
    let typical = |group: Vec<&[(f64, f64); 4]>| -> [(f64, f64); 4] {
        let aligned_to = |to: &[(f64, f64); 4]| -> Vec<[(f64, f64); 4]> {
            let apart = |a: &[(f64, f64); 4]| -> f64 {
                a.iter()
                    .zip(to)
                    .map(|(p, q)| (p.0 - q.0).powi(2) + (p.1 - q.1).powi(2))
                    .sum()
            };
            group
                .iter()
                .map(|&&s| {
                    let turned: [(f64, f64); 4] = std::array::from_fn(|k| s[(k + 2) % 4]);
                    if apart(&turned) < apart(&s) {
                        turned
                    } else {
                        s
                    }
                })
                .collect()
        };
        median(&aligned_to(&median(&aligned_to(group[0]))))
    };
    let (up, across): (Vec<_>, Vec<_>) = shapes.iter().partition(|s| upright(s));
    let (more, fewer) = if up.len() >= across.len() {
        (up, across)
    } else {
        (across, up)
    };
    let mut out = vec![typical(more)];
    if fewer.len() >= QUARTER_LEAST {
        out.push(typical(fewer));
    }
    out
}

/// The fewest cards lying the less common way that [`complete`] predicts
/// cells with too.
const QUARTER_LEAST: usize = 2;

/// Tells an outline of an empty cell, not worth a read.
pub(super) type Bare<'a> = dyn Fn(&[(f32, f32); 4]) -> bool + 'a;

/// The fewest cards read from which [`complete`] fits a lattice.
const COMPLETE_LEAST: usize = 4;
/// An outline this much larger than the cell's card is more than one card.
const OVERSIZED: f32 = 1.3;

/// A design shows in the middle of `q`: its lightness there varies, about
/// the plane that fits it, by more than [`DESIGN`] times the camera's
/// noise (estimated from the steps
/// between neighbouring pixels, which a design's few lines hardly move). A
/// cell of cloth between cards, framed by their edges, can read as a back
/// whose design is a frame within a frame; its middle is the plain cloth.
pub(super) fn shows_design(frame: &RgbImage, q: &[(f32, f32); 4]) -> bool {
    const N: usize = 12;
    // Each sample's lightness, with where it lies across and down the
    // middle (-1 to 1).
    let mut levels: Vec<(f32, f32, f32)> = Vec::with_capacity(N * N);
    let mut steps = Vec::with_capacity(N * N);
    let at = |x: f32, y: f32| outline::sample(frame, x, y).map(super::cards::lightness);
    for i in 0..N {
        for j in 0..N {
            let (s, t) = (
                (i as f32 + 0.5) / N as f32 * 2.0 - 1.0,
                (j as f32 + 0.5) / N as f32 * 2.0 - 1.0,
            );
            let (x, y) = super::cards::bilinear(q, 0.5 + 0.3 * s, 0.5 + 0.3 * t);
            if let (Some(a), Some(b)) = (at(x, y), at(x + 1.0, y)) {
                levels.push((s, t, a));
                steps.push((a - b).abs());
            }
        }
    }
    if levels.len() < N * N / 2 {
        return false;
    }
    // The spread about the plane that fits the samples best: a light's
    // gradient across a cell of plain table is no design.
    let n = levels.len() as f32;
    let mean = |f: &dyn Fn(&(f32, f32, f32)) -> f32| levels.iter().map(f).sum::<f32>() / n;
    let (ms, mt, ml) = (mean(&|p| p.0), mean(&|p| p.1), mean(&|p| p.2));
    let (sss, stt, sst) = (
        mean(&|p| (p.0 - ms).powi(2)),
        mean(&|p| (p.1 - mt).powi(2)),
        mean(&|p| (p.0 - ms) * (p.1 - mt)),
    );
    let (ssl, stl) = (
        mean(&|p| (p.0 - ms) * (p.2 - ml)),
        mean(&|p| (p.1 - mt) * (p.2 - ml)),
    );
    let det = sss * stt - sst * sst;
    let (bs, bt) = if det > 1e-6 {
        ((ssl * stt - stl * sst) / det, (stl * sss - ssl * sst) / det)
    } else {
        (0.0, 0.0)
    };
    let spread = mean(&|p| (p.2 - ml - bs * (p.0 - ms) - bt * (p.1 - mt)).powi(2)).sqrt();
    let mid = steps.len() / 2;
    let step = *steps.select_nth_unstable_by(mid, f32::total_cmp).1;
    // The median absolute step of two pixels with noise σ each is
    // 0.954σ (the difference's σ is √2·σ, its median absolute 0.6745 of that).
    let noise = step / 0.954;
    spread >= (DESIGN * noise).max(MIN_SPREAD)
}

/// The outline of a card whose faint edge runs all round `q` (a
/// predicted outline) within [`REACH`] of it, if one does. A back of the
/// cloth's own colour, its fine design blurred away on a small card,
/// shows nothing else of a card: its stock's edge and its shadow, a few
/// levels darker than the cloth, part it from the cloth. Too faint for
/// [`outline::snap`], which looks for a step at each point of a side
/// alone: here each half side is sought as a whole, at the offset where
/// the mean step across it is largest, and taken only when that mean
/// stands [`FAINT_EDGE`] times its own standard error clear of noise
/// ([`FAINT_CLEAR`] on the mean of all eight), with the same level of
/// cloth (not another card) on both sides of it.
pub(super) fn edged(frame: &RgbImage, q: &[(f32, f32); 4]) -> Option<[(f32, f32); 4]> {
    // Samples along a half side, and half pixels past the offsets tried.
    const ALONG: usize = 12;
    let margin = 8usize;
    let short = (dist(q[0], q[1]) + dist(q[3], q[2])) / 2.0;
    let reach = REACH * short;
    let c = centroid(q);
    let luma =
        |x: f32, y: f32| outline::sample(frame, x, y).map(|p| (p[0] + 2.0 * p[1] + p[2]) / 4.0);
    let offsets = (2.0 * reach / 0.5).ceil() as usize + 1;
    let mut lines = Vec::with_capacity(4);
    // The half sides' standing over the noise, summed.
    let mut clear = 0.0;
    for i in 0..4 {
        let (a, b) = (q[i], q[(i + 1) % 4]);
        let n = outward_normal(a, b, c);
        let mut pts = Vec::with_capacity(2);
        for half in 0..2 {
            // Each sample's lightness across the side, from `reach` inside
            // to `reach` outside, half a pixel apart, with `margin` more
            // beyond either end for the cloth's level either side.
            let mut profiles: Vec<Vec<f32>> = Vec::with_capacity(ALONG);
            let mut points = Vec::with_capacity(ALONG);
            for k in 0..ALONG {
                let t = 0.1 + 0.4 * half as f32 + 0.4 * (k as f32 + 0.5) / ALONG as f32;
                let p = (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t);
                let prof: Option<Vec<f32>> = (0..offsets + 2 * margin)
                    .map(|j| {
                        let s = -reach + (j as f32 - margin as f32) * 0.5;
                        luma(p.0 + n.0 * s, p.1 + n.1 * s)
                    })
                    .collect();
                if let Some(prof) = prof {
                    profiles.push(prof);
                    points.push(p);
                }
            }
            if profiles.len() < ALONG * 3 / 4 {
                return None;
            }
            let m = profiles.len() as f32;
            // The mean step a pixel wide at each offset, over its standard
            // error.
            let score = |j: usize| {
                let steps: Vec<f32> = profiles.iter().map(|p| p[j + 2] - p[j]).collect();
                let mean = steps.iter().sum::<f32>() / m;
                let var = steps.iter().map(|s| (s - mean).powi(2)).sum::<f32>() / (m - 1.0);
                (mean, mean.abs() / (var / m).sqrt().max(0.25))
            };
            // The same cloth a few pixels either side: a card of another
            // shade beside the outline is a neighbour, not this card.
            let band = |from: usize, to: usize| {
                profiles
                    .iter()
                    .flat_map(|p| p[from..to].iter())
                    .sum::<f32>()
                    / (m * (to - from) as f32)
            };
            let cloth_both_sides = |j: usize| {
                (band(j + 1 - margin, j - 3) - band(j + 5, j + margin + 1)).abs() <= FAINT_SHADE
            };
            let (j, (_, t)) = (margin - 1..margin + offsets - 1)
                .filter(|&j| cloth_both_sides(j))
                .map(|j| (j, score(j)))
                .max_by(|x, y| x.1.1.total_cmp(&y.1.1))?;
            if t < FAINT_EDGE {
                return None;
            }
            clear += t;
            let s = -reach + (j as f32 + 1.0 - margin as f32) * 0.5;
            let mid = points[points.len() / 2];
            pts.push((mid.0 + n.0 * s, mid.1 + n.1 * s));
        }
        lines.push((pts[0], pts[1]));
    }
    if clear < 8.0 * FAINT_CLEAR {
        return None;
    }
    let mut out = [(0.0, 0.0); 4];
    for (i, o) in out.iter_mut().enumerate() {
        *o = super::cards::intersect(lines[(i + 3) % 4], lines[i])?;
        if dist(*o, q[i]) > 2.0 * reach {
            return None;
        }
    }
    Some(out)
}

/// How many standard errors clear of the noise a faint edge's mean step
/// must stand (see [`edged`]) on each half side (the cloth's own texture
/// reaches 5 on one side in a few hundred), ...
const FAINT_EDGE: f32 = 4.5;
/// ... and on the mean of the eight.
const FAINT_CLEAR: f32 = 6.5;
/// How much lighter or darker, in levels, the cloth may be on one side of
/// a faint edge than on the other.
const FAINT_SHADE: f32 = 12.0;

/// How many times the camera's noise the lightness of a back's middle must
/// vary by (see [`shows_design`]).
const DESIGN: f32 = 2.0;
/// The least variation of lightness, in levels, that [`shows_design`]
/// takes for a design: JPEG smooths a plain area's noise away, and a cell
/// of plain cloth still varies by about one level (0.7–0.9 on black felt,
/// against 2.2–3.6 in the middle of a back of fine lines on it).
const MIN_SPREAD: f32 = 1.5;

/// The lightness a back of the deck shows in this frame: the back's, over
/// the paper of the faces read in `dets`. `None` when the deck does not
/// know its back's or fewer than two faces are read.
fn back_shade(frame: &RgbImage, dets: &[(Detected, Source)], id: &dyn Identify) -> Option<f32> {
    Some(id.back_lightness()? * super::cards::faces_paper(frame, dets)?)
}

/// What the cards read so far tell of the cells predicted about them.
#[derive(Clone, Copy)]
pub(super) struct Seen {
    /// The lightness a back shows in this frame (see [`back_shade`]).
    back_shade: Option<f32>,
    /// The chromaticity of the backs read in this frame (their median's,
    /// see [`super::cards::chroma_in`]), if any is.
    back_chroma: Option<(f32, f32)>,
    /// Most backs read show their design ([`shows_design`]).
    backs_show_design: bool,
    /// The table's model tells this deck's faces from the table: a face
    /// is read, and every face read is at most [`FACE_APART`]
    /// table-like.
    faces_apart: bool,
}

impl Seen {
    pub(super) fn of(
        frame: &RgbImage,
        table: Option<&TableModel>,
        dets: &[(Detected, Source)],
        id: &dyn Identify,
    ) -> Seen {
        let faces_apart = table.is_some_and(|t| {
            let mut faces = dets
                .iter()
                .filter(|(d, _)| is_read(d) && matches!(d.token, Some(Token::Up(_))))
                .peekable();
            faces.peek().is_some()
                && faces.all(|(d, _)| t.share_in(frame, &d.corners) <= FACE_APART)
        });
        let backs: Vec<&Detected> = dets
            .iter()
            .filter(|(d, _)| is_read(d) && d.token == Some(Token::Down))
            .map(|(d, _)| d)
            .collect();
        let designed = backs
            .iter()
            .filter(|d| shows_design(frame, &d.corners))
            .count();
        let backs_show_design = 2 * designed > backs.len();
        let backs: Vec<(f32, f32)> = backs
            .iter()
            .filter_map(|d| super::cards::chroma_in(frame, &d.corners))
            .collect();
        let back_chroma = super::cards::median(backs.iter().map(|c| c.0).collect())
            .zip(super::cards::median(backs.iter().map(|c| c.1).collect()));
        Seen {
            back_shade: back_shade(frame, dets, id),
            back_chroma,
            backs_show_design,
            faces_apart,
        }
    }
}

/// Adds a card found to `dets`, marking the outlines left unread within
/// half its short side (`short`) as replaced by it in `replaced`, which
/// runs beside `dets`.
fn add_found(
    dets: &mut Vec<(Detected, Source)>,
    replaced: &mut Vec<bool>,
    found: Detected,
    short: f32,
) {
    for (k, (o, _)) in dets.iter().enumerate() {
        if o.token.is_none() && dist(o.centre, found.centre) < 0.5 * short {
            replaced[k] = true;
        }
    }
    dets.push((found, Source::Colour));
    replaced.push(false);
}

/// Drops the outlines [`add_found`] marked replaced.
fn drop_replaced(dets: &mut Vec<(Detected, Source)>, replaced: &[bool]) {
    let mut k = 0;
    dets.retain(|_| {
        k += 1;
        !replaced[k - 1]
    });
}

/// What the reading of a frame's predicted outlines may spend on the
/// costliest ways of reading one, each a few dozen reads: climbing
/// ([`climb`], a budget for each pass, set by the pass) and fitting to
/// the print ([`fit_print`], a budget for the frame).
pub(super) struct Effort {
    climbs: Cell<usize>,
    fits: Cell<usize>,
    /// The centres of the outlines fitted: a cell predicted again from
    /// another seed is not fitted twice.
    fitted: RefCell<Vec<(f32, f32)>>,
    /// The outlines predicted and read as nothing, each with whether a
    /// read had to hold halfway back: the passes after the first predict
    /// most of the same outlines again.
    unread: RefCell<Vec<(Outline, bool)>>,
    /// The centres of the backs found by their faint edge alone (see
    /// [`edged`]) whose middle shows no design.
    plain_faint: RefCell<Vec<(f32, f32)>>,
}

/// A card's outline: its corners in portrait order.
type Outline = [(f32, f32); 4];

impl Effort {
    pub(super) fn new() -> Self {
        Effort {
            climbs: Cell::new(CLIMB_BUDGET),
            fits: Cell::new(FIT_BUDGET),
            fitted: RefCell::new(Vec::new()),
            unread: RefCell::new(Vec::new()),
            plain_faint: RefCell::new(Vec::new()),
        }
    }

    /// Drops from `dets` the backs found by their faint edge alone with
    /// no design in their middle when another back read shows its
    /// design: a cell of cloth framed by the edges of such backs, touching
    /// it all round, is no plain one of them. (The frame's backs are not
    /// all read when the first faint back is found.)
    pub(super) fn drop_plain_faint(&self, frame: &RgbImage, dets: &mut Vec<(Detected, Source)>) {
        let plain = self.plain_faint.borrow();
        if plain.is_empty() {
            return;
        }
        let faint = |d: &Detected| plain.iter().any(|&c| dist(c, d.centre) < 0.5);
        let designed = dets.iter().any(|(d, _)| {
            is_read(d)
                && d.token == Some(Token::Down)
                && !faint(d)
                && shows_design(frame, &d.corners)
        });
        if designed {
            dets.retain(|(d, _)| !faint(d));
        }
    }

    /// Whether `q` was predicted before and read as nothing, with a read
    /// held to `halfway` or less (a read held halfway back is the
    /// stricter).
    fn read_nothing_at(&self, q: &Outline, halfway: bool) -> bool {
        self.unread.borrow().iter().any(|(u, strict)| {
            (halfway || !strict) && u.iter().zip(q).all(|(a, b)| dist(*a, *b) < SAME_OUTLINE)
        })
    }

    /// Whether the outline predicted at `centre` (of a card `short`
    /// across) may be fitted, counting it if so.
    fn may_fit(&self, centre: (f32, f32), short: f32) -> bool {
        let mut fitted = self.fitted.borrow_mut();
        if self.fits.get() == 0 || fitted.iter().any(|&c| dist(c, centre) < 0.3 * short) {
            return false;
        }
        self.fits.set(self.fits.get() - 1);
        fitted.push(centre);
        true
    }
}

/// Reads the card predicted at `predicted` (centred on `centre`, shaped as
/// the card `r` measures): its outline snapped onto the card's edges,
/// fitted as one rigid card, settled side by side, and as predicted
/// nudged a little each way, in that order, until one reads clearly. With
/// `halfway`, a read at a nudged outline must hold halfway back.
#[allow(clippy::too_many_arguments)]
fn read_predicted(
    frame: &RgbImage,
    hands: &Hands,
    table: Option<&TableModel>,
    id: &dyn Identify,
    r: &Ruler,
    centre: (f32, f32),
    predicted: &[(f32, f32); 4],
    effort: &Effort,
    halfway: bool,
    seen: Seen,
) -> Option<Detected> {
    if effort.read_nothing_at(predicted, halfway) {
        return None;
    }
    let read = read_predicted_anew(
        frame, hands, table, id, r, centre, predicted, effort, halfway, seen,
    );
    if read.is_none() {
        effort.unread.borrow_mut().push((*predicted, halfway));
    }
    read
}

/// [`read_predicted`] for an outline not read as nothing before.
#[allow(clippy::too_many_arguments)]
fn read_predicted_anew(
    frame: &RgbImage,
    hands: &Hands,
    table: Option<&TableModel>,
    id: &dyn Identify,
    r: &Ruler,
    centre: (f32, f32),
    predicted: &[(f32, f32); 4],
    effort: &Effort,
    halfway: bool,
    seen: Seen,
) -> Option<Detected> {
    // A plain back is any plain rectangle: where the table's colour fills
    // the outline (an empty cell), only a face counts. A white face on a
    // white table is still read. A model that takes nearly anything for
    // cloth says nothing of the cell.
    let share = table
        .filter(|m| m.tells_cards())
        .map_or(0.0, |m| m.share_in(frame, predicted));
    let empty = share > EMPTY;
    // Unless the cloth is as dark as the deck's back there (`cloth_back`):
    // a back of the cloth's own colour fills the outline with it too, and
    // is read where it reads surely and its design shows.
    let cloth_back = empty
        && seen.back_shade.is_some_and(|b| {
            let l = super::cards::lightness_in(frame, predicted).0;
            (BACK_SHADE.0 * b..=BACK_SHADE.1 * b).contains(&l)
        })
        && seen.back_chroma.is_none_or(|b| {
            super::cards::chroma_in(frame, predicted)
                .is_some_and(|c| (c.0 - b.0).abs().max((c.1 - b.1).abs()) <= BACK_CHROMA)
        });
    let reach = REACH * r.short;
    // An empty cell with no print in its middle holds no face, and no
    // back but one of the cloth's shade: nothing is read there. (Over the
    // varied sets, four predicted outlines in ten are such cells, and
    // none of them read; each cost an outline fitted three ways.) Nor
    // does bare table where the model tells the faces from it, whatever
    // its middle shows: wood's grain and a plank's seam pass for a
    // design, and each such cell cost 15 ms of fitting a print to the
    // grain (most of the time of a sparse layout on wood).
    let bare = seen.faces_apart && share >= BARE;
    if empty && !cloth_back && (bare || !shows_design(frame, predicted)) {
        return None;
    }
    let read = |snapped: Option<[(f32, f32); 4]>| {
        read_outline(
            frame,
            hands,
            id,
            r,
            centre,
            predicted,
            snapped,
            empty,
            cloth_back,
            &effort.climbs,
        )
    };
    let snapped = outline::snap(frame, predicted, reach, reach, Prefer::Nearest);
    // A back of the cloth's colour: only where a plain back may lie.
    let faint_back = || {
        if empty && !cloth_back {
            return None;
        }
        let q = quad_of(portrait(edged(frame, predicted)?));
        // Where the backs read show their design, a back without it is
        // a cell of cloth framed by its neighbours' edges.
        let design = shows_design(frame, &q.corners);
        if seen.backs_show_design && !design {
            return None;
        }
        let d = judge(frame, hands, &q, id, Source::Region);
        let back = d.token == Some(Token::Down) && d.confidence >= SURE_BACK;
        if back && !design {
            effort.plain_faint.borrow_mut().push(d.centre);
        }
        back.then_some(d)
    };
    let d = read(snapped)
        .or_else(|| read(Some(fit_rigid(frame, predicted, reach)?)))
        .or_else(|| read(Some(settle(frame, predicted, reach)?)))
        .or_else(|| read_nudged(frame, hands, id, r, centre, predicted, halfway, cloth_back))
        .or_else(faint_back)
        .or_else(|| {
            if !effort.may_fit(centre, r.short) {
                return None;
            }
            // Only a face: a plain back fits any plain rectangle.
            let clear = |d: &Detected| {
                is_read(d) && d.confidence >= GROWN_SURE && d.token != Some(Token::Down)
            };
            fit_print(frame, hands, id, r, centre, predicted, &clear)
        })?;
    if !holds_when_moved(frame, hands, id, &d) {
        return None;
    }
    // An outline snapped onto a card's printed frame, a little inside its
    // edge, can misregister a corner code by one module at both corners
    // alike (a blue queen read as a blue knight on a white table): the
    // card read a little larger and a little smaller must not name
    // another.
    let holds = !halfway
        || [1.0 + GROWN_READ, 1.0 - GROWN_READ].into_iter().all(|k| {
            let q = d.corners.map(|p| {
                (
                    d.centre.0 + k * (p.0 - d.centre.0),
                    d.centre.1 + k * (p.1 - d.centre.1),
                )
            });
            let again = judge(frame, hands, &quad_of(q), id, Source::Region);
            again.token.is_none() || again.token == d.token
        });
    holds.then_some(d)
}

/// How near, pixels, each corner of an outline predicted again lies to
/// one read as nothing for it not to be read again.
const SAME_OUTLINE: f32 = 1.0;

/// How far [`holds_when_moved`] lets each side move onto the card's edge,
/// over the card's short side ...
const HOLD_SNAP: f32 = 0.1;
/// ... and how far it shifts the outline each way.
const HOLD_SHIFT: f32 = 0.06;

/// Whether the card `d`, read where an outline was predicted, reads as no
/// other card at that outline snapped again onto the nearest edges, nor
/// shifted a little along each of its four directions. An outline moved
/// until a print fits it, or fitted to edges a few degrees off the
/// card's, can frame another kind's print inside the card (two bars of
/// the stand-in deck's five, a bishop's head turned into a rook's): the
/// card read where it truly lies says otherwise. On frames drawn from the
/// varied sets' specs with other seeds, 4 cards were read wrong so; the
/// committed frames read the same with the check as without.
fn holds_when_moved(frame: &RgbImage, hands: &Hands, id: &dyn Identify, d: &Detected) -> bool {
    let other = |q: &[(f32, f32); 4]| {
        let again = judge(frame, hands, &quad_of(portrait(*q)), id, Source::Region);
        again.token.is_some() && again.token != d.token
    };
    let r = Ruler::of(d);
    let reach = HOLD_SNAP * r.short;
    if outline::snap(frame, &d.corners, reach, reach, Prefer::Nearest).is_some_and(|q| other(&q)) {
        return false;
    }
    let k = HOLD_SHIFT * r.short;
    [
        r.across,
        (-r.across.0, -r.across.1),
        r.along,
        (-r.along.0, -r.along.1),
    ]
    .into_iter()
    .all(|dir| !other(&d.corners.map(|p| (p.0 + k * dir.0, p.1 + k * dir.1))))
}

/// Reads a card whose outline is known only roughly (`rough`: its centre
/// and turn, from a blob the cloth's pattern misshaped) and whose size is
/// `size` (short and long sides): as a neighbour's predicted outline is
/// read ([`read_predicted`]), lying either way round.
#[allow(clippy::too_many_arguments)]
pub(super) fn read_rough(
    frame: &RgbImage,
    hands: &Hands,
    table: Option<&TableModel>,
    id: &dyn Identify,
    rough: &Quad,
    size: (f32, f32),
    seen: Seen,
    effort: &Effort,
) -> Option<Detected> {
    let unread = |corners: [(f32, f32); 4], centre: (f32, f32)| Detected {
        corners,
        centre,
        token: None,
        confidence: 0.0,
    };
    let turn = Ruler::of(&unread(rough.corners, rough.centre));
    let c = rough.centre;
    let (half_short, half_long) = (size.0 / 2.0, size.1 / 2.0);
    let corner = |a: f32, b: f32| {
        (
            c.0 + a * half_short * turn.across.0 + b * half_long * turn.along.0,
            c.1 + a * half_short * turn.across.1 + b * half_long * turn.along.1,
        )
    };
    let seed = unread(
        [
            corner(-1.0, -1.0),
            corner(1.0, -1.0),
            corner(1.0, 1.0),
            corner(-1.0, 1.0),
        ],
        c,
    );
    let (fw, fh) = (frame.width() as f32, frame.height() as f32);
    [seed.clone(), quarter_turned(&seed)]
        .into_iter()
        .map(|d| unread(portrait(d.corners), c))
        .filter(|d| {
            d.corners
                .iter()
                .all(|p| p.0 >= 1.0 && p.1 >= 1.0 && p.0 < fw - 2.0 && p.1 < fh - 2.0)
        })
        .find_map(|d| {
            read_predicted(
                frame,
                hands,
                table,
                id,
                &Ruler::of(&d),
                c,
                &d.corners,
                effort,
                false,
                seen,
            )
        })
}

/// `d` turned a quarter about its centre (its corners still in portrait
/// order once [`portrait`] reorders them).
fn quarter_turned(d: &Detected) -> Detected {
    let c = d.centre;
    Detected {
        corners: d.corners.map(|p| (c.0 - (p.1 - c.1), c.1 + (p.0 - c.0))),
        ..d.clone()
    }
}

/// Seeds for [`grow`] from a block of touching cards: one blob of the
/// colour mask, much larger than a card, whose outline is given as
/// `boundary` (its boundary pixels, sorted by row). The block's convex
/// corners are cards' corners; the boundary near each runs along the
/// card's two sides, which give its turn, and `size` (the typical card's
/// short and long sides, if known) its size; until a card of the block
/// reads, a few corners also scan every size from `least_short` up. Each
/// outline is tried both ways round, snapped and read; what reads clearly
/// is added to `dets`. Returns the size of the first card read (or
/// `size`).
pub(super) fn rim_seeds(
    frame: &RgbImage,
    hands: &Hands,
    boundary: &[(f32, f32)],
    mut size: Option<(f32, f32)>,
    least_short: f32,
    id: &dyn Identify,
    dets: &mut Vec<(Detected, Source)>,
) -> Option<(f32, f32)> {
    let corners = super::cards::hull(boundary);
    let climbs = Cell::new(CLIMB_BUDGET);
    let mut tried: Vec<(f32, f32)> = Vec::new();
    let (mut scanned, mut seeded) = (0, 0);
    for &v in &corners {
        // The typical card may be wrong (a face's inner block is card-shaped
        // too): until a card of the block reads, a few corners also scan
        // every size from the smallest card up.
        let scan = seeded == 0 && scanned < SCAN_CORNERS;
        let mut sizes: Vec<(f32, f32)> = match size {
            Some((s, l)) => RIM_SIZES.iter().map(|k| (k * s, k * l)).collect(),
            None => Vec::new(),
        };
        if scan {
            let top = frame.width().min(frame.height()) as f32 / 4.0;
            sizes.extend(
                std::iter::successors(Some(least_short), |s| Some(s * SCAN_STEP))
                    .take_while(|&s| s <= top)
                    .map(|s| (s, s * CARD_ASPECT)),
            );
        }
        if sizes.is_empty() {
            break;
        }
        let short = sizes[0].0;
        if tried.iter().any(|&t| dist(t, v) < 0.4 * short) {
            continue;
        }
        tried.push(v);
        // The sides' turn, from the directions of the boundary near the
        // corner: a right angle's two sides are one direction modulo a
        // quarter turn (angles times four agree).
        let (mut c4, mut s4, mut n) = (0.0f32, 0.0f32, 0.0f32);
        let mut inward = (0.0f32, 0.0f32);
        for &p in boundary {
            let d = dist(p, v);
            if !(0.15 * short..0.8 * short).contains(&d) {
                continue;
            }
            let (dx, dy) = ((p.0 - v.0) / d, (p.1 - v.1) / d);
            let phi = dy.atan2(dx);
            c4 += (4.0 * phi).cos();
            s4 += (4.0 * phi).sin();
            n += 1.0;
            inward = (inward.0 + dx, inward.1 + dy);
        }
        if n < 8.0 || (c4 * c4 + s4 * s4).sqrt() < 0.6 * n {
            continue;
        }
        if scan {
            scanned += 1;
        }
        let theta = s4.atan2(c4) / 4.0;
        let mut a = (theta.cos(), theta.sin());
        let mut b = (-a.1, a.0);
        if a.0 * inward.0 + a.1 * inward.1 < 0.0 {
            a = (-a.0, -a.1);
        }
        if b.0 * inward.0 + b.1 * inward.1 < 0.0 {
            b = (-b.0, -b.1);
        }
        'sizes: for (s, l) in sizes {
            for (la, lb) in [(s, l), (l, s)] {
                let predicted = [
                    v,
                    (v.0 + a.0 * la, v.1 + a.1 * la),
                    (v.0 + a.0 * la + b.0 * lb, v.1 + a.1 * la + b.1 * lb),
                    (v.0 + b.0 * lb, v.1 + b.1 * lb),
                ];
                let centre = (
                    v.0 + (a.0 * la + b.0 * lb) / 2.0,
                    v.1 + (a.1 * la + b.1 * lb) / 2.0,
                );
                if dets
                    .iter()
                    .any(|(d, _)| is_read(d) && dist(d.centre, centre) < 0.5 * short)
                {
                    break 'sizes;
                }
                let predicted = portrait(predicted);
                let r = Ruler::of(&Detected {
                    corners: predicted,
                    centre,
                    token: None,
                    confidence: 0.0,
                });
                let reach = REACH * s;
                let snap = || outline::snap(frame, &predicted, reach, reach, Prefer::Nearest);
                // A block's corner is far from every read card: its outline
                // is taken only where the sides snap, or a face reads.
                let read = read_outline(
                    frame,
                    hands,
                    id,
                    &r,
                    centre,
                    &predicted,
                    snap(),
                    false,
                    false,
                    &climbs,
                );
                if let Some(d) = read {
                    dets.retain(|(o, _)| {
                        o.token.is_some() || dist(o.centre, d.centre) >= 0.5 * short
                    });
                    let found = Ruler::of(&d);
                    if seeded == 0 {
                        size = Some((found.short, found.long));
                    }
                    seeded += 1;
                    dets.push((d, Source::Colour));
                    break 'sizes;
                }
            }
        }
    }
    size
}

/// The unit normal of the side from `a` to `b` that points away from `c`
/// (the card's centre).
pub(super) fn outward_normal(a: (f32, f32), b: (f32, f32), c: (f32, f32)) -> (f32, f32) {
    let len = dist(a, b).max(1e-3);
    let n = (-(b.1 - a.1) / len, (b.0 - a.0) / len);
    if (a.0 - c.0) * n.0 + (a.1 - c.1) * n.1 < 0.0 {
        (-n.0, -n.1)
    } else {
        n
    }
}

/// The least mean step across a side, in 0–255 levels, for [`settle`]
/// and [`fit_rigid`] to put a side there: a white card's bevel on a
/// white table is a few levels.
const MIN_SIDE_STEP: f32 = 4.0;

/// Samples across a side in [`settle`].
const SETTLE_SAMPLES: usize = 10;

/// The colour step across a side at `p` (the side's outward normal `n`)
/// at each offset `first + j * 2 / per` along the normal, `j` over `out`:
/// the step between the points a pixel before and a pixel after, capped at
/// 60 levels so that one glaring step does not outweigh a line. Offsets
/// are `per` to the two pixels between those points, so each point is
/// sampled once and serves two offsets. An offset with a point outside the
/// frame is 0.
fn step_profile(
    frame: &RgbImage,
    p: (f32, f32),
    n: (f32, f32),
    first: f32,
    per: usize,
    out: &mut [f32],
) {
    let unit = 2.0 / per as f32;
    let points: Vec<Option<[f32; 3]>> = (0..out.len() + per)
        .map(|i| {
            let s = first - 1.0 + i as f32 * unit;
            outline::sample(frame, p.0 + n.0 * s, p.1 + n.1 * s)
        })
        .collect();
    for (j, v) in out.iter_mut().enumerate() {
        *v = match (points[j], points[j + per]) {
            (Some(x), Some(y)) => outline::step(x, y).min(60.0),
            _ => 0.0,
        };
    }
}

/// Moves each side of `q` (a predicted outline, portrait order) onto the
/// straight colour step within `reach` pixels of it that is strongest along
/// the whole side. Each side may move and turn: its two ends move
/// separately, and the pair whose line crosses the most edge wins, a little
/// in favour of the nearer. Scoring the whole line, not each sample's own
/// strongest step, keeps a glyph, a neighbour's print or a table's grain
/// from pulling the side off the card's edge. `None` when some side has too
/// little edge along it.
fn settle(frame: &RgbImage, q: &[(f32, f32); 4], reach: f32) -> Option<[(f32, f32); 4]> {
    let c = centroid(q);
    let steps = (2.0 * reach / 0.5).ceil() as usize + 1;
    let offset = |j: usize| -reach + j as f32 * 0.5;
    let mut lines = Vec::with_capacity(4);
    for i in 0..4 {
        let (a, b) = (q[i], q[(i + 1) % 4]);
        let n = outward_normal(a, b, c);
        // Step strength across the side at each sample and offset: the
        // colour difference between points a pixel either side.
        let ts: Vec<f32> = (0..SETTLE_SAMPLES)
            .map(|k| 0.1 + 0.8 * (k as f32 + 0.5) / SETTLE_SAMPLES as f32)
            .collect();
        let mut prof = vec![0.0f32; SETTLE_SAMPLES * steps];
        for (k, &t) in ts.iter().enumerate() {
            let p = (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t);
            step_profile(
                frame,
                p,
                n,
                -reach,
                4,
                &mut prof[k * steps..(k + 1) * steps],
            );
        }
        // No line scores more than the strongest step at each sample.
        let bound: f32 = prof
            .chunks_exact(steps)
            .map(|p| p.iter().copied().fold(0.0, f32::max))
            .sum();
        if bound < MIN_SIDE_STEP * SETTLE_SAMPLES as f32 {
            return None;
        }
        // The line from offset step `ja` to `jb` crosses sample `k` at
        // step `ja + lean[jb - ja + steps - 1][k]`.
        let lean: Vec<[isize; SETTLE_SAMPLES]> = (0..2 * steps - 1)
            .map(|d| {
                let d = d as f32 - (steps - 1) as f32;
                std::array::from_fn(|k| (d * ts[k]).round() as isize)
            })
            .collect();
        let mut best = (f32::NEG_INFINITY, 0.0f32, 0.0f32, 0.0f32);
        for ja in 0..steps {
            for jb in 0..steps {
                let (oa, ob) = (offset(ja), offset(jb));
                let l = &lean[jb + steps - 1 - ja];
                let mut score = 0.0;
                for (k, &dj) in l.iter().enumerate() {
                    score += prof[k * steps + ja.wrapping_add_signed(dj)];
                }
                let near = 1.0 - 0.25 * (oa.abs() + ob.abs()) / (2.0 * reach);
                if score * near > best.0 {
                    best = (score * near, score, oa, ob);
                }
            }
        }
        // On average a weak edge all along (a white card's bevel on a white
        // table is a few levels).
        if best.1 < MIN_SIDE_STEP * SETTLE_SAMPLES as f32 {
            return None;
        }
        let (oa, ob) = (best.2, best.3);
        lines.push((
            (a.0 + n.0 * oa, a.1 + n.1 * oa),
            (b.0 + n.0 * ob, b.1 + n.1 * ob),
        ));
    }
    corners_of(&lines)
}

/// A straight line through two points.
pub(super) type Line = ((f32, f32), (f32, f32));

/// The outline whose sides lie on `lines` (one per side, in order): each
/// corner where a side's line meets the one before.
pub(super) fn corners_of(lines: &[Line]) -> Option<[(f32, f32); 4]> {
    let mut out = [(0.0, 0.0); 4];
    for (i, o) in out.iter_mut().enumerate() {
        *o = super::cards::intersect(lines[(i + 3) % 4], lines[i])?;
    }
    Some(out)
}

/// The turns [`fit_rigid`] tries, each way, in degrees: cards are laid
/// skewed up to 8° each, so a neighbour is up to 16° off its ruler.
const RIGID_TURNS: [f32; 9] = [0.0, -2.5, 2.5, -5.0, 5.0, -8.0, 8.0, -12.0, 12.0];
/// How much a card's width or length may differ from its neighbour's in
/// [`fit_rigid`]: a camera's tilt changes the scale a little from card to
/// card, not by the twice 3% of the printable deck's band caught inside
/// both sides.
const RIGID_SIZE: f32 = 0.06;
/// How much less a fit counts at the most change in size it may make
/// than at none (0.5 and no penalty: 0.2% fewer cells right over the
/// varied sets, and three more confident-wrong).
const SIZE_PENALTY: f32 = 0.3;

/// Moves `q` (a predicted outline, portrait order) onto the card's edges
/// as one rigid card: turned, shifted up to `reach` each way, and its
/// width and length changed by at most [`RIGID_SIZE`], so that the four
/// sides cross the most edge. Unlike [`settle`], whose sides move apart, a
/// side cannot jump onto a card's printed border or a neighbour's print
/// while the others stay on the card's edge. `None` when some side has too
/// little edge along it.
fn fit_rigid(frame: &RgbImage, q: &[(f32, f32); 4], reach: f32) -> Option<[(f32, f32); 4]> {
    let c = centroid(q);
    let unit = (reach / 14.0).max(0.5);
    let steps = (2.0 * reach / unit).ceil() as usize + 1;
    let offset = |j: usize| -reach + j as f32 * unit;
    // The best fit's score, the outline turned, and its sides' offsets.
    type Fit = (f32, [(f32, f32); 4], [f32; 4]);
    let mut best: Option<Fit> = None;
    for turn in RIGID_TURNS {
        let (sn, cs) = turn.to_radians().sin_cos();
        let r = q.map(|p| {
            let d = (p.0 - c.0, p.1 - c.1);
            (c.0 + d.0 * cs - d.1 * sn, c.1 + d.0 * sn + d.1 * cs)
        });
        // Each side's mean step across it at each offset (outward). A side
        // with no offset strong enough fails the turn: the rest are not
        // sampled.
        let mut profiles: Vec<Vec<f32>> = vec![Vec::new(); 4];
        let mut too_faint = false;
        for i in [0, 2, 1, 3] {
            let (a, b) = (r[i], r[(i + 1) % 4]);
            let n = outward_normal(a, b, c);
            let mut prof = vec![0.0f32; steps];
            for k in 0..SETTLE_SAMPLES {
                let t = 0.1 + 0.8 * (k as f32 + 0.5) / SETTLE_SAMPLES as f32;
                let p = (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t);
                for (j, v) in prof.iter_mut().enumerate() {
                    let o = offset(j);
                    let at = |s: f32| outline::sample(frame, p.0 + n.0 * s, p.1 + n.1 * s);
                    if let (Some(x), Some(y)) = (at(o - 1.0), at(o + 1.0)) {
                        *v += outline::step(x, y).min(60.0) / SETTLE_SAMPLES as f32;
                    }
                }
            }
            if prof.iter().all(|&v| v < MIN_SIDE_STEP) {
                too_faint = true;
                break;
            }
            profiles[i] = prof;
        }
        if too_faint {
            continue;
        }
        // Opposite sides move together: their offsets' sum is the change
        // in size, which is small.
        let mut offsets = [0.0f32; 4];
        let mut score = 0.0;
        for (i, k) in [(0usize, 2usize), (1, 3)] {
            let span = dist(r[(i + 1) % 4], r[(i + 2) % 4]);
            let tol = RIGID_SIZE * span;
            let mut pair = (f32::NEG_INFINITY, 0.0, 0.0);
            for (ji, &pi) in profiles[i].iter().enumerate() {
                for (jk, &pk) in profiles[k].iter().enumerate() {
                    let (oi, ok) = (offset(ji), offset(jk));
                    if (oi + ok).abs() > tol || pi.min(pk) < MIN_SIDE_STEP {
                        continue;
                    }
                    let near = (1.0 - 0.1 * (oi - ok).abs() / (2.0 * reach))
                        * (1.0 - SIZE_PENALTY * (oi + ok).abs() / tol.max(1e-3));
                    if (pi + pk) * near > pair.0 {
                        pair = ((pi + pk) * near, oi, ok);
                    }
                }
            }
            if pair.0 == f32::NEG_INFINITY {
                score = f32::NEG_INFINITY;
                break;
            }
            score += pair.0;
            offsets[i] = pair.1;
            offsets[k] = pair.2;
        }
        if score.is_finite() && best.as_ref().is_none_or(|b| score > b.0) {
            best = Some((score, r, offsets));
        }
    }
    let (_, r, offsets) = best?;
    let mut lines = Vec::with_capacity(4);
    for (i, o) in offsets.iter().enumerate() {
        let (a, b) = (r[i], r[(i + 1) % 4]);
        let n = outward_normal(a, b, c);
        lines.push((
            (a.0 + n.0 * o, a.1 + n.1 * o),
            (b.0 + n.0 * o, b.1 + n.1 * o),
        ));
    }
    corners_of(&lines)
}

/// Reads a neighbour of the card `r` predicted at `predicted` (centred on
/// `centre`) and moved onto the card's edges as `snapped`; `None` unless
/// it is the seed's shape and size, square to it, and reads clearly. A
/// side too faint to snap to (white on white) leaves the outline where it
/// was predicted, and then, as on an outline filled with the table's
/// colour (`empty`), only a face counts: a plain back is any plain
/// rectangle.
#[allow(clippy::too_many_arguments)]
fn read_outline(
    frame: &RgbImage,
    hands: &Hands,
    id: &dyn Identify,
    r: &Ruler,
    centre: (f32, f32),
    predicted: &[(f32, f32); 4],
    snapped: Option<[(f32, f32); 4]>,
    empty: bool,
    cloth_back: bool,
    climbs: &Cell<usize>,
) -> Option<Detected> {
    let q: Quad = quad_of(portrait(snapped.unwrap_or(*predicted)));
    let turn = Ruler::of(&Detected {
        corners: q.corners,
        centre: q.centre,
        token: None,
        confidence: 0.0,
    });
    let square = (turn.across.0 * r.across.0 + turn.across.1 * r.across.1).abs() > 0.95;
    let alike = square
        && (q.aspect - r.aspect).abs() < 0.15
        && (0.7..1.4).contains(&(q.area / r.area))
        && dist(q.centre, centre) < 0.25 * r.short;
    if !alike {
        return None;
    }
    if edge_support(frame, &q.corners) < MIN_SUPPORT {
        return None;
    }
    // A predicted outline is rough: read as one found from the edge map.
    let d = judge(frame, hands, &q, id, Source::Region);
    let plain = empty || snapped.is_none();
    let clear = |d: &Detected| {
        let sure_back = cloth_back && d.confidence >= SURE_BACK && shows_design(frame, &d.corners);
        is_read(d)
            && d.confidence >= GROWN_SURE
            && !(plain && d.token == Some(Token::Down) && !sure_back)
    };
    if clear(&d) {
        return Some(d);
    }
    // A snapped outline that came near to reading may lie on the card's
    // printed frame, a little inside its edge: read a little larger. The
    // larger outline takes in a sliver of table, which can tint the
    // colour of a card's border, so the read must hold at half the
    // growth as well.
    if snapped.is_none() || d.confidence < NEAR_READ {
        return None;
    }
    let grown = |k: f32| {
        q.corners.map(|p| {
            (
                q.centre.0 + k * (p.0 - q.centre.0),
                q.centre.1 + k * (p.1 - q.centre.1),
            )
        })
    };
    let d = judge(
        frame,
        hands,
        &quad_of(grown(1.0 + GROWN_READ)),
        id,
        Source::Region,
    );
    if clear(&d) {
        let half = judge(
            frame,
            hands,
            &quad_of(grown(1.0 + GROWN_READ / 2.0)),
            id,
            Source::Region,
        );
        return (half.token == d.token).then_some(d);
    }
    if d.confidence < CLIMB_NEAR {
        return None;
    }
    // Each climb costs up to two dozen reads: a frame has a budget.
    if climbs.get() == 0 {
        return None;
    }
    climbs.set(climbs.get() - 1);
    climb(frame, hands, id, &q, d.confidence, &clear)
}

/// Moves an outline that came near to reading in small steps (shifted,
/// scaled, turned) while its read comes nearer, and reads it where it
/// reads clearly; kept only when the outline halfway back reads the same,
/// so that no outline tuned to one read stands alone.
fn climb(
    frame: &RgbImage,
    hands: &Hands,
    id: &dyn Identify,
    q: &Quad,
    near: f32,
    clear: &dyn Fn(&Detected) -> bool,
) -> Option<Detected> {
    let c = q.centre;
    let r = Ruler::of(&Detected {
        corners: q.corners,
        centre: c,
        token: None,
        confidence: 0.0,
    });
    let moved = |from: &[(f32, f32); 4], k: usize| moved(from, &r, k, 1.0);
    let mut best = (q.corners, near);
    for _ in 0..CLIMB_ROUNDS {
        let mut next = None;
        for k in 0..8 {
            let m = moved(&best.0, k);
            let d = judge_near(frame, hands, &quad_of(m), id, Source::Region);
            // An outline moved until it reads is held to a surer read.
            if clear(&d) && d.confidence >= SURE_ALONE {
                let half: [(f32, f32); 4] = std::array::from_fn(|i| {
                    (
                        (m[i].0 + q.corners[i].0) / 2.0,
                        (m[i].1 + q.corners[i].1) / 2.0,
                    )
                });
                let back = judge_near(frame, hands, &quad_of(half), id, Source::Region);
                return (back.token == d.token).then_some(d);
            }
            if d.confidence > next.map_or(best.1, |(_, n)| n) {
                next = Some((m, d.confidence));
            }
        }
        best = next?;
    }
    None
}

/// `from` moved by one of eight small steps `k` (shifted either way
/// across or along the card `r` measures, scaled up or down, turned
/// either way), each `scale` times [`CLIMB_STEP`] (or [`CLIMB_TURN`]).
fn moved(from: &[(f32, f32); 4], r: &Ruler, k: usize, scale: f32) -> [(f32, f32); 4] {
    let mid = centroid(from);
    let step = scale * CLIMB_STEP * r.short;
    let (dx, dy, size, turn) = match k {
        0 => (r.across.0 * step, r.across.1 * step, 1.0, 0.0),
        1 => (-r.across.0 * step, -r.across.1 * step, 1.0, 0.0),
        2 => (r.along.0 * step, r.along.1 * step, 1.0, 0.0),
        3 => (-r.along.0 * step, -r.along.1 * step, 1.0, 0.0),
        4 => (0.0, 0.0, 1.0 + scale * CLIMB_STEP, 0.0),
        5 => (0.0, 0.0, 1.0 - scale * CLIMB_STEP, 0.0),
        6 => (0.0, 0.0, 1.0, scale * CLIMB_TURN),
        _ => (0.0, 0.0, 1.0, -scale * CLIMB_TURN),
    };
    let (sin, cos) = turn.to_radians().sin_cos();
    from.map(|p| {
        let (x, y) = (p.0 - mid.0, p.1 - mid.1);
        (
            mid.0 + dx + size * (x * cos - y * sin),
            mid.1 + dy + size * (x * sin + y * cos),
        )
    })
}

/// Fits the outline `q` (predicted at `centre`, for a card `r` measures)
/// to the print inside it, and reads it there. The distance to the
/// nearest kind's print ([`Identify::print_fit`]) changes smoothly as an
/// outline nears its card, where a read's confidence does not: a card
/// 46 px wide predicted 3 px and a few degrees off reads nothing, and
/// reads at 0.8 where it lies. So the outline is moved in steps (shifted,
/// scaled, turned; coarse, then fine) while the print comes nearer,
/// judged as it lies, which is cheap; then a few steps more with the
/// print searched a cell or two about, as a read searches it. A read
/// found so is held as [`climb`]'s is: surer than a read where the
/// outline was predicted, and not another card halfway back.
#[allow(clippy::too_many_arguments)]
fn fit_print(
    frame: &RgbImage,
    hands: &Hands,
    id: &dyn Identify,
    r: &Ruler,
    centre: (f32, f32),
    q: &[(f32, f32); 4],
    clear: &dyn Fn(&Detected) -> bool,
) -> Option<Detected> {
    let first = id.print_fit(frame, q, false)?;
    // A back fits any plain rectangle, and far from every print is no
    // card an outline a few steps off would find.
    if first.distance > FIT_HOPELESS || first.token == Token::Down {
        return None;
    }
    // The nearest print of the outline `from` moved by each of `moves`.
    let nearest_move = |from: &PrintFit, moves: std::ops::Range<usize>, scale, searched| {
        moves
            .filter_map(|k| id.print_fit(frame, &moved(&from.at, r, k, scale), searched))
            .min_by(|a, b| a.distance.total_cmp(&b.distance))
    };
    let mut best = first;
    let mut scale = 2.0;
    for round in 0..FIT_ROUNDS {
        // A print that will be found comes nearer fast: over the varied
        // sets every card fitted and read was within 0.85 of its first
        // distance after three coarse steps, and most cells that never
        // read were not.
        if round == FIT_EARLY_ROUNDS
            && scale > 1.0
            && best.distance > (FIT_EARLY_GAIN * first.distance).max(FIT_NEAR)
        {
            return None;
        }
        match nearest_move(&best, 0..8, scale, false) {
            Some(n) if n.distance < best.distance => best = n,
            // The coarse steps brought no print much nearer: an empty
            // cell, or no card this outline is near.
            _ if scale > 1.0 && best.distance > (FIT_GAIN * first.distance).max(FIT_NEAR) => {
                return None;
            }
            _ if scale > 1.0 => scale = 1.0,
            _ => break,
        }
    }
    // The searched print finds the shift; the steps left are turns and
    // sizes.
    best = id.print_fit(frame, &best.at, true)?;
    for _ in 0..POLISH_ROUNDS {
        match nearest_move(&best, 4..8, 1.0, true) {
            Some(n) if n.distance < best.distance => best = n,
            _ => break,
        }
    }
    if dist(centroid(&best.at), centre) > 0.25 * r.short {
        return None;
    }
    let d = judge(
        frame,
        hands,
        &quad_of(portrait(best.at)),
        id,
        Source::Region,
    );
    if !(clear(&d) && d.confidence >= SURE_ALONE) {
        return None;
    }
    let half: [(f32, f32); 4] =
        std::array::from_fn(|i| ((best.at[i].0 + q[i].0) / 2.0, (best.at[i].1 + q[i].1) / 2.0));
    let back = judge(frame, hands, &quad_of(portrait(half)), id, Source::Region);
    (back.token.is_none() || back.token == d.token).then_some(d)
}

/// The farthest the print inside a predicted outline may lie from the
/// nearest kind's (as it lies) for [`fit_print`] to move it: over the
/// varied sets no outline fitted from further read.
const FIT_HOPELESS: f32 = 1.8;
/// How much nearer (over the first distance) [`fit_print`]'s coarse
/// steps must bring the print, unless it is [`FIT_NEAR`] already ...
const FIT_GAIN: f32 = 0.8;
/// ... a distance at which a print lies near its kind's (cards fitted
/// and read end nearer than 0.15; a cell of cream cloth, nearest a faint
/// yellow letter, stays near 0.7).
const FIT_NEAR: f32 = 0.3;
/// How many outlines of one frame are fitted at most (each costs a few
/// dozen reads' worth of judging).
const FIT_BUDGET: usize = 40;
/// How much nearer the print must have come after [`FIT_EARLY_ROUNDS`]
/// coarse steps for [`fit_print`] to go on.
const FIT_EARLY_GAIN: f32 = 0.85;
const FIT_EARLY_ROUNDS: usize = 3;
/// How many steps [`fit_print`] takes at most as the print lies ...
const FIT_ROUNDS: usize = 12;
/// ... and with it searched.
const POLISH_ROUNDS: usize = 2;

/// How near to reading an outline read a little larger must come for
/// [`climb`] to move it.
const CLIMB_NEAR: f32 = 0.3;
/// One step of [`climb`]: a shift or a change of size, over the card's
/// short side.
const CLIMB_STEP: f32 = 0.03;
/// One turn of [`climb`], degrees.
const CLIMB_TURN: f32 = 2.0;
/// How many outlines [`grow`] (and each of [`reread`] and [`rim_seeds`])
/// climbs at most in one frame.
pub(super) const CLIMB_BUDGET: usize = 20;
/// How many steps [`climb`] takes at most.
const CLIMB_ROUNDS: usize = 3;

/// The least confidence of a read at an outline [`climb`] moved there: an
/// outline tuned to a read is held to a surer one (a 47 px blue king of
/// the silhouette deck was climbed to a rook at 0.66).
const SURE_ALONE: f32 = 0.75;
/// How near to reading (its confidence) a snapped outline must come to be
/// read again a little larger (see [`read_outline`]).
const NEAR_READ: f32 = 0.2;
/// How much larger, over its size, a snapped outline is read again (0.04:
/// 1.0% more cells right over the varied sets; read the other way, 4%
/// smaller, none more, and a blue-framed card is read white).
const GROWN_READ: f32 = 0.04;

/// How far [`read_nudged`] moves an outline, over the card's short side.
const NUDGE: f32 = 0.07;

/// Reads the outline `q` (centred on `centre`) as it lies, then moved a
/// little along each of the card's four directions: a card predicted from
/// its neighbour is off by its own skew and the gap's jitter, a few
/// percent of a card, which the reader's own half-cell search does not
/// reach. No side was snapped, so only a face counts (a plain back is any
/// plain rectangle). With `halfway`, a card read at an outline moved off
/// `q` must read the same at the outline moved half as far: a print read
/// at one exact shift may be a neighbouring kind's.
#[allow(clippy::too_many_arguments)]
fn read_nudged(
    frame: &RgbImage,
    hands: &Hands,
    id: &dyn Identify,
    r: &Ruler,
    centre: (f32, f32),
    q: &[(f32, f32); 4],
    halfway: bool,
    cloth_back: bool,
) -> Option<Detected> {
    let k = NUDGE * r.short;
    let back = |v: (f32, f32)| (-v.0, -v.1);
    [(0.0, 0.0), r.across, r.along, back(r.across), back(r.along)]
        .into_iter()
        .find_map(|d| {
            let moved = q.map(|p| (p.0 + d.0 * k, p.1 + d.1 * k));
            let c = (centre.0 + d.0 * k, centre.1 + d.1 * k);
            let read = read_outline(
                frame,
                hands,
                id,
                r,
                c,
                &moved,
                None,
                true,
                cloth_back,
                &Cell::new(0),
            )?;
            if !halfway || d == (0.0, 0.0) {
                return Some(read);
            }
            // Moved until it reads: the outline halfway back must read the
            // same card, so that no read hangs on one exact shift.
            let half = q.map(|p| (p.0 + d.0 * k / 2.0, p.1 + d.1 * k / 2.0));
            let again = judge(frame, hands, &quad_of(portrait(half)), id, Source::Region);
            (again.token == read.token).then_some(read)
        })
}

/// The least [`edge_support`] of a card predicted from a neighbour, in
/// 0–255 levels: a card's edge is a step all round it (its stock against
/// the table, or its seam with the next card); a patch of wood grain or
/// cloth has steps one way at most.
pub(super) const MIN_SUPPORT: f32 = 8.0;

/// How clearly `q`'s outline is an edge all round: the weakest side's mean
/// step across it (the strongest within a pixel of the side, sampled at
/// ten points along its middle).
pub(super) fn edge_support(frame: &RgbImage, q: &[(f32, f32); 4]) -> f32 {
    let c = centroid(q);
    let mut weakest = f32::INFINITY;
    for i in 0..4 {
        let (a, b) = (q[i], q[(i + 1) % 4]);
        let n = outward_normal(a, b, c);
        let mut sum = 0.0;
        for k in 0..SETTLE_SAMPLES {
            let t = 0.1 + 0.8 * (k as f32 + 0.5) / SETTLE_SAMPLES as f32;
            let p = (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t);
            let at = |s: f32| outline::sample(frame, p.0 + n.0 * s, p.1 + n.1 * s);
            let mut best = 0.0f32;
            for o in [-1.0f32, -0.5, 0.0, 0.5, 1.0] {
                if let (Some(x), Some(y)) = (at(o - 1.0), at(o + 1.0)) {
                    best = best.max(outline::step(x, y));
                }
            }
            sum += best;
        }
        weakest = weakest.min(sum / SETTLE_SAMPLES as f32);
    }
    weakest
}

#[cfg(test)]
mod tests {
    use image::Rgb;

    use super::*;

    #[test]
    fn a_gap_seen_only_between_rows_does_not_fix_the_step_across() {
        let card = |x: f32, y: f32| {
            Ruler::of(&Detected {
                corners: [
                    (x - 30.0, y - 42.0),
                    (x + 30.0, y - 42.0),
                    (x + 30.0, y + 42.0),
                    (x - 30.0, y + 42.0),
                ],
                centre: (x, y),
                token: Some(Token::Down),
                confidence: 0.9,
            })
        };
        // One card above another, a tenth of a card apart: the rows' gap.
        let rows = [card(100.0, 100.0), card(100.0, 190.0)];
        let pitch = layout_pitch_or_gap(&rows, false);
        let (across, along) = pitch.steps(&rows[0]);
        assert_eq!(along.len(), 1);
        assert!((along[0] - 90.0).abs() < 0.5, "{along:?}");
        // Across, every usual gap is tried: the columns may lie apart.
        assert_eq!(across.len(), GAPS_UNKNOWN.len(), "{across:?}");
        // Side by side across, the gap seen is the one step.
        let cols = [card(100.0, 100.0), card(190.0, 100.0)];
        let (across, _) = layout_pitch_or_gap(&cols, false).steps(&cols[0]);
        assert_eq!(across.len(), 1);
        assert!((across[0] - 90.0).abs() < 0.5, "{across:?}");
    }

    /// Whether `p` lies inside the convex quadrilateral `q`.
    fn inside(q: &[(f32, f32); 4], p: (f32, f32)) -> bool {
        (0..4).all(|i| {
            let (a, b) = (q[i], q[(i + 1) % 4]);
            (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0) >= 0.0
        })
    }

    /// A card `short` × `long` px centred on `c`, turned `deg`, corners
    /// clockwise on screen from the top left.
    fn card_at(c: (f32, f32), short: f32, long: f32, deg: f32) -> [(f32, f32); 4] {
        let (sn, cs) = deg.to_radians().sin_cos();
        [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(|(u, v): (f32, f32)| {
            let (x, y) = (u * short / 2.0, v * long / 2.0);
            (c.0 + x * cs - y * sn, c.1 + x * sn + y * cs)
        })
    }

    /// A white card on a cream table, whose edge with it is faint, with
    /// a dark glyph reaching near one long side and one short side:
    /// predicted a few pixels off and unturned, the card is fitted onto
    /// its own edge as a whole (a side moved on its own lands on the
    /// glyph's edge, the strongest line near it).
    #[test]
    fn a_predicted_card_is_fitted_whole_onto_its_faint_edge() {
        let (short, long) = (60.0, 84.0);
        let truth = card_at((100.0, 100.0), short, long, 6.0);
        let glyph = card_at((108.0, 108.0), 0.5 * short, 0.6 * long, 6.0);
        let frame = RgbImage::from_fn(200, 200, |x, y| {
            let p = (x as f32 + 0.5, y as f32 + 0.5);
            if !inside(&truth, p) {
                Rgb([226, 218, 200])
            } else if inside(&glyph, p) {
                Rgb([40, 40, 120])
            } else {
                Rgb([240, 238, 232])
            }
        });
        let predicted = card_at((104.0, 97.0), short, long, 0.0);
        let fitted = fit_rigid(&frame, &predicted, REACH * short).expect("a fit");
        for (f, t) in fitted.iter().zip(&truth) {
            assert!(dist(*f, *t) < 2.0, "fitted {fitted:?}, card {truth:?}");
        }
    }

    #[test]
    fn cards_lying_across_their_cells_have_one_typical_shape_whichever_end_they_start_at() {
        // A card lying across its cell, 0.8 of it long and 0.6 wide, in
        // portrait order (a short side first), its corners jittered; half
        // the cards' corners start at the other end, as they are found.
        let card = [(0.4, -0.3), (0.4, 0.3), (-0.4, 0.3), (-0.4, -0.3)];
        let shapes: Vec<[(f64, f64); 4]> = (0..8)
            .map(|i| {
                let j = 0.01 * f64::from(i % 3) - 0.01;
                let start = if i % 2 == 0 { 0 } else { 2 };
                std::array::from_fn(|k| {
                    let p: (f64, f64) = card[(k + start) % 4];
                    (p.0 + j, p.1 - j)
                })
            })
            .collect();
        let typical = typical_shapes(&shapes);
        assert_eq!(typical.len(), 1, "{typical:?}");
        let sides = |s: &[(f64, f64); 4]| {
            let d = |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).hypot(a.1 - b.1);
            (d(s[0], s[1]), d(s[1], s[2]))
        };
        let (short, long) = sides(&typical[0]);
        assert!(
            (short - 0.6).abs() < 0.03 && (long - 0.8).abs() < 0.03,
            "a card 0.6 by 0.8 of its cell, typical {typical:?}"
        );
    }

    /// A deck's reader that counts the prints it is asked to fit.
    struct CountingFits<'a> {
        id: &'a dyn Identify,
        fits: Cell<usize>,
    }

    impl Identify for CountingFits<'_> {
        fn identify(&self, card: &RgbImage) -> (Option<Token>, f32) {
            self.id.identify(card)
        }
        fn identify_in(&self, frame: &RgbImage, q: &[(f32, f32); 4]) -> (Option<Token>, f32) {
            self.id.identify_in(frame, q)
        }
        fn identify_rough_in(&self, frame: &RgbImage, q: &Outline) -> (Option<Token>, f32) {
            self.id.identify_rough_in(frame, q)
        }
        fn identify_placed_in(
            &self,
            frame: &RgbImage,
            q: &Outline,
            rough: bool,
        ) -> (crate::cards::Read, Outline) {
            self.id.identify_placed_in(frame, q, rough)
        }
        fn identify_placed_near(
            &self,
            frame: &RgbImage,
            q: &Outline,
            rough: bool,
        ) -> (crate::cards::Read, Outline) {
            self.id.identify_placed_near(frame, q, rough)
        }
        fn back_lightness(&self) -> Option<f32> {
            self.id.back_lightness()
        }
        fn back_has_design(&self) -> bool {
            self.id.back_has_design()
        }
        fn print_fit(&self, frame: &RgbImage, q: &Outline, searched: bool) -> Option<PrintFit> {
            self.fits.set(self.fits.get() + 1);
            self.id.print_fit(frame, q, searched)
        }
    }

    /// The printed deck's cards of `grid` on a table of `kind`, 52 px wide
    /// at a pitch of 56, as the demo is filmed.
    fn cards_on(kind: crate::scene::surface::SurfaceKind, grid: &str) -> RgbImage {
        use crate::fixtures::FixtureDeck;
        use crate::scene::surface::Surface;
        use crate::scene::{SceneParams, felt, render};
        use arbiter_core::table::{Cell as Square, Table};
        let table = Table::parse_grid(grid, Square::new(0, 0)).expect("a table");
        let mut params = SceneParams {
            pitch_px: 56.0,
            layout_rotation_deg: 12.0,
            ..SceneParams::clean()
        };
        params.look.surface = Some(Surface::random(kind, 52.0, 11));
        render(
            &table,
            &params,
            &|c| FixtureDeck::Printed.image(c),
            &felt(256, 0),
        )
        .image
    }

    /// The cards found in `frame` and read (their tokens, sorted), and how
    /// many prints were fitted on the way.
    fn read_counting_fits(frame: &RgbImage) -> (Vec<String>, usize) {
        let id = CountingFits {
            id: crate::templates::DeckModel::bundled(),
            fits: Cell::new(0),
        };
        let found = crate::finder::find(frame, &id);
        let mut read: Vec<String> = found
            .cards
            .iter()
            .filter_map(|d| d.token.map(|t| t.to_string()))
            .collect();
        read.sort();
        (read, id.fits.get())
    }

    /// Every cell about a lone card on wood is bare wood, whose grain and
    /// plank seams pass for a print's design, and so are the blobs the
    /// grain makes when the frame is looked at again for its cards: where
    /// the table's model tells the card read from the wood, no print is
    /// fitted there (82 were, each of a dozen reads, most of the frame's
    /// time).
    #[test]
    fn bare_wood_about_a_card_is_not_searched_for_a_print() {
        use crate::scene::surface::SurfaceKind;
        let (read, fits) = read_counting_fits(&cards_on(SurfaceKind::LightWood, "wP"));
        assert_eq!(read, ["wP"]);
        assert_eq!(fits, 0, "prints fitted on bare wood");
    }

    /// The printed deck's navy backs on a blue gingham, a frame of the
    /// demo game filmed on it (`examples/latency --surface gingham`): the
    /// table's colours are its navy, blue and white checks, three quarters
    /// and more of every card, backs and faces alike, and each back was
    /// dropped as a gap between cards, however well its lattice oval read
    /// (the referee then saw no backs, and flagged the moves made on them).
    #[test]
    fn navy_backs_on_a_blue_gingham_are_read_as_backs() {
        let path = concat!(
            concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
            "/fixtures/regressions/demo-gingham-backs.jpg"
        );
        let frame = image::open(path).expect("the fixture frame").to_rgb8();
        let (read, _) = read_counting_fits(&frame);
        assert_eq!(read, ["##", "##", "##", "bP", "wP"]);
    }

    /// Grey slate as light as the deck's navy back is no back of the
    /// cloth's colour (a back the cloth hides is looked for in each cell):
    /// its hue is not the backs' read beside it.
    #[test]
    fn slate_of_the_backs_lightness_is_not_taken_for_a_back() {
        use crate::scene::surface::SurfaceKind;
        let frame = cards_on(SurfaceKind::GreySlate, "wP ##\nbK ##");
        let (read, fits) = read_counting_fits(&frame);
        assert_eq!(read, ["##", "##", "bK", "wP"]);
        assert_eq!(fits, 0, "prints fitted on bare slate");
    }

    /// A cell of plain white table under a lamp's gradient (10 levels
    /// across a card, with a camera's noise of about one level) shows no
    /// design; the same cell crossed by a back's fine lines of a few levels
    /// does.
    #[test]
    fn a_light_gradient_is_no_design_and_fine_lines_are() {
        use rand::{Rng, SeedableRng, rngs::StdRng};
        let cell = card_at((100.0, 100.0), 60.0, 84.0, 8.0);
        let frame = |lines: bool| {
            let mut noise = StdRng::seed_from_u64(7);
            RgbImage::from_fn(200, 200, |x, y| {
                let gradient = 225.0 + 0.2 * x as f32 + 0.05 * y as f32;
                let line = if lines && y % 6 < 2 { -6.0 } else { 0.0 };
                let v = gradient + line + noise.random_range(-1.5..1.5f32);
                Rgb([v.round().clamp(0.0, 255.0) as u8; 3])
            })
        };
        assert!(!shows_design(&frame(false), &cell));
        assert!(shows_design(&frame(true), &cell));
    }

    /// A back of green felt's own colour (a shade darker, its design
    /// blurred away) framed by a shadow line two pixels wide and a dozen
    /// levels dark, in felt
    /// whose noise is as strong as that line: its faint edge is found all
    /// round, a few pixels from where it was predicted; plain felt and a
    /// cell of felt framed by lighter cards are no such card.
    #[test]
    fn a_back_of_the_cloths_colour_is_found_by_its_faint_edge() {
        use rand::{Rng, SeedableRng, rngs::StdRng};
        let (short, long) = (60.0, 84.0);
        let back = card_at((100.0, 110.0), short, long, 5.0);
        let line = card_at((100.0, 110.0), short + 4.0, long + 4.0, 5.0);
        // Cards all round the cell, touching it.
        let around = card_at((100.0, 110.0), short + 40.0, long + 40.0, 5.0);
        // Drawn sharp, softened as a lens does, then noisy.
        let felt = |back_too: bool, framed: bool| {
            let sharp = RgbImage::from_fn(220, 220, |x, y| {
                let p = (x as f32 + 0.5, y as f32 + 0.5);
                Rgb(if framed && !inside(&back, p) && inside(&around, p) {
                    [220, 214, 200]
                } else if back_too && inside(&back, p) {
                    [36, 92, 52]
                } else if back_too && inside(&line, p) {
                    [30, 80, 45]
                } else {
                    [40, 96, 56]
                })
            });
            let mut soft = image::imageops::blur(&sharp, 1.0);
            let mut noise = StdRng::seed_from_u64(11);
            for p in soft.pixels_mut() {
                let n: f32 = noise.random_range(-3.0..3.0);
                p.0 =
                    p.0.map(|c| (f32::from(c) + n).round().clamp(0.0, 255.0) as u8);
            }
            soft
        };
        let predicted = card_at((104.0, 106.0), short, long, 0.0);
        let found = edged(&felt(true, false), &predicted).expect("the back's faint edge");
        for (f, t) in found.iter().zip(&back) {
            // Near enough to read the card at (a tenth of its short
            // side): the shadow line's outer flank is the stronger step,
            // and two half sides measure a side's turn only roughly.
            assert!(dist(*f, *t) < 6.0, "found {found:?}, card {back:?}");
        }
        assert!(
            edged(&felt(false, false), &predicted).is_none(),
            "plain felt"
        );
        assert!(
            edged(&felt(false, true), &predicted).is_none(),
            "framed by cards"
        );
    }
}
