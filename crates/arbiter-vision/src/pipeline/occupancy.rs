//! Occupancy: for each cell the lattice predicts, empty or occupied, told
//! cheaply against the table's colours without identifying anything.
//!
//! The table's colours are a histogram of the frame outside every card
//! found, learned from the frame itself. A cell's middle is sampled on a
//! small grid through its outline; the share of samples whose colour the
//! table seldom shows is how foreign the cell is. A card there (paper,
//! ink or a back) is foreign; the table is not.
//!
//! Occupied cells are walked outward: the four neighbours of each
//! occupied cell are predicted by the lattice, refined onto the edges
//! there, and judged in turn, so cards touching in long rows are reached
//! from the one the finder saw alone.

use std::collections::VecDeque;

use arbiter_core::table::{Cell, Token};
use image::RgbImage;

use super::finding::{Found, refine};
use super::geometry::{Homography, Quad, add, scale, sub};
use super::lattice::{Lattice, SEED_DISTANCE};
use super::plane::{Plane, luma8};

/// Colour bins per channel of the table's histogram.
const LEVELS: usize = 8;
const BINS: usize = LEVELS * LEVELS * LEVELS;

/// The table's colours: how often each bin shows outside the cards.
#[derive(Clone, Debug)]
pub struct TableColours {
    share: Vec<f32>,
}

fn bin(p: &[u8]) -> usize {
    let q = |v: u8| usize::from(v) * LEVELS / 256;
    (q(p[0]) * LEVELS + q(p[1])) * LEVELS + q(p[2])
}

impl TableColours {
    /// Learns the table's colours from the frame's outer band, every
    /// fourth pixel, outside the cards found (grown by a fifth). The band
    /// is cut into stretches round the frame, and a colour's share is the
    /// share of stretches that show it: the cloth shows all round, while a
    /// card the finder missed, or an arm, reaching in at one place of the
    /// edge shows in one or two.
    pub fn learn(frame: &RgbImage, cards: &[Found]) -> TableColours {
        let grown: Vec<Quad> = cards.iter().map(|c| c.quad.scaled(1.2)).collect();
        let (w, h) = frame.dimensions();
        let band = (w.min(h) as f32 * 0.08) as u32;
        // Stretches: the perimeter position of a band pixel, in STRETCHES
        // equal parts.
        let perimeter = 2.0 * (w + h) as f32;
        let along = |x: u32, y: u32| -> f32 {
            let (x, y) = (x as f32, y as f32);
            let (wf, hf) = (w as f32, h as f32);
            let d = [y, wf - x, hf - y, x];
            let side = (0..4).min_by(|&i, &j| d[i].total_cmp(&d[j])).unwrap_or(0);
            match side {
                0 => x,
                1 => wf + y,
                2 => wf + hf + (wf - x),
                _ => 2.0 * wf + hf + (hf - y),
            }
        };
        let mut hists = vec![vec![0f32; BINS]; STRETCHES];
        let mut totals = vec![0f32; STRETCHES];
        for y in (2..h).step_by(4) {
            for x in (2..w).step_by(4) {
                let p = (x as f32, y as f32);
                let in_band = x < band || y < band || x + band >= w || y + band >= h;
                if !in_band || grown.iter().any(|q| q.contains(p)) {
                    continue;
                }
                let k = ((along(x, y) / perimeter * STRETCHES as f32) as usize).min(STRETCHES - 1);
                hists[k][bin(&frame.get_pixel(x, y).0)] += 1.0;
                totals[k] += 1.0;
            }
        }
        let mut shown = vec![0f32; BINS];
        let mut stretches = 0.0f32;
        for (hist, total) in hists.iter().zip(&totals) {
            if *total < 8.0 {
                continue;
            }
            stretches += 1.0;
            for (i, &n) in hist.iter().enumerate() {
                if n / total >= 0.02 {
                    shown[i] += 1.0;
                }
            }
        }
        // Each bin takes its neighbours' too: a lighter, darker or
        // slightly tinted patch of the same cloth falls in the next bin.
        let mut share = vec![0f32; BINS];
        let ok = |v: i32| (0..LEVELS as i32).contains(&v);
        for r in 0..LEVELS as i32 {
            for g in 0..LEVELS as i32 {
                for b in 0..LEVELS as i32 {
                    let mut s = 0.0f32;
                    for dr in -1..=1 {
                        for dg in -1..=1 {
                            for db in -1..=1 {
                                let (rr, gg, bb) = (r + dr, g + dg, b + db);
                                if ok(rr) && ok(gg) && ok(bb) {
                                    let k =
                                        ((rr * LEVELS as i32 + gg) * LEVELS as i32 + bb) as usize;
                                    s = s.max(shown[k]);
                                }
                            }
                        }
                    }
                    share[((r * LEVELS as i32 + g) * LEVELS as i32 + b) as usize] =
                        s / stretches.max(1.0);
                }
            }
        }
        TableColours { share }
    }

    /// Whether fewer than `rare` of the band's stretches show this colour.
    pub fn foreign(&self, p: &[u8], rare: f32) -> bool {
        self.share[bin(p)] < rare
    }
}

/// What a cell's middle shows: the share of samples whose colour the
/// table seldom shows, and the spread of their lightness.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Look {
    pub foreign: f32,
    pub spread: f32,
}

/// Samples the middle of `quad` on a small grid.
pub fn look(frame: &RgbImage, quad: &Quad, table: &TableColours) -> Option<Look> {
    let hg = Homography::square_to(quad)?;
    let (w, h) = frame.dimensions();
    let (nu, nv) = (8, 11);
    let (mut n, mut foreign) = (0u32, 0u32);
    let (mut sum, mut sq) = (0f32, 0f32);
    for j in 0..nv {
        for i in 0..nu {
            let u = 0.15 + 0.7 * (i as f32 + 0.5) / nu as f32;
            let v = 0.15 + 0.7 * (j as f32 + 0.5) / nv as f32;
            let (x, y) = hg.apply((u, v));
            if x < 0.0 || y < 0.0 || x >= w as f32 - 0.5 || y >= h as f32 - 0.5 {
                continue;
            }
            n += 1;
            let p = frame.get_pixel(x.round() as u32, y.round() as u32).0;
            foreign += u32::from(table.foreign(&p, RARE));
            let l = f32::from(luma8(p[0], p[1], p[2]));
            sum += l;
            sq += l * l;
        }
    }
    if n < (nu * nv / 2) as u32 {
        return None;
    }
    let nf = n as f32;
    let mean = sum / nf;
    Some(Look {
        foreign: foreign as f32 / nf,
        spread: (sq / nf - mean * mean).max(0.0).sqrt(),
    })
}

/// How cell-sized patches of the bare table look: the 95th percentile of
/// their foreign share and lightness spread, over patches of the frame's
/// outer band shaped like `quad`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BareTable {
    pub foreign: f32,
    pub spread: f32,
}

impl BareTable {
    pub fn measure(
        frame: &RgbImage,
        quad: &Quad,
        table: &TableColours,
        avoid: &[Quad],
    ) -> BareTable {
        let (w, h) = (frame.width() as f32, frame.height() as f32);
        let c = quad.centre();
        let r = quad.width().max(4.0);
        let mut looks: Vec<Look> = Vec::new();
        let step = r * 1.5;
        let mut y = r;
        while y < h - r {
            let mut x = r;
            while x < w - r {
                let band = x < 0.12 * w || x > 0.88 * w || y < 0.15 * h || y > 0.85 * h;
                let at = (x, y);
                if band
                    && !avoid.iter().any(|q| q.contains(at))
                    && let Some(l) = look(frame, &quad.translated((x - c.0, y - c.1)), table)
                {
                    looks.push(l);
                }
                x += step;
            }
            y += step;
        }
        // Cards the finder missed may lie in the band too: the median and
        // the median deviation hold while most of the band is table.
        let robust = |mut v: Vec<f32>| {
            if v.is_empty() {
                return (0.0, 0.0);
            }
            v.sort_by(f32::total_cmp);
            let m = v[v.len() / 2];
            let mut d: Vec<f32> = v.iter().map(|x| (x - m).abs()).collect();
            d.sort_by(f32::total_cmp);
            (m, d[d.len() / 2])
        };
        let (fm, fd) = robust(looks.iter().map(|l| l.foreign).collect());
        let (sm, sd) = robust(looks.iter().map(|l| l.spread).collect());
        BareTable {
            foreign: fm + 4.0 * fd,
            spread: sm + 4.0 * sd,
        }
    }

    /// Whether a cell looks unlike the bare table.
    pub fn occupied(&self, l: &Look) -> bool {
        l.foreign >= OCCUPIED.max(self.foreign + 0.25)
            || l.spread > self.spread.max(4.0) * 1.5 + 4.0
    }
}

/// A colour shown in fewer than this share of the band's stretches is
/// foreign to the table.
const RARE: f32 = 0.25;
/// Stretches the frame's band is cut into.
const STRETCHES: usize = 32;

/// One cell judged.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    pub cell: Cell,
    pub quad: Quad,
    /// The card finding saw there, if any.
    pub found: Option<usize>,
    /// Share of the cell's middle the table seldom shows.
    pub foreign: f32,
    /// The deck's distance to its nearest face, as the outline lies.
    pub fit: Option<f32>,
}

/// A deck distance on a predicted cell's outline close enough that no
/// other placing of it is tried (a card named is within 0.9).
const CLOSE_FIT: f32 = 0.5;

/// The most cells a walk judges.
const MAX_CELLS: usize = 600;

/// How far, over a card's width, a predicted cell's sides are sought.
const PREDICTED_REACH: f32 = 0.25;

/// The least foreign share of an occupied cell.
const OCCUPIED: f32 = 0.45;

/// Every occupied cell: the cards found, and cards reached from them
/// across the lattice. A predicted cell is a card when, on its outline
/// refined onto the edges there (or as predicted), the deck's nearest face
/// is within [`SEED_DISTANCE`] (`nearest`); the walk goes on only from
/// such cells, so an outline that drifted off its card does not lead the
/// walk further astray. A cell unlike the bare table that the deck does
/// not recognise is kept (for the reading to judge) but not walked from.
pub fn survey(
    frame: &RgbImage,
    full: &Plane,
    found: &[Found],
    lattice: &mut Lattice,
    table: &TableColours,
    step: f32,
    nearest: &dyn Fn(&Quad) -> Option<(Token, f32)>,
) -> Vec<Judged> {
    let mut out: Vec<Judged> = Vec::new();
    let mut queue: VecDeque<Cell> = VecDeque::new();
    let mut seen: std::collections::HashSet<Cell> = std::collections::HashSet::new();
    // Each found card placed on the lattice is judged occupied and the
    // walk starts from it.
    type Seen = std::collections::HashSet<Cell>;
    let start_from = |cards: &mut dyn Iterator<Item = usize>,
                      lattice: &Lattice,
                      seen: &mut Seen,
                      out: &mut Vec<Judged>,
                      queue: &mut VecDeque<Cell>| {
        for i in cards {
            let Some(cell) = lattice.of_found[i] else {
                continue;
            };
            if !seen.insert(cell) {
                continue;
            }
            let quad = found[i].quad;
            out.push(Judged {
                cell,
                quad,
                found: Some(i),
                foreign: look(frame, &quad, table).unwrap_or_default().foreign,
                fit: None,
            });
            queue.push_back(cell);
        }
    };
    start_from(
        &mut (0..found.len()),
        lattice,
        &mut seen,
        &mut out,
        &mut queue,
    );
    let (w, h) = (full.width as f32, full.height as f32);
    // The first card placed (the one nearest the middle) stands for a
    // cell's shape (a HashMap's order would make the reading differ from
    // run to run).
    let Some(typical) = lattice.cells.get(&Cell::new(0, 0)).map(|p| p.quad) else {
        return out;
    };
    let avoid: Vec<Quad> = found.iter().map(|f| f.quad.scaled(1.3)).collect();
    let bare = BareTable::measure(frame, &typical, table, &avoid);
    // A frame holds a few hundred cards at most: a walk past that has lost
    // its pitch.
    let mut budget = MAX_CELLS;
    loop {
        let Some(cell) = queue.pop_front() else {
            // The walk is done: found cards it brought within reach are
            // placed, and the walk goes on from them.
            let more = lattice.attach(found);
            if more.is_empty() {
                break;
            }
            start_from(
                &mut more.into_iter(),
                lattice,
                &mut seen,
                &mut out,
                &mut queue,
            );
            continue;
        };
        for (dc, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let next = Cell::new(cell.col + dc, cell.row + dr);
            if !seen.insert(next) {
                continue;
            }
            if budget == 0 {
                return out;
            }
            budget -= 1;
            let Some(pred) = lattice.predict(next) else {
                continue;
            };
            let c = pred.centre();
            if c.0 < 0.0 || c.1 < 0.0 || c.0 >= w || c.1 >= h {
                continue;
            }
            // Occupancy first, cheaply: a cell whose middle looks like the
            // bare table where it was predicted holds no card, and the deck
            // is not asked (most cells the walk tries, round the edge of
            // the layout, are such). Its middle only: a prediction a little
            // off still has the card there.
            if look(frame, &pred.scaled(0.6), table).is_none_or(|l| !bare.occupied(&l)) {
                continue;
            }
            let refined = refine(full, &pred, step, None, PREDICTED_REACH)
                .filter(|(q, s)| *s >= 0.5 && q.corner_distance(&pred) < 0.3 * pred.width())
                .map(|(q, _)| q);
            // The outline refined onto the edges there, or as predicted,
            // each also moved a tenth of a card each way: the one the deck
            // finds nearest a face.
            let step_u = scale(sub(pred.0[1], pred.0[0]), 0.1);
            let step_v = scale(sub(pred.0[3], pred.0[0]), 0.1);
            let mut tries: Vec<Quad> = Vec::with_capacity(10);
            tries.extend(refined);
            for (a, b) in [(0.0, 0.0), (1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)] {
                tries.push(pred.translated(add(scale(step_u, a), scale(step_v, b))));
            }
            // A close fit on the refined outline needs no other placing.
            let d = |x: &Option<(Token, f32)>| x.map_or(f32::MAX, |(_, d)| d);
            let mut best: (Quad, Option<(Token, f32)>) = (pred, None);
            for q in tries {
                let n = nearest(&q);
                if d(&n) < d(&best.1) {
                    best = (q, n);
                }
                if d(&best.1) <= CLOSE_FIT {
                    break;
                }
            }
            let (quad, nearest_face) = best;
            let fit = nearest_face.map(|(_, d)| d);
            let Some(l) = look(frame, &quad, table) else {
                continue;
            };
            // A back is one design, and a plain or dark one is near a patch
            // of cloth: it counts only where the cell is unlike the table.
            let card = nearest_face.is_some_and(|(t, d)| {
                d <= SEED_DISTANCE && (t != Token::Down || bare.occupied(&l))
            });
            if card || bare.occupied(&l) {
                out.push(Judged {
                    cell: next,
                    quad,
                    found: None,
                    foreign: l.foreign,
                    fit: fit.filter(|_| card),
                });
            }
            if card {
                lattice.place(next, quad);
                queue.push_back(next);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A green cloth with one white card reaching in at its edge: the
    /// cloth's colour is the table's, the card's paper is not, though it
    /// lies in the band the table is learned from.
    #[test]
    fn a_card_at_the_frame_edge_does_not_teach_the_table_its_colour() {
        let mut frame = RgbImage::from_pixel(320, 180, image::Rgb([30, 110, 50]));
        for y in 0..40 {
            for x in 100..140 {
                frame.put_pixel(x, y, image::Rgb([240, 240, 235]));
            }
        }
        let table = TableColours::learn(&frame, &[]);
        assert!(!table.foreign(&[30, 110, 50], RARE));
        assert!(!table.foreign(&[34, 116, 54], RARE));
        assert!(table.foreign(&[240, 240, 235], RARE));
        // A cell of the paper is foreign through, one of cloth not at all.
        let paper = Quad([(105.0, 5.0), (135.0, 5.0), (135.0, 35.0), (105.0, 35.0)]);
        let cloth = paper.translated((100.0, 80.0));
        assert_eq!(look(&frame, &paper, &table).unwrap().foreign, 1.0);
        assert_eq!(look(&frame, &cloth, &table).unwrap().foreign, 0.0);
    }
}
