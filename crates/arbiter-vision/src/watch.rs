//! A camera's frames read one after another. A frame that shows what the
//! last one read showed is not read again. One in which, since the table
//! last lay still, only cards on it changed (a SWAP, a FLIP, a card
//! turned), or cards were put down beside them, has just those cards (and
//! the neighbours whose edges they touch) read, where the card before lay
//! or where a card beside the others would lie. Anything else (a hand, a
//! card taken away, the camera bumped, a card put down apart from the
//! others, a card the second look cannot name surely) is read whole, as a
//! single photo is.
//!
//! Reading a whole frame costs a few hundred milliseconds on one core;
//! reading two cards a few tens. The referee's verdict waits on the first
//! read of the first still frame after a move, so this is most of the
//! delay from a card lying still to its flag.

use std::sync::Arc;

use image::RgbImage;

use super::cards::centroid;
use super::cards::{
    Detected, Identify, Outline, Run, bounding_rect, card_shaped, components, dist, median,
    polygon_area, portrait, quad_of, signed_distance,
};
use super::outline::{CLOSE_UP, Prefer, snap};
use super::recognise::{Placed, Reading, Recogniser, Recognition};
use arbiter_core::table::{Cell, Token};

/// A frame reduced to the mean colour of each 8×8 patch of its pixels:
/// fine enough that any card changing (a swap of two faces, a flip, a red
/// piece for a blue one) moves some patch far, coarse enough that sensor
/// noise and a JPEG's blocks do not.
#[derive(Clone, Debug, PartialEq)]
pub struct Patches {
    w: usize,
    h: usize,
    mean: Vec<[u8; 3]>,
}

/// The side of a [`Patches`] patch, pixels.
const PATCH: usize = 8;
/// The most a patch's mean may move in any channel (0–255) for a frame to
/// show what the last one read showed: noise moves an 8×8 mean by a level
/// or two, and a card's glyph moves some patch by tens.
const SAME_PATCH: u8 = 10;

impl Patches {
    pub fn of(image: &RgbImage) -> Patches {
        let (w, h) = (
            image.width() as usize / PATCH,
            image.height() as usize / PATCH,
        );
        let stride = image.width() as usize * 3;
        let raw = image.as_raw();
        let mut mean = vec![[0u8; 3]; w * h];
        let mut row = vec![0u32; w * 3];
        for py in 0..h {
            row.fill(0);
            for y in py * PATCH..(py + 1) * PATCH {
                let line = &raw[y * stride..y * stride + w * PATCH * 3];
                for (px, patch) in line.chunks_exact(PATCH * 3).enumerate() {
                    for p in patch.chunks_exact(3) {
                        row[px * 3] += u32::from(p[0]);
                        row[px * 3 + 1] += u32::from(p[1]);
                        row[px * 3 + 2] += u32::from(p[2]);
                    }
                }
            }
            let n = (PATCH * PATCH) as u32;
            for px in 0..w {
                mean[py * w + px] = std::array::from_fn(|k| ((row[px * 3 + k] + n / 2) / n) as u8);
            }
        }
        Patches { w, h, mean }
    }

    /// `other` shows what this frame shows: the same size, and no patch
    /// moved by more than [`SAME_PATCH`] in any channel. A frame smaller
    /// than a patch is never the same (nothing of it was compared); the
    /// few pixels past the last whole patch are not compared.
    pub fn same(&self, other: &Patches) -> bool {
        !self.mean.is_empty() && self.moved(other).is_some_and(|m| m.is_empty())
    }

    /// The patches (as indices) that moved by more than [`SAME_PATCH`] in
    /// some channel from this frame to `other`; `None` when the frames
    /// differ in size.
    fn moved(&self, other: &Patches) -> Option<Vec<usize>> {
        ((self.w, self.h) == (other.w, other.h)).then(|| {
            let far = |(a, b): (&[u8; 3], &[u8; 3])| {
                a.iter().zip(b).any(|(&x, &y)| x.abs_diff(y) > SAME_PATCH)
            };
            (0..self.mean.len())
                .filter(|&i| far((&self.mean[i], &other.mean[i])))
                .collect()
        })
    }

    /// The centre of patch `i`, in the frame's pixels.
    fn centre(&self, i: usize) -> (f32, f32) {
        let half = PATCH as f32 / 2.0;
        let (x, y) = (i % self.w, i / self.w);
        ((x * PATCH) as f32 + half, (y * PATCH) as f32 + half)
    }

    /// Patch `i` lies along the frame's edge.
    fn on_edge(&self, i: usize) -> bool {
        let (x, y) = (i % self.w, i / self.w);
        x == 0 || y == 0 || x + 1 == self.w || y + 1 == self.h
    }
}

/// Reads a camera's frames in turn (see the module's notes).
pub struct Watcher {
    recogniser: Recogniser,
    /// The last frame read with no hand seen over it, as far as it was
    /// read, and whether a later frame showed it again (the table lay
    /// still).
    latest: Option<(Calm, bool)>,
    /// The last frame that lay still: what a move is read against. A frame
    /// with a hand over the cards is not always seen busy, and must not
    /// be what the table after the move is compared with.
    still: Option<Calm>,
    last: Look,
    /// Frames that changed are read whole, never just their changed cards
    /// (see [`Watcher::whole`]).
    whole_only: bool,
}

/// What a calm frame showed.
#[derive(Clone)]
struct Calm {
    /// The frame itself: what a card put down is told from, pixel by pixel
    /// (see [`Watcher::look_where_changed`]).
    frame: Arc<RgbImage>,
    /// Its patches.
    patches: Patches,
    recognition: Recognition,
    placed: Vec<Placed>,
}

/// How the watcher read a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Look {
    /// Whole, as a photo.
    #[default]
    Whole,
    /// As a calm frame before it: nothing moved. (Its cards seen but not
    /// read are looked at again.)
    Same,
    /// The still frame's reading with this many cards read (again, or
    /// where they were put down beside the others).
    Again(usize),
}

/// The most cards read again in one frame before the whole frame is read:
/// a move changes at most two cells, a capture's FLIP a third, and a card
/// put down a little off where the last one lay moves the patches along
/// its neighbours' edges too.
const MOST_READ_AGAIN: usize = 6;

/// How far outside a card's outline (over its short side) a moved patch
/// may lie and still be taken for that card's: a card put down where
/// another lay is rarely within a pixel of it.
const OUTSIDE: f32 = 0.15;

/// How far a card read again may lie from where the card before it lay
/// (its centre, over its short side) and still be on that cell.
const DRIFT: f32 = 0.2;

/// The least confidence at which a card read again is taken: the reader's
/// own bar for a card it names, and a little more, since the frame is
/// read whole when in doubt.
const SURE_AGAIN: f32 = 0.7;

impl Watcher {
    pub fn new(recogniser: Recogniser) -> Self {
        Watcher {
            recogniser,
            latest: None,
            still: None,
            last: Look::Whole,
            whole_only: false,
        }
    }

    /// A watcher that reads every frame that changed whole, as a photo:
    /// a frame that shows what the last one read showed is still not read
    /// again. What reading just the changed cards saves is measured
    /// against it (`examples/latency.rs --whole`).
    pub fn whole(recogniser: Recogniser) -> Self {
        Watcher {
            whole_only: true,
            ..Watcher::new(recogniser)
        }
    }

    /// Reads the next frame.
    pub fn read(&mut self, frame: &RgbImage) -> Recognition {
        let patches = Patches::of(frame);
        // The last frame read, filmed again: the table lies still.
        if let Some((mut latest, confirmed)) = self.latest.take()
            && latest.patches.same(&patches)
        {
            // A card seen but not read is looked at again in each frame:
            // another frame's noise may let it be read.
            self.look_again_at_unread(&mut latest, frame);
            if !confirmed {
                self.still = Some(latest.clone());
            }
            let recognition = latest.recognition.clone();
            self.latest = Some((latest, true));
            self.last = Look::Same;
            return recognition;
        }
        if let Some(still) = self.still.as_ref().filter(|_| !self.whole_only)
            && let Some(moved) = still.patches.moved(&patches)
        {
            let again = if moved.is_empty() {
                Some((still.clone(), Look::Same))
            } else {
                self.read_again(still, frame, &patches, &moved)
                    .map(|(calm, n)| (calm, Look::Again(n)))
            };
            if let Some((calm, look)) = again {
                let recognition = calm.recognition.clone();
                self.latest = Some((calm, false));
                self.last = look;
                return recognition;
            }
        }
        self.last = Look::Whole;
        let (mut recognition, mut placed) = self.recogniser.recognise_placed(frame);
        if let Some(still) = self.still.as_ref().filter(|_| !recognition.busy) {
            let calibrated = self.recogniser.calibration().is_some();
            keep_unmoved(still, &patches, &mut recognition, &mut placed, calibrated);
            self.look_for_missing(still, frame, &mut recognition, &mut placed, calibrated);
            self.look_where_changed(still, frame, &patches, &mut recognition, &mut placed);
        }
        self.latest = (!recognition.busy).then(|| {
            let calm = Calm {
                frame: Arc::new(frame.clone()),
                patches,
                recognition: recognition.clone(),
                placed,
            };
            (calm, false)
        });
        recognition
    }

    /// How the last frame was read.
    pub fn last_look(&self) -> Look {
        self.last
    }

    /// Looks again for the cards of the `still` table that a whole read
    /// of `frame` did not find, where they would lie now: the still
    /// table is laid over this reading by the shift most of its cards
    /// agree with (the camera may have been nudged, or the whole layout
    /// slid), and each card missing is read where it would lie. One that
    /// reads surely there is taken; a card taken away leaves cloth, which
    /// reads as none. (The demo on gingham: the camera nudged as a queen
    /// was put down, and the first frame after it missed a white bishop;
    /// the referee found the queen's placement unexplained, and every
    /// move after it, thirteen flags.)
    fn look_for_missing(
        &self,
        still: &Calm,
        frame: &RgbImage,
        recognition: &mut Recognition,
        placed: &mut Vec<Placed>,
        calibrated: bool,
    ) {
        let read = |r: &Recognition, p: &Placed| {
            r.cells
                .iter()
                .find(|c| c.cell == p.cell)
                .map(|c| c.token)
                .filter(|&t| t != Token::Unreadable)
        };
        let before: Vec<(&Placed, Token)> = still
            .placed
            .iter()
            .filter_map(|p| Some((p, read(&still.recognition, p)?)))
            .collect();
        let now: Vec<(&Placed, Token)> = placed
            .iter()
            .filter_map(|p| Some((p, read(recognition, p)?)))
            .collect();
        // The cards of `before` that lie, shifted by `by`, where a card of
        // the same kind was read now: each as (before's, now's).
        let agree = |by: (f32, f32)| -> Vec<(&Placed, &Placed)> {
            before
                .iter()
                .filter_map(|&(p, t)| {
                    let (x, y) = centroid(&p.corners);
                    let at = (x + by.0, y + by.1);
                    now.iter()
                        .find(|&&(q, u)| {
                            u == t
                                && dist(centroid(&q.corners), at) <= DRIFT * short_side(&q.corners)
                        })
                        .map(|&(q, _)| (p, q))
                })
                .collect()
        };
        // Every shift that takes a card onto one of its kind read now.
        let shifts = before.iter().flat_map(|&(p, t)| {
            now.iter()
                .filter(move |&&(_, u)| u == t)
                .map(move |&(q, _)| {
                    let (a, b) = (centroid(&p.corners), centroid(&q.corners));
                    (b.0 - a.0, b.1 - a.1)
                })
        });
        let Some(pairs) = shifts
            .map(agree)
            .max_by_key(Vec::len)
            .filter(|pairs| pairs.len() >= 2 && 2 * pairs.len() >= now.len())
        else {
            return;
        };
        let n = pairs.len() as f32;
        let by = pairs.iter().fold((0.0, 0.0), |s, (p, q)| {
            let (a, b) = (centroid(&p.corners), centroid(&q.corners));
            (s.0 + (b.0 - a.0) / n, s.1 + (b.1 - a.1) / n)
        });
        let Some(step) = cell_step(pairs.iter().copied()) else {
            return;
        };
        let mut added = false;
        for (p, _) in &before {
            let there = p.corners.map(|(x, y)| (x + by.0, y + by.1));
            let (x, y) = centroid(&there);
            let found = placed
                .iter()
                .any(|q| dist(centroid(&q.corners), (x, y)) <= DRIFT * short_side(&there));
            let cell = Cell::new(p.cell.col + step.0, p.cell.row + step.1);
            if found || recognition.cells.iter().any(|r| r.cell == cell) {
                continue;
            }
            if let Some((token, confidence, corners)) = self.read_at(frame, &there) {
                recognition.cells.push(Reading {
                    cell,
                    token,
                    confidence,
                });
                placed.push(Placed { cell, corners });
                added = true;
            }
        }
        if added {
            number_again(recognition, placed, calibrated);
        }
    }

    /// Looks for cards put down where the table changed since it lay
    /// still and a whole read of `frame` found none: the camera stands
    /// still, so the pixels that differ from the still frame's, away from
    /// every card read, outline what was put down, whatever the cloth
    /// (a white card on white and blue stripes, whose edges the stripes'
    /// drown, is a clear patch of change). An outline of a card's shape
    /// is read there, and taken when it reads surely; then every card is
    /// placed on its cell again, as a whole read places them. Change that
    /// reaches the frame's edge (an arm) or of no card's size is left.
    fn look_where_changed(
        &self,
        still: &Calm,
        frame: &RgbImage,
        patches: &Patches,
        recognition: &mut Recognition,
        placed: &mut Vec<Placed>,
    ) {
        let Some(moved) = still.patches.moved(patches) else {
            return;
        };
        let explained = |i: usize| {
            placed.iter().any(|p| {
                signed_distance(&p.corners, patches.centre(i)) <= OUTSIDE * short_side(&p.corners)
            })
        };
        let mut open = vec![false; patches.w * patches.h];
        for &i in &moved {
            open[i] = !explained(i);
        }
        // A card's size, from the cards read (patches); any from the
        // narrowest card the camera reads to one held close.
        let card_patches = median(
            placed
                .iter()
                .map(|p| polygon_area(&p.corners) / (PATCH * PATCH) as f32)
                .collect(),
        );
        let (least, most) = match card_patches {
            Some(a) => (CHANGE_SIZE.start * a, CHANGE_SIZE.end * a),
            None => (LEAST_CHANGE, CLOSE_UP * (patches.w * patches.h) as f32),
        };
        let mut found: Vec<Detected> = Vec::new();
        for runs in components(patches.w, patches.h, |i| open[i]) {
            let n: usize = runs.iter().map(|r| (r.x1 - r.x0) as usize).sum();
            let on_edge = runs.iter().any(|r| {
                r.y == 0 || r.y as usize + 1 == patches.h || r.x0 == 0 || r.x1 as usize == patches.w
            });
            if on_edge || !(least..=most).contains(&(n as f32)) {
                continue;
            }
            let Some(outline) = changed_outline(&still.frame, frame, &runs) else {
                continue;
            };
            if let Some((token, confidence, corners)) = self.read_at(frame, &outline) {
                found.push(Detected {
                    corners,
                    centre: centroid(&corners),
                    token: Some(token),
                    confidence,
                });
            }
        }
        if found.is_empty() {
            return;
        }
        let mut dets: Vec<Detected> = placed
            .iter()
            .filter_map(|p| {
                let r = recognition.cells.iter().find(|r| r.cell == p.cell)?;
                Some(Detected {
                    corners: p.corners,
                    centre: centroid(&p.corners),
                    token: (r.token != Token::Unreadable).then_some(r.token),
                    confidence: r.confidence,
                })
            })
            .collect();
        // A cell two cards were read on has no outline: it is not placed
        // again, and the reading is left as it was.
        if dets.len() != recognition.cells.len() {
            return;
        }
        dets.extend(found);
        let (mut again, placed_again) = self.recogniser.place(&dets, frame.dimensions());
        // Every card must land on a cell of its own.
        if again.cells.len() != dets.len() {
            return;
        }
        again.busy = recognition.busy;
        again.note = recognition.note.take();
        *recognition = again;
        *placed = placed_again;
    }

    /// Reads again, in `frame`, the cards of `calm` seen but not read.
    fn look_again_at_unread(&self, calm: &mut Calm, frame: &RgbImage) {
        for p in &mut calm.placed {
            let Some(reading) = calm.recognition.cells.iter_mut().find(|r| r.cell == p.cell) else {
                continue;
            };
            if reading.token != Token::Unreadable {
                continue;
            }
            if let Some((token, confidence, at)) = self.read_at(frame, &p.corners) {
                (reading.token, reading.confidence) = (token, confidence);
                p.corners = at;
            }
        }
    }

    /// The still frame `calm`'s reading with the cards under the `moved`
    /// patches read again in `frame`, and how many; `None` when the frame
    /// must be read whole.
    fn read_again(
        &self,
        calm: &Calm,
        frame: &RgbImage,
        patches: &Patches,
        moved: &[usize],
    ) -> Option<(Calm, usize)> {
        // Each moved patch is taken for the card it lies deepest in, or
        // nearest outside; one on no card's (a card placed beside the
        // layout, a hand's shadow) or on the frame's edge (an arm reaching
        // in) wants the whole frame.
        let mut cards: Vec<usize> = Vec::new();
        // The cells beside the cards, where a card may be put down, each
        // with the outline a card there would have; worked out only when
        // a patch moved off every card.
        let mut beside: Option<Vec<Placed>> = None;
        let mut fresh: Vec<usize> = Vec::new();
        let deepest = |outlines: &mut dyn Iterator<Item = &[(f32, f32); 4]>, at| {
            outlines
                .enumerate()
                .map(|(k, q)| (k, signed_distance(q, at) / short_side(q)))
                .filter(|&(_, d)| d <= OUTSIDE)
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(k, _)| k)
        };
        for &i in moved {
            if patches.on_edge(i) {
                return None;
            }
            let at = patches.centre(i);
            let (list, k) = match deepest(&mut calm.placed.iter().map(|p| &p.corners), at) {
                Some(k) => (&mut cards, k),
                None => {
                    let cells =
                        beside.get_or_insert_with(|| cells_beside(&calm.placed, &calm.recognition));
                    (
                        &mut fresh,
                        deepest(&mut cells.iter().map(|p| &p.corners), at)?,
                    )
                }
            };
            if !list.contains(&k) {
                list.push(k);
                if cards.len() + fresh.len() > MOST_READ_AGAIN {
                    return None;
                }
            }
        }
        let mut recognition = calm.recognition.clone();
        let mut placed = calm.placed.clone();
        for &k in &cards {
            let before = &calm.placed[k];
            let (token, confidence, at) = self.read_at(frame, &before.corners)?;
            let reading = recognition
                .cells
                .iter_mut()
                .find(|r| r.cell == before.cell)?;
            (reading.token, reading.confidence) = (token, confidence);
            placed[k].corners = at;
        }
        let beside = beside.unwrap_or_default();
        for &k in &fresh {
            let cell = beside[k].cell;
            let (token, confidence, corners) = self.read_at(frame, &beside[k].corners)?;
            recognition.cells.push(Reading {
                cell,
                token,
                confidence,
            });
            placed.push(Placed { cell, corners });
        }
        if !fresh.is_empty() {
            renumber(&mut recognition, &mut placed);
        }
        let calm = Calm {
            frame: Arc::new(frame.clone()),
            patches: patches.clone(),
            recognition,
            placed,
        };
        Some((calm, cards.len() + fresh.len()))
    }

    /// Reads the card put down about `outline` (where the card before it
    /// lay, or where one beside the others would lie): at its edges sought
    /// a little either side, else at the outline itself (the snap can be
    /// drawn to a neighbour's edge across a narrow gap, while a card put
    /// down within a few percent of its size of the last one is read at
    /// the last one's outline). The card surely read, its confidence and
    /// the outline it was read at; `None` when not sure, or when it lies
    /// too far off to be on that cell.
    fn read_at(
        &self,
        frame: &RgbImage,
        outline: &[(f32, f32); 4],
    ) -> Option<(Token, f32, Outline)> {
        if self.recogniser.is_coded() {
            return crate::coded::read_at(frame, outline, DRIFT)
                .filter(|&(_, confidence, _)| confidence >= SURE_AGAIN);
        }
        let short = short_side(outline);
        let band = OUTSIDE * short + 2.0;
        let snapped = snap(frame, outline, band, band, Prefer::Nearest).filter(|s| {
            s.iter()
                .zip(outline)
                .all(|(a, b)| dist(*a, *b) <= 1.5 * band)
        });
        let model = self.recogniser.model();
        snapped.iter().chain([outline]).find_map(|q| {
            let ((token, confidence), at) = model.identify_placed_in(frame, q, true);
            let token = token.filter(|_| confidence >= SURE_AGAIN)?;
            let on_cell = dist(centroid(&at), centroid(outline)) <= DRIFT * short;
            on_cell.then_some((token, confidence, at))
        })
    }
}

/// The empty cells beside (or diagonally beside) the cards, each with the
/// outline a card there would have: its neighbour's moved by a cell's
/// step, measured at that neighbour (from the card on its other side, or
/// on this side, along each axis) so that perspective does not add up
/// across the layout. A cell whose steps cannot be measured (a layout one
/// card wide) is not offered.
fn cells_beside(placed: &[Placed], read: &Recognition) -> Vec<Placed> {
    let at = |c: Cell| {
        placed
            .iter()
            .find(|p| p.cell == c)
            .map(|p| centroid(&p.corners))
    };
    let taken = |c: Cell| read.cells.iter().any(|r| r.cell == c);
    let step = |p: &Placed, (dc, dr): (i32, i32)| {
        let here = centroid(&p.corners);
        let back = Cell::new(p.cell.col - dc, p.cell.row - dr);
        let on = Cell::new(p.cell.col + dc, p.cell.row + dr);
        let local = at(back)
            .map(|b| (here.0 - b.0, here.1 - b.1))
            .or_else(|| at(on).map(|n| (n.0 - here.0, n.1 - here.1)));
        local.or_else(|| {
            // Any pair of cards a step apart this way.
            let steps: Vec<(f32, f32)> = placed
                .iter()
                .filter_map(|q| {
                    let n = at(Cell::new(q.cell.col + dc, q.cell.row + dr))?;
                    let c = centroid(&q.corners);
                    Some((n.0 - c.0, n.1 - c.1))
                })
                .collect();
            let xs = super::cards::median(steps.iter().map(|s| s.0).collect())?;
            let ys = super::cards::median(steps.iter().map(|s| s.1).collect())?;
            Some((xs, ys))
        })
    };
    let mut out: Vec<Placed> = Vec::new();
    for p in placed {
        for dr in -1..=1 {
            for dc in -1..=1 {
                let cell = Cell::new(p.cell.col + dc, p.cell.row + dr);
                if (dc, dr) == (0, 0) || taken(cell) || out.iter().any(|o| o.cell == cell) {
                    continue;
                }
                let (Some(across), Some(down)) = (step(p, (1, 0)), step(p, (0, 1))) else {
                    continue;
                };
                let (dx, dy) = (
                    dc as f32 * across.0 + dr as f32 * down.0,
                    dc as f32 * across.1 + dr as f32 * down.1,
                );
                out.push(Placed {
                    cell,
                    corners: p.corners.map(|(x, y)| (x + dx, y + dy)),
                });
            }
        }
    }
    out
}

/// Cells named as a whole frame names them: the layout's first column and
/// row are 0 (see [`crate::lattice`]), and the readings in rows.
fn renumber(recognition: &mut Recognition, placed: &mut [Placed]) {
    let lo_col = recognition
        .cells
        .iter()
        .map(|r| r.cell.col)
        .min()
        .unwrap_or(0);
    let lo_row = recognition
        .cells
        .iter()
        .map(|r| r.cell.row)
        .min()
        .unwrap_or(0);
    let moved = |c: Cell| Cell::new(c.col - lo_col, c.row - lo_row);
    for r in &mut recognition.cells {
        r.cell = moved(r.cell);
    }
    for p in placed {
        p.cell = moved(p.cell);
    }
    recognition.cells.sort_by_key(|r| (r.cell.row, r.cell.col));
}

/// Keeps in a whole reading the cards of the `still` table it missed, or
/// saw but did not read, where not one patch over them moved since the
/// still frame: such a card lies there as it lay, and one taken away,
/// turned or put down again moves the patches over it. (A white bishop
/// on a white-and-blue gingham was missed in one frame of twenty, the
/// first after a hand had passed; the frames after it showed what it
/// showed, so its reading stood until the next move, and the referee
/// flagged a card gone.) The cells of the two readings are matched by the
/// cards both read where the other did; with none, nothing is kept.
fn keep_unmoved(
    still: &Calm,
    patches: &Patches,
    recognition: &mut Recognition,
    placed: &mut Vec<Placed>,
    calibrated: bool,
) {
    let Some(moved) = still.patches.moved(patches) else {
        return;
    };
    let same_place =
        |a: &Outline, b: &Outline| dist(centroid(a), centroid(b)) <= DRIFT * short_side(a);
    let pairs = still.placed.iter().filter_map(|p| {
        let q = placed.iter().find(|q| same_place(&p.corners, &q.corners))?;
        Some((p, q))
    });
    // With nothing read now, the still table's cells stand as they were.
    let step = match cell_step(pairs) {
        Some(step) => step,
        None if placed.is_empty() => (0, 0),
        None => return,
    };
    let mut added = false;
    for p in &still.placed {
        let Some(was) = still.recognition.cells.iter().find(|r| r.cell == p.cell) else {
            continue;
        };
        // As in `read_again`: a moved patch within OUTSIDE of a card's
        // outline is that card's.
        let touched = moved.iter().any(|&i| {
            signed_distance(&p.corners, patches.centre(i)) <= OUTSIDE * short_side(&p.corners)
        });
        if was.token == Token::Unreadable || touched {
            continue;
        }
        match placed.iter().find(|q| same_place(&p.corners, &q.corners)) {
            Some(q) => {
                if let Some(r) = recognition
                    .cells
                    .iter_mut()
                    .find(|r| r.cell == q.cell && r.token == Token::Unreadable)
                {
                    (r.token, r.confidence) = (was.token, was.confidence);
                }
            }
            None => {
                let cell = Cell::new(p.cell.col + step.0, p.cell.row + step.1);
                // Another card read on that cell is taken as read.
                if recognition.cells.iter().any(|r| r.cell == cell) {
                    continue;
                }
                recognition.cells.push(Reading {
                    cell,
                    token: was.token,
                    confidence: was.confidence,
                });
                placed.push(Placed {
                    cell,
                    corners: p.corners,
                });
                added = true;
            }
        }
    }
    if added {
        number_again(recognition, placed, calibrated);
    }
}

/// The step from one reading's cells to another's, as most of the cards
/// both read (each as (the first's, the other's)) say: the two number
/// their cells from their own top left cards. `None` with no card.
fn cell_step<'a>(pairs: impl Iterator<Item = (&'a Placed, &'a Placed)>) -> Option<(i32, i32)> {
    let steps: Vec<(i32, i32)> = pairs
        .map(|(p, q)| (q.cell.col - p.cell.col, q.cell.row - p.cell.row))
        .collect();
    steps
        .iter()
        .max_by_key(|s| steps.iter().filter(|t| t == s).count())
        .copied()
}

/// Orders a reading's cells again once cards were added to it: a
/// calibration's cells are the table's own; else they are numbered from
/// the top left card again.
fn number_again(recognition: &mut Recognition, placed: &mut [Placed], calibrated: bool) {
    if calibrated {
        recognition.cells.sort_by_key(|r| (r.cell.row, r.cell.col));
    } else {
        renumber(recognition, placed);
    }
}

/// The size of a patch of change that may be a card put down, in patches,
/// over a card's size: a card and its shadow cover a card's patches and
/// those its edges cross.
const CHANGE_SIZE: std::ops::Range<f32> = 0.6..2.5;

/// The fewest patches a card put down covers when no card gives the
/// size: a 40 px card is about 35.
const LEAST_CHANGE: f32 = 12.0;

/// The fewest pixels in a piece of change that counts towards a card's
/// outline.
const MIN_PIECE: usize = 12;

/// The least step in some channel (0–255) by which a pixel differs from
/// the still frame's where something was put down: a camera's noise is a
/// few levels, a card on cloth of its own colour tens at its print, its
/// edge and its shadow.
const CHANGED: u8 = 24;

/// The outline of what changed between the frames `before` and `now`
/// over the patches `runs` (and a patch round them): the smallest
/// rectangle round the pixels that differ by [`CHANGED`] (in pieces of
/// some size: a card's paper of the cloth's colour does not differ, its
/// print, frame and edge do), in portrait order. `None` unless it has a
/// card's shape.
fn changed_outline(before: &RgbImage, now: &RgbImage, runs: &[Run]) -> Option<Outline> {
    if before.dimensions() != now.dimensions() {
        return None;
    }
    let (w, h) = (now.width() as usize, now.height() as usize);
    let x0 = runs.iter().map(|r| r.x0 as usize).min()?.saturating_sub(1) * PATCH;
    let x1 = ((runs.iter().map(|r| r.x1 as usize).max()? + 1) * PATCH).min(w);
    let y0 = runs.iter().map(|r| r.y as usize).min()?.saturating_sub(1) * PATCH;
    let y1 = ((runs.iter().map(|r| r.y as usize).max()? + 2) * PATCH).min(h);
    let (bw, bh) = (x1.checked_sub(x0)?, y1.checked_sub(y0)?);
    let (a, b) = (before.as_raw(), now.as_raw());
    let differs: Vec<bool> = (0..bw * bh)
        .map(|k| {
            let i = 3 * ((y0 + k / bw) * w + x0 + k % bw);
            (0..3).any(|c| a[i + c].abs_diff(b[i + c]) >= CHANGED)
        })
        .collect();
    let pieces = components(bw, bh, |k| differs[k]);
    let size = |p: &Vec<Run>| p.iter().map(|r| (r.x1 - r.x0) as usize).sum::<usize>();
    let largest = pieces.iter().map(size).max()?;
    // Specks of noise, or of a JPEG's ringing, are not the card.
    let least = (largest / 50).max(MIN_PIECE);
    let corners: Vec<(f32, f32)> = pieces
        .iter()
        .filter(|p| size(p) >= least)
        .flatten()
        .flat_map(|run| {
            // The run's pixels as squares: its outer corners.
            let (left, right, top) = (
                (x0 + run.x0 as usize) as f32,
                (x0 + run.x1 as usize) as f32,
                (y0 + run.y as usize) as f32,
            );
            let bottom = top + 1.0;
            [(left, top), (right, top), (left, bottom), (right, bottom)]
        })
        .collect();
    let q = quad_of(portrait(bounding_rect(&corners)?));
    card_shaped(q.aspect, 1.0).then_some(q.corners)
}

/// The mean of a card outline's two short sides.
fn short_side(q: &[(f32, f32); 4]) -> f32 {
    ((dist(q[0], q[1]) + dist(q[3], q[2])) / 2.0).max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::FixtureDeck;
    use crate::scene::{HandParams, SceneParams, felt, render};
    use arbiter_core::table::{Cell, Table};

    /// A recording's camera: every card stays put from frame to frame but
    /// those put down anew (`laid_again`), which land a little elsewhere.
    fn shot(text: &str, frame: u64, laid_again: &[(i32, i32)]) -> RgbImage {
        shot_with(text, frame, laid_again, None)
    }

    fn shot_with(
        text: &str,
        frame: u64,
        laid_again: &[(i32, i32)],
        hand: Option<HandParams>,
    ) -> RgbImage {
        shot_from((0, 0), text, frame, laid_again, hand, (0.0, 0.0))
    }

    /// [`shot_with`] of a table whose top left cell is `origin`, with the
    /// camera nudged: the table shows `nudge` cells across and down from
    /// where it lay.
    fn shot_from(
        origin: (i32, i32),
        text: &str,
        frame: u64,
        laid_again: &[(i32, i32)],
        hand: Option<HandParams>,
        nudge: (f32, f32),
    ) -> RgbImage {
        let table = Table::parse_grid(text, Cell::new(origin.0, origin.1)).unwrap();
        let params = SceneParams {
            pitch_px: 80.0,
            layout_rotation_deg: 7.0,
            per_card_skew_deg: 3.0,
            gap_jitter_px: 2.0,
            tilt_deg: 12.0,
            light_gradient: 0.2,
            blur_sigma: 0.6,
            noise_sigma: 2.0,
            jpeg_quality: Some(90),
            anchor: Some((1.5 - nudge.0, 1.0 - nudge.1)),
            laid_again: laid_again
                .iter()
                .map(|&(c, r)| (Cell::new(c, r), 1))
                .collect(),
            hand,
            seed: 5,
            frame,
            ..SceneParams::clean()
        };
        let scene = render(
            &table,
            &params,
            &|c| FixtureDeck::Printed.image(c),
            &felt(128, 3),
        );
        match &scene.jpeg {
            Some(bytes) => image::load_from_memory(bytes).unwrap().to_rgb8(),
            None => scene.image,
        }
    }

    fn truth(text: &str) -> Table {
        Table::parse_grid(text, Cell::new(0, 0)).unwrap()
    }

    const BEFORE: &str = "wN bB ## rQ\nuP ## wK bR\n## yN bP ##\n";
    /// BEFORE with wN and bB swapped, and uP flipped face down.
    const AFTER: &str = "bB wN ## rQ\n## ## wK bR\n## yN bP ##\n";

    /// A still table's reading, as the watcher keeps it.
    fn calm(frame: &RgbImage) -> Calm {
        let (recognition, placed) = Recogniser::bundled().recognise_placed(frame);
        Calm {
            frame: Arc::new(frame.clone()),
            patches: Patches::of(frame),
            recognition,
            placed,
        }
    }

    /// A whole read that lost a card (and saw one it did not read) where
    /// nothing moved since the still table keeps the card as it was read
    /// there; one taken away since is not kept.
    #[test]
    fn a_card_a_whole_read_missed_where_nothing_moved_is_kept() {
        let still = calm(&shot(BEFORE, 1, &[]));
        assert_eq!(still.recognition.table().at_origin(), truth(BEFORE));
        let lose = |c: &mut Calm, cell: Cell| {
            c.recognition.cells.retain(|r| r.cell != cell);
            c.placed.retain(|p| p.cell != cell);
        };
        let blur = |c: &mut Calm, cell: Cell| {
            let r = c.recognition.cells.iter_mut().find(|r| r.cell == cell);
            r.expect("the cell").token = Token::Unreadable;
        };
        // The same table in another frame, read without wN and with rQ
        // unread; then with wN taken away (its patches moved, the cloth
        // shows).
        let gone = ".. bB ## rQ\nuP ## wK bR\n## yN bP ##\n";
        for (text, frame, unread) in [(BEFORE, 2, Some(Cell::new(2, 0))), (gone, 3, None)] {
            let mut later = calm(&shot(text, frame, &[]));
            lose(&mut later, Cell::new(0, 0));
            if let Some(cell) = unread {
                blur(&mut later, cell);
            }
            let Calm {
                patches,
                recognition,
                placed,
                ..
            } = &mut later;
            keep_unmoved(&still, patches, recognition, placed, false);
            assert_eq!(recognition.table().at_origin(), truth(text), "{text}");
        }
    }

    /// A card put down that a whole read did not find is found where the
    /// frame differs from the still one, away from the cards read: beside
    /// a layout, and alone on an empty table (a white card on white and
    /// blue stripes was missed so, and the referee, shown an empty table,
    /// flagged every move after it). What a hand reaching in changes is
    /// not read as a card.
    #[test]
    fn a_card_put_down_that_a_whole_read_missed_is_found_where_the_frame_changed() {
        let w = Watcher::new(Recogniser::bundled());
        let beside = "wN bB ## rQ wQ\nuP ## wK bR ..\n## yN bP ## ..\n";
        for (before, after, put) in [
            (BEFORE, beside, Cell::new(4, 0)),
            ("..", "wP", Cell::new(0, 0)),
        ] {
            let still = calm(&shot(before, 1, &[]));
            let frame = shot(after, 2, &[(put.col, put.row)]);
            let mut later = calm(&frame);
            assert_eq!(later.recognition.table().at_origin(), truth(after));
            later.recognition.cells.retain(|r| r.cell != put);
            later.placed.retain(|p| p.cell != put);
            look_where_changed(&w, &still, &frame, &mut later);
            let read = &later.recognition;
            assert_eq!(read.table().at_origin(), truth(after), "{after}");
            assert_eq!(later.placed.len(), read.cells.len());
        }
        // A hand reaching over the table, not seen busy, and a reading
        // that lost every card: what the hand changed is read as no card.
        let hand = HandParams {
            reach: 0.45,
            from_deg: Some(200.0),
            size: 1.0,
        };
        let still = calm(&shot("wP", 1, &[]));
        let frame = shot_with("wP", 2, &[], Some(hand));
        let mut later = calm(&frame);
        later.recognition.cells.clear();
        later.placed.clear();
        look_where_changed(&w, &still, &frame, &mut later);
        assert!(
            later.recognition.cells.is_empty(),
            "{:?}",
            later.recognition.cells
        );
    }

    /// [`Watcher::look_where_changed`] over a later frame's reading.
    fn look_where_changed(w: &Watcher, still: &Calm, frame: &RgbImage, later: &mut Calm) {
        let Calm {
            patches,
            recognition,
            placed,
            ..
        } = later;
        w.look_where_changed(still, frame, patches, recognition, placed);
    }

    /// The camera nudged (the layout moved by half a card and more) and a
    /// whole read lost a card: it is read where the nudge put it. One
    /// taken away as the camera moved (wN) is not found again.
    #[test]
    fn a_card_a_whole_read_missed_is_looked_for_where_the_camera_moved_it() {
        let w = Watcher::new(Recogniser::bundled());
        let still = calm(&shot(BEFORE, 1, &[]));
        for (text, lost) in [
            (BEFORE, Cell::new(1, 1)),
            (".. bB ## rQ\nuP ## wK bR\n## yN bP ##\n", Cell::new(1, 0)),
        ] {
            let frame = shot_from((0, 0), text, 2, &[], None, (-0.6, 0.3));
            let mut later = calm(&frame);
            assert_eq!(later.recognition.table().at_origin(), truth(text));
            // A card the read missed: the back below bB in the first
            // table, bB itself in the second (where wN is gone too).
            let (r, p) = (&mut later.recognition, &mut later.placed);
            r.cells.retain(|c| c.cell != lost);
            p.retain(|c| c.cell != lost);
            w.look_for_missing(&still, &frame, r, p, false);
            assert_eq!(r.table().at_origin(), truth(text), "{text}");
        }
    }

    #[test]
    fn a_still_table_is_read_once_and_a_move_reads_just_the_cards_it_changed() {
        let mut w = Watcher::new(Recogniser::bundled());
        let first = w.read(&shot(BEFORE, 1, &[]));
        assert_eq!(w.last_look(), Look::Whole);
        assert_eq!(first.table().at_origin(), truth(BEFORE));
        // The same table, filmed again with other sensor noise.
        assert_eq!(w.read(&shot(BEFORE, 2, &[])), first);
        assert_eq!(w.last_look(), Look::Same);
        // The SWAP and the FLIP: three cards, each put down a little off
        // where the card before lay.
        let moved = [(0, 0), (1, 0), (0, 1)];
        let frame = shot(AFTER, 3, &moved);
        let after = w.read(&frame);
        assert!(
            matches!(w.last_look(), Look::Again(3..=MOST_READ_AGAIN)),
            "{:?}",
            w.last_look()
        );
        assert_eq!(after.table().at_origin(), truth(AFTER));
        // As the whole frame reads.
        assert_eq!(
            after.table(),
            Recogniser::bundled().recognise(&frame).table()
        );
        // And that table filmed again is still.
        assert_eq!(w.read(&shot(AFTER, 4, &moved)).table(), after.table());
        assert_eq!(w.last_look(), Look::Same);
    }

    /// The A/B mode latency is measured against: a still table is still
    /// read once, but a move is read whole, and to the same table.
    #[test]
    fn the_whole_watcher_reads_every_change_whole() {
        let mut w = Watcher::whole(Recogniser::bundled());
        let first = w.read(&shot(BEFORE, 1, &[]));
        assert_eq!(first.table().at_origin(), truth(BEFORE));
        assert_eq!(w.read(&shot(BEFORE, 2, &[])), first);
        assert_eq!(w.last_look(), Look::Same);
        let moved = [(0, 0), (1, 0), (0, 1)];
        let after = w.read(&shot(AFTER, 3, &moved));
        assert_eq!(w.last_look(), Look::Whole);
        assert_eq!(after.table().at_origin(), truth(AFTER));
        w.read(&shot(AFTER, 4, &moved));
        assert_eq!(w.last_look(), Look::Same);
    }

    #[test]
    fn a_card_put_down_beside_the_others_is_read_where_it_lies() {
        let mut w = Watcher::new(Recogniser::bundled());
        w.read(&shot(BEFORE, 1, &[]));
        w.read(&shot(BEFORE, 2, &[]));
        // Left of the layout: every cell is named anew from the new first
        // column, as the whole frame names them.
        let placed = ".. wN bB ## rQ\nwB uP ## wK bR\n.. ## yN bP ##\n";
        let frame = shot_from((-1, 0), placed, 3, &[], None, (0.0, 0.0));
        let read = w.read(&frame);
        assert!(
            matches!(w.last_look(), Look::Again(1..=MOST_READ_AGAIN)),
            "{:?}",
            w.last_look()
        );
        assert_eq!(read.table().at_origin(), truth(placed));
        assert_eq!(
            read.table(),
            Recogniser::bundled().recognise(&frame).table()
        );
        // Diagonally beside the corner.
        let corner = ".. wN bB ## rQ ..\nwB uP ## wK bR ..\n.. ## yN bP ## ..\n.. .. .. .. .. yQ\n";
        let frame = shot_from((-1, 0), corner, 4, &[], None, (0.0, 0.0));
        let read = w.read(&frame);
        assert!(
            matches!(w.last_look(), Look::Again(_)),
            "{:?}",
            w.last_look()
        );
        assert_eq!(read.table().at_origin(), truth(corner));
    }

    #[test]
    fn a_card_put_down_apart_or_taken_away_reads_the_whole_frame() {
        let mut w = Watcher::new(Recogniser::bundled());
        w.read(&shot(BEFORE, 1, &[]));
        w.read(&shot(BEFORE, 2, &[]));
        // A cell's width from the layout: beside no card.
        let apart = "wN bB ## rQ .. wB\nuP ## wK bR .. ..\n## yN bP ## .. ..\n";
        let read = w.read(&shot(apart, 3, &[]));
        assert_eq!(w.last_look(), Look::Whole);
        assert_eq!(read.table().at_origin(), truth(apart));
        w.read(&shot(apart, 4, &[]));
        assert_eq!(w.last_look(), Look::Same);
        // A card taken away: its cell reads nothing surely.
        let taken = "wN bB ## rQ .. wB\nuP ## .. bR .. ..\n## yN bP ## .. ..\n";
        let read = w.read(&shot(taken, 5, &[]));
        assert_eq!(w.last_look(), Look::Whole);
        assert_eq!(read.table().at_origin(), truth(taken));
    }

    #[test]
    fn the_table_after_a_hand_is_compared_with_the_table_before_it() {
        let mut w = Watcher::new(Recogniser::bundled());
        w.read(&shot(BEFORE, 1, &[]));
        w.read(&shot(BEFORE, 2, &[]));
        // A hand over the cards, seen busy or not: read whole, and never
        // what the next frame is read against.
        let hand = HandParams {
            reach: 0.45,
            from_deg: Some(200.0),
            size: 1.0,
        };
        let moved = [(0, 0), (1, 0), (0, 1)];
        w.read(&shot_with(AFTER, 3, &moved, Some(hand)));
        assert_eq!(w.last_look(), Look::Whole);
        let after = w.read(&shot(AFTER, 4, &moved));
        assert!(
            matches!(w.last_look(), Look::Again(3..=MOST_READ_AGAIN)),
            "{:?}",
            w.last_look()
        );
        assert_eq!(after.table().at_origin(), truth(AFTER));
    }

    #[test]
    fn light_that_changes_over_the_whole_table_reads_the_whole_frame() {
        let mut w = Watcher::new(Recogniser::bundled());
        let frame = shot(BEFORE, 1, &[]);
        w.read(&frame);
        let mut dimmer = frame.clone();
        for p in dimmer.pixels_mut() {
            p.0 = p.0.map(|v| (f32::from(v) * 0.8) as u8);
        }
        let read = w.read(&dimmer);
        assert_eq!(w.last_look(), Look::Whole);
        assert_eq!(read.table().at_origin(), truth(BEFORE));
    }

    /// Whatever changes on a table changes some 8×8 patch far more than a
    /// new frame's noise does: two 40 px faces swapped, and a blue pawn
    /// put where a red one lay, are each a new frame to read.
    #[test]
    fn any_card_changing_is_a_frame_to_read_again() {
        let params = |frame: u64| SceneParams {
            pitch_px: 46.0,
            layout_rotation_deg: 17.0,
            tilt_deg: 20.0,
            blur_sigma: 0.8,
            noise_sigma: 2.5,
            jpeg_quality: Some(70),
            frame,
            ..SceneParams::clean()
        };
        let cloth = felt(128, 3);
        let shot = |text: &str, frame: u64| {
            let t = Table::parse_grid(text, Cell::new(0, 0)).unwrap();
            let s = render(
                &t,
                &params(frame),
                &|c| FixtureDeck::Printed.image(c),
                &cloth,
            );
            let img = match &s.jpeg {
                Some(bytes) => image::load_from_memory(bytes).unwrap().to_rgb8(),
                None => s.image,
            };
            Patches::of(&img)
        };
        let before = shot("wN wB rP ##\n## bQ uK wR\n", 1);
        assert!(
            before.same(&shot("wN wB rP ##\n## bQ uK wR\n", 2)),
            "noise alone"
        );
        assert!(
            !before.same(&shot("wB wN rP ##\n## bQ uK wR\n", 2)),
            "a swap"
        );
        assert!(
            !before.same(&shot("wN wB uP ##\n## bQ uK wR\n", 2)),
            "another colour"
        );
    }
}
