//! The first stage of recognition: finding the cards in a frame and reading
//! each one.
//!
//! Blobs come from one of two paths. On any table but a plain green felt,
//! from [`super::outline`]: the edge map's regions and holes, and the
//! pixels unlike the table's colour learned from the frame; hands are
//! found there by their shape ([`Hands`]), and what the edge map alone
//! found is kept only where the faces read vouch for its size. On a plain
//! green felt, for now, from the hue classes below (the path the felt
//! fixtures were tuned on). Steps 2–6 are shared.
//!
//! 1. **Mask (felt path).** A pixel is *felt* when green clearly dominates it in
//!    chromaticity (`g - max(r, b)` over `r + g + b`, which a light gradient
//!    or a shadow does not change); *skin* when it is warm (`r > g > b` with
//!    blue well above zero, unlike yellow ink). Everything else is card-like:
//!    white stock, inks, the navy back.
//! 2. **Blobs.** Four-connected components of the card-like mask, labelled
//!    run by run; tiny ones are dropped.
//! 3. **Quadrilateral.** A minimum-area rectangle around the blob's hull
//!    gives four rough sides; the blob's boundary pixels near each side are
//!    fitted with a line (trimmed least squares), and neighbouring lines meet
//!    in the corners, which follows perspective. The corners are ordered so
//!    that the first side is a short one (portrait).
//! 4. **Touching cards.** Skewed, jittered or quarter-turned neighbours
//!    often touch or overlap at a corner and make one blob. A blob that is
//!    not card-shaped, or much larger than the typical card, is split by its
//!    distance transform: the cores deeper than a fraction of half a card's
//!    short side are the cards, each core grown back gives a rough rectangle,
//!    and the blob's boundary pixels nearest to it refine it as in step 3.
//! 5. **Identity.** The card is read by an [`Identify`] (by default
//!    [`CornerCode`]: the corner code, failing that the back, failing that
//!    `None`). A quadrilateral that is not card-shaped, or that skin touches,
//!    is never given a token.
//! 6. **Throne pairs.** A blob that is neither a card nor cards touching,
//!    but the outline of two cards squared with each other, one pushed out
//!    from under the other by a third to nine tenths of a card's short side
//!    (the table convention: the partner under the king, half a card's width
//!    off the board), is read as a pair: the top card whole by the
//!    [`Identify`], the card under it by the one corner code its exposed
//!    end shows (so only the printable deck's pairs are read). The pair is
//!    placed where the top card lies; a pair not read both ways is seen but
//!    not read.
//!
//! Coordinates are frame pixels with pixel `(x, y)` centred on the integer
//! point `(x, y)`, as in [`crate::scene`].

use image::{Rgb, RgbImage};

use crate::outline::{self, Edges, Prefer, Source, TableModel};
use crate::print::classic::{corner_code_centres, read_corner_code, read_corner_code_at};
pub(super) use crate::shapes::{Line, Run, bilinear, components, fit_line, intersect};
use arbiter_core::table::{Card, Token};

/// A card's height over its width (63 x 88 mm).
pub const CARD_ASPECT: f32 = 88.0 / 63.0;

/// Width of a rectified card.
pub const RECT_W: u32 = 186;
/// Height of a rectified card.
pub const RECT_H: u32 = 260;

/// A card's outline in the frame: four corners.
pub type Outline = [(f32, f32); 4];
/// What an identifier makes of a card: its token, if named, and how sure.
pub type Read = (Option<Token>, f32);

/// One card found in a frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Detected {
    /// Portrait order: top-left, top-right, bottom-right, bottom-left of the
    /// card as rectified (which end is the top is not decided: either upright
    /// orientation reads the same). They lie on the card's outer edge.
    pub corners: [(f32, f32); 4],
    pub centre: (f32, f32),
    /// `Some(Token::Up(card))` from the corner code, `Some(Token::Down)` for a
    /// back, `None` when the card was seen but not read.
    pub token: Option<Token>,
    /// 0–1: how sure the detector is of the token (of the card's presence
    /// when `token` is `None`).
    pub confidence: f32,
}

/// The least share of felt in an outline for [`FeltClasses::bare`].
const BARE_CELL: f32 = 0.9;

/// Fewest pixels a blob must have to be considered a card.
pub(crate) const MIN_AREA: usize = 120;

const FELT: u8 = 0;
const CARD: u8 = 1;
const SKIN: u8 = 2;

/// The class of one pixel. Integer forms of the chromaticity tests: they
/// run on every pixel of every frame, and a division per pixel costs more
/// than the rest of the test.
#[inline]
fn class_of(r: u8, g: u8, b: u8) -> u8 {
    let (r, g, b) = (i32::from(r), i32::from(g), i32::from(b));
    // (g - max(r, b)) / (r + g + b + 1) > 0.07
    if 100 * (g - r.max(b)) > 7 * (r + g + b + 1) {
        return FELT;
    }
    // r > g > b, b > 0.35 r, r - g > 0.1 r, 0.3 (r - g) < g - b < 1.1 (r - g)
    let skin = r > g
        && g > b
        && 20 * b > 7 * r
        && 10 * (r - g) > r
        && 10 * (g - b) < 11 * (r - g)
        && 10 * (g - b) > 3 * (r - g)
        && r > 50;
    if skin { SKIN } else { CARD }
}

/// The least share of the frame one patch of skin covers to be a hand on
/// green felt.
const SKIN_HAND: f32 = 0.002;
/// The side, in pixels, of the cells skin is counted in (see
/// [`FeltClasses::hand_present`]); a cell a quarter skin is skin.
const SKIN_CELL: usize = 4;

/// The green-felt path's pixel classes (see [`class_of`]).
pub(crate) struct FeltClasses {
    w: usize,
    h: usize,
    class: Vec<u8>,
    /// Pixels of each class.
    pub(crate) felt: usize,
    skin: usize,
    /// The pixels not felt that join a side of the frame (a hand comes in
    /// from outside it, a sleeve or not), labelled when first asked for:
    /// most frames have no skin that could be a hand.
    reaching: std::cell::OnceCell<Vec<bool>>,
}

impl FeltClasses {
    /// The outline `q` holds felt and little else (an empty cell): of a
    /// grid of points over its middle, this share or more are felt.
    pub(crate) fn bare(&self, q: &[(f32, f32); 4]) -> bool {
        const N: usize = 6;
        let mut felt = 0;
        for i in 0..N {
            for j in 0..N {
                // Inside the quadrilateral's outer tenth.
                let (u, v) = (
                    0.1 + 0.8 * (i as f32 + 0.5) / N as f32,
                    0.1 + 0.8 * (j as f32 + 0.5) / N as f32,
                );
                let (x, y) = bilinear(q, u, v);
                let (x, y) = (x.round() as usize, y.round() as usize);
                if x < self.w && y < self.h && self.class[y * self.w + x] == FELT {
                    felt += 1;
                }
            }
        }
        felt as f32 >= BARE_CELL * (N * N) as f32
    }

    pub(crate) fn new(frame: &RgbImage) -> FeltClasses {
        let (w, h) = (frame.width() as usize, frame.height() as usize);
        let class: Vec<u8> = frame
            .as_raw()
            .chunks_exact(3)
            .map(|p| class_of(p[0], p[1], p[2]))
            .collect();
        let felt = class.iter().filter(|&&c| c == FELT).count();
        let skin = class.iter().filter(|&&c| c == SKIN).count();
        FeltClasses {
            w,
            h,
            class,
            felt,
            skin,
            reaching: std::cell::OnceCell::new(),
        }
    }

    /// Which pixels may be a hand's: those not felt that join a side of
    /// the frame. A hand or a hand in a sleeve reaches in from outside the
    /// frame, while a card's paper turned skin-coloured by a warm light
    /// lies on the felt.
    fn reaching(&self) -> &[bool] {
        self.reaching.get_or_init(|| {
            let (w, h) = (self.w, self.h);
            let mut reaching = vec![false; w * h];
            for runs in components(w, h, |i| self.class[i] != FELT) {
                if reaches_side(&runs, w, h) {
                    for r in &runs {
                        let row = r.y as usize * w;
                        reaching[row + r.x0 as usize..row + r.x1 as usize].fill(true);
                    }
                }
            }
            reaching
        })
    }

    /// The share of the frame in pixels of no felt or skin colour that
    /// join a side of the frame.
    pub(crate) fn cloth_reaching(&self) -> f32 {
        let n = self
            .class
            .iter()
            .zip(self.reaching())
            .filter(|&(&c, &r)| c == CARD && r)
            .count();
        n as f32 / (self.w * self.h).max(1) as f32
    }

    /// A hand over the felt: one patch of skin-coloured pixels large
    /// enough for a hand. The skin-coloured print of many cards (yellow and
    /// red pieces) adds up to as many pixels, but each patch of it is small.
    pub(crate) fn hand_present(&self) -> bool {
        let least = (SKIN_HAND * (self.w * self.h) as f32) as usize;
        if self.skin <= least {
            return false;
        }
        let reaching = self.reaching();
        // Counted in cells of a few pixels: dim, dark skin is classed in
        // specks that touch only across a cell.
        let (cw, ch) = (self.w / SKIN_CELL, self.h / SKIN_CELL);
        let mut in_cell = vec![0usize; cw * ch];
        for y in 0..ch * SKIN_CELL {
            for x in 0..cw * SKIN_CELL {
                let i = y * self.w + x;
                if self.class[i] == SKIN && reaching[i] {
                    in_cell[(y / SKIN_CELL) * cw + x / SKIN_CELL] += 1;
                }
            }
        }
        let skin_cell = SKIN_CELL * SKIN_CELL / 4;
        components(cw, ch, |i| in_cell[i] >= skin_cell)
            .iter()
            .any(|runs| {
                let pixels: usize = runs
                    .iter()
                    .flat_map(|r| (r.x0..r.x1).map(move |x| r.y as usize * cw + x as usize))
                    .map(|i| in_cell[i])
                    .sum();
                pixels > least
            })
    }

    /// The blobs of card pixels.
    pub(crate) fn blobs(&self) -> Vec<outline::Blob> {
        let (w, h) = (self.w, self.h);
        components(w, h, |i| self.class[i] == CARD)
            .into_iter()
            .map(|runs| outline::Blob::of_runs(runs, Source::Colour, w, h))
            .collect()
    }

    /// Skin patches (a lone skin-coloured pixel is noise on ink).
    pub(crate) fn hands(&self) -> Hands {
        let (w, h, c) = (self.w, self.h, &self.class);
        let mut mask = Vec::new();
        if self.skin > 0 {
            mask = vec![false; w * h];
            for y in 1..h.saturating_sub(1) {
                for x in 1..w.saturating_sub(1) {
                    let i = y * w + x;
                    mask[i] = c[i] == SKIN
                        && c[i - 1] == SKIN
                        && c[i + 1] == SKIN
                        && c[i - w] == SKIN
                        && c[i + w] == SKIN;
                }
            }
            if mask.iter().any(|&m| m) {
                for (m, &r) in mask.iter_mut().zip(self.reaching()) {
                    *m &= r;
                }
            }
            if !mask.iter().any(|&m| m) {
                mask.clear();
            }
        }
        Hands {
            w,
            h,
            scale: 1,
            mask,
        }
    }
}

/// The component `runs` of a `w`×`h` grid touches a side of it.
fn reaches_side(runs: &[Run], w: usize, h: usize) -> bool {
    let (w, h) = (w as u32, h as u32);
    runs.iter()
        .any(|r| r.y == 0 || r.y + 1 == h || r.x0 == 0 || r.x1 == w)
}

/// Tells which card a rectified card image shows.
pub trait Identify {
    /// `card` is [`RECT_W`]×[`RECT_H`], portrait, either way up. The token
    /// (`Token::Down` for a back) and a confidence in 0–1; `None` when the
    /// card cannot be read with confidence.
    fn identify(&self, card: &RgbImage) -> (Option<Token>, f32);

    /// Reads the card whose outline in `frame` is `corners` (portrait order,
    /// as in [`Detected`]). The default rectifies the whole card with
    /// [`rectify`] and calls [`Identify::identify`]; an identifier that
    /// needs less of the card may sample less of it.
    fn identify_in(&self, frame: &RgbImage, corners: &[(f32, f32); 4]) -> (Option<Token>, f32) {
        self.identify(&rectify(frame, corners))
    }

    /// As [`Identify::identify_in`], for an outline found from the edge
    /// map rather than from the card's own pixels, which may be a pixel or
    /// two off: an identifier whose check is weak asks for more.
    fn identify_rough_in(
        &self,
        frame: &RgbImage,
        corners: &[(f32, f32); 4],
    ) -> (Option<Token>, f32) {
        self.identify_in(frame, corners)
    }

    /// As [`Identify::identify_in`] (or, when `rough`,
    /// [`Identify::identify_rough_in`]), and the outline the card was read
    /// at: an identifier may find a card's print a little larger, smaller
    /// or shifted against an outline a little off its edge, and the card
    /// lies where its print is.
    fn identify_placed_in(
        &self,
        frame: &RgbImage,
        corners: &[(f32, f32); 4],
        rough: bool,
    ) -> (Read, Outline) {
        let read = if rough {
            self.identify_rough_in(frame, corners)
        } else {
            self.identify_in(frame, corners)
        };
        (read, *corners)
    }

    /// As [`Identify::identify_placed_in`], with the print sought only
    /// about the outline given, not followed further: for an outline that
    /// a search is itself moving onto the print (see `grow::climb`). With
    /// following inside the climb as well, a 44 px blue pawn on gingham
    /// was climbed to an outline that read as the blue king; with the
    /// climb's reads looking once, it was not.
    fn identify_placed_near(
        &self,
        frame: &RgbImage,
        corners: &[(f32, f32); 4],
        rough: bool,
    ) -> (Read, Outline) {
        self.identify_placed_in(frame, corners, rough)
    }

    /// The back's mean lightness over the faces' paper, as the deck was
    /// learned: a dark back is far darker than a face's paper under any
    /// light, so a card read as that back while as light as the faces read
    /// beside it is a face washed out by glare. `None`: not known.
    fn back_lightness(&self) -> Option<f32> {
        None
    }

    /// The deck's back carries a design bold enough to be seen at the
    /// reader's grid (a picture, a large pattern): no plain patch of table
    /// reads as it, so a card read as the back is one whatever colour the
    /// table is. `false`: plain, or not known.
    fn back_has_design(&self) -> bool {
        false
    }

    /// How near the print inside `corners` lies to the nearest kind's,
    /// for fitting an outline to a card's print: the kind, its distance
    /// (lower is nearer; it changes smoothly as the outline moves, where a
    /// read's confidence does not) and the outline shifted to where that
    /// kind's print was found. `searched`: the print is looked for a
    /// little about the outline (costlier), else judged as it lies.
    /// `None`: not measured, or nothing to sample.
    fn print_fit(
        &self,
        _frame: &RgbImage,
        _corners: &[(f32, f32); 4],
        _searched: bool,
    ) -> Option<PrintFit> {
        None
    }
}

/// What [`Identify::print_fit`] found.
#[derive(Debug, Clone, Copy)]
pub struct PrintFit {
    /// The kind whose print lies nearest.
    pub token: Token,
    /// How far its print lies (the reader's mean distance).
    pub distance: f32,
    /// The outline shifted onto that print.
    pub at: [(f32, f32); 4],
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

    /// Both corner codes must read, and agree: one code alone is too weak
    /// a check for a rough outline (its one-module correction names a card
    /// for a tenth of random patterns, such as a back's corner seen through
    /// an outline a little off), and the back is tested first for the same
    /// reason.
    fn identify_rough_in(
        &self,
        frame: &RgbImage,
        corners: &[(f32, f32); 4],
    ) -> (Option<Token>, f32) {
        let card = rectify_to(frame, corners, RECT_W, RECT_H, 0.0);
        if is_back(&card) {
            return (Some(Token::Down), 0.9);
        }
        match (
            read_corner_code_at(&card, false),
            read_corner_code_at(&card, true),
        ) {
            (Some(a), Some(b)) if a == b => (Some(Token::Up(a)), 0.95),
            _ => (None, 0.5),
        }
    }

    /// Both the code and the back are read at any scale, so the card is
    /// rectified at about its size in the frame rather than at
    /// [`RECT_W`]: upsampling adds no detail, and rectifying is most of the
    /// cost of detection.
    fn identify_in(&self, frame: &RgbImage, corners: &[(f32, f32); 4]) -> (Option<Token>, f32) {
        let short = (dist(corners[0], corners[1]) + dist(corners[3], corners[2])) / 2.0;
        let w = (READ_SCALE * short).clamp(MIN_READ_W, RECT_W as f32);
        let h = w * RECT_H as f32 / RECT_W as f32;
        let card = rectify_to(frame, corners, w.round() as u32, h.round() as u32, 0.0);
        match self.identify(&card) {
            // The small image's sampling is coarser: a code it misses may
            // still read at full size.
            (None, _) if card.width() < RECT_W => {
                self.identify(&rectify_to(frame, corners, RECT_W, RECT_H, 0.0))
            }
            read => read,
        }
    }

    /// The printed deck's back: a lattice oval on navy.
    fn back_has_design(&self) -> bool {
        true
    }
}

/// Rectified width over the card's width in the frame, for [`CornerCode`].
const READ_SCALE: f32 = 1.0;
/// Narrowest rectification [`CornerCode`] reads.
const MIN_READ_W: f32 = 64.0;

/// The most of the frame that pixels of neither felt's nor skin's colour,
/// joined to the frame's sides, cover on green felt (see [`crate::finder::find`]).
pub(crate) const CLOTH_REACHING: f32 = 0.2;

/// The middle value (the upper of the two middle ones), if any.
pub(super) fn median(mut v: Vec<f32>) -> Option<f32> {
    v.sort_by(f32::total_cmp);
    v.get(v.len() / 2).copied()
}

/// The median area and short side of card-shaped outlines.
pub(crate) fn median_size(shaped: &[(&Quad, Source)]) -> (Option<f32>, Option<f32>) {
    (
        median(shaped.iter().map(|(q, _)| q.area).collect()),
        median(shaped.iter().map(|(q, _)| q.short).collect()),
    )
}

/// How far apart, as a ratio of areas, two outlines may be and still be
/// one size of card.
const SIZE_BAND: f32 = 1.3;

/// How many outlines of one size are read to learn whether faces read at
/// that size.
const SIZE_SAMPLE: usize = 6;

/// The typical card's area and short side, from the card-shaped outlines
/// of the surest source (`trusted`): their median, unless no face reads at
/// that size while faces read at a larger size among `all`. A checked
/// cloth's checks are card-shaped at a tilt and far outnumber the cards,
/// and a picture printed on a card is found by its colour where the card
/// is not; every card is then "oversized" and none is read. The size at
/// which faces read is the cards'.
pub(crate) fn typical_size(
    frame: &RgbImage,
    id: &dyn Identify,
    trusted: &[(&Quad, Source)],
    all: &[(&Quad, Source)],
) -> (Option<f32>, Option<f32>) {
    let (Some(median_area), median_short) = median_size(trusted) else {
        return (None, None);
    };
    let alike = |a: f32, b: f32| a.max(b) < SIZE_BAND * a.min(b);
    let no_hands = Hands::none();
    // How many of (up to) a sample of the outlines about `area` read as a
    // face; one card found twice is read once.
    let faces_at = |area: f32, need: usize| {
        let mut near: Vec<&(&Quad, Source)> =
            all.iter().filter(|(q, _)| alike(q.area, area)).collect();
        near.sort_by(|a, b| (a.0.area - area).abs().total_cmp(&(b.0.area - area).abs()));
        let mut read: Vec<(f32, f32)> = Vec::new();
        let mut faces = 0;
        for (q, source) in near {
            if read.len() == SIZE_SAMPLE || faces == need {
                break;
            }
            if read.iter().any(|&c| dist(c, q.centre) < 0.35 * q.short) {
                continue;
            }
            read.push(q.centre);
            let d = judge(frame, &no_hands, q, id, *source);
            if matches!(d.token, Some(Token::Up(_))) {
                faces += 1;
            }
        }
        faces
    };
    if faces_at(median_area, 1) > 0 {
        return (Some(median_area), median_short);
    }
    // The larger sizes, the most common first. (At a smaller size than
    // the cards' lie the pictures printed on them, some of which a
    // forgiving deck reads as faces.)
    let mut left: Vec<&(&Quad, Source)> = all
        .iter()
        .filter(|(q, _)| q.area > SIZE_BAND * median_area)
        .collect();
    for _ in 0..3 {
        let Some(mode) = left
            .iter()
            .max_by_key(|(a, _)| left.iter().filter(|(b, _)| alike(a.area, b.area)).count())
            .map(|(q, _)| q.area)
        else {
            break;
        };
        if faces_at(mode, 2) >= 2 {
            let size: Vec<(&Quad, Source)> = left
                .iter()
                .filter(|(q, _)| alike(q.area, mode))
                .map(|&&x| x)
                .collect();
            return median_size(&size);
        }
        left.retain(|(q, _)| !alike(q.area, mode));
    }
    (Some(median_area), median_short)
}

/// `q` (portrait order: short side first) cut in two across its long
/// sides.
pub(crate) fn halves(q: &[(f32, f32); 4]) -> [[(f32, f32); 4]; 2] {
    let mid = |a: (f32, f32), b: (f32, f32)| ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0);
    let (left, right) = (mid(q[0], q[3]), mid(q[1], q[2]));
    [[q[0], q[1], right, left], [left, right, q[2], q[3]]]
}

/// The longest outline, over its width, that may be cards merged into one
/// blob and is reported as a card not read: two cards side by side along
/// their long sides, with a little to spare.
pub(crate) const MERGED_ASPECT: f32 = 3.0;

/// How much lighter than the deck's back, over the faces' paper, a card
/// read as the back may be: glare and exposure lift a dark back, but not
/// to the paper of the faces around it.
const BACK_LIGHTER: f32 = 0.45;

/// Unreads the backs of a deck with a dark back that are nearly as light
/// as the paper of the faces read in the same frame (`back` is the back's
/// lightness over the paper, as learned): under a lamp's glare a face's
/// print fades until it is as plain as a plain back, but its paper stays
/// white. Needs two faces read to know the paper.
pub(crate) fn unwash_backs(frame: &RgbImage, cards: &mut [(Detected, Source)], back: f32) {
    let Some(paper) = faces_paper(frame, cards) else {
        return;
    };
    for (d, _) in cards.iter_mut() {
        if d.token == Some(Token::Down)
            && lightness_in(frame, &d.corners).0 / paper > back + BACK_LIGHTER
        {
            d.token = None;
            d.confidence = 0.3;
        }
    }
}

/// The median lightness of the paper of the faces read in `cards`; `None`
/// with fewer than two faces read.
pub(super) fn faces_paper(frame: &RgbImage, cards: &[(Detected, Source)]) -> Option<f32> {
    let mut papers: Vec<f32> = cards
        .iter()
        .filter(|(d, _)| matches!(d.token, Some(Token::Up(_))))
        .map(|(d, _)| lightness_in(frame, &d.corners).1)
        .collect();
    if papers.len() < 2 {
        return None;
    }
    papers.sort_by(f32::total_cmp);
    Some(papers[papers.len() / 2].max(1.0))
}

/// The colours sampled inside a card's outline, on a 10×10 grid inside a
/// small inset (those that fall in the frame).
fn samples_in<'a>(
    frame: &'a RgbImage,
    q: &'a [(f32, f32); 4],
) -> impl Iterator<Item = [f32; 3]> + 'a {
    const N: usize = 10;
    (0..N * N).filter_map(move |k| {
        let (u, w) = (
            0.12 + 0.76 * ((k / N) as f32 + 0.5) / N as f32,
            0.12 + 0.76 * ((k % N) as f32 + 0.5) / N as f32,
        );
        let (x, y) = bilinear(q, u, w);
        outline::sample(frame, x, y)
    })
}

/// The mean lightness inside a card's outline and the lightness its
/// lightest tenth reaches ([`samples_in`]).
pub(super) fn lightness_in(frame: &RgbImage, q: &[(f32, f32); 4]) -> (f32, f32) {
    mean_and_paper(samples_in(frame, q).map(lightness).collect())
}

/// The chromaticity inside a card's outline ([`samples_in`]): red and
/// blue over the sum of the three channels, each channel lifted by a few
/// levels so that a dark colour's noise does not swing it. `None` for no
/// samples.
pub(super) fn chroma_in(frame: &RgbImage, q: &[(f32, f32); 4]) -> Option<(f32, f32)> {
    let (mut sum, mut n) = ([0.0f32; 3], 0);
    for c in samples_in(frame, q) {
        for k in 0..3 {
            sum[k] += c[k];
        }
        n += 1;
    }
    if n == 0 {
        return None;
    }
    let [r, g, b] = sum.map(|v| v / n as f32 + CHROMA_LIFT);
    let total = r + g + b;
    Some((r / total, b / total))
}

/// Levels added to each channel before [`chroma_in`] divides.
const CHROMA_LIFT: f32 = 8.0;

/// Lightness of a colour, 0–255: `(R + 2G + B) / 4`.
pub(super) fn lightness(c: [f32; 3]) -> f32 {
    (c[0] + 2.0 * c[1] + c[2]) / 4.0
}

/// The mean of a card's lightness samples, and the lightness its lightest
/// tenth reaches (a face's paper); zeros for no samples.
pub(super) fn mean_and_paper(mut v: Vec<f32>) -> (f32, f32) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    let mean = v.iter().sum::<f32>() / v.len() as f32;
    v.sort_by(f32::total_cmp);
    (mean, v[v.len() * 9 / 10])
}

/// One card is often found twice (by its colour, as its own region and as
/// a hole around it): of detections whose centres lie within a third of a
/// card of each other, one stays. An outline from the card's own pixels
/// beats one from the edge map, a read one an unread one, a surer one a
/// less sure one; two reads of one card from the edge map that disagree
/// leave it unread.
pub(crate) fn dedupe(mut dets: Vec<(Detected, Source)>) -> Vec<(Detected, Source)> {
    let rank =
        |d: &(Detected, Source)| (d.1 == Source::Colour, d.0.token.is_some(), d.0.confidence);
    dets.sort_by(|a, b| {
        rank(b)
            .partial_cmp(&rank(a))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut kept: Vec<(Detected, Source)> = Vec::new();
    for (d, source) in dets {
        let short = dist(d.corners[0], d.corners[1]);
        let same = kept.iter_mut().find(|(k, _)| {
            dist(k.centre, d.centre) < 0.35 * short.max(dist(k.corners[0], k.corners[1]))
        });
        match same {
            Some((k, ks)) => {
                if *ks != Source::Colour && d.token.is_some() && k.token != d.token {
                    k.token = None;
                    k.confidence = 0.3;
                }
            }
            None => kept.push((d, source)),
        }
    }
    kept
}

/// The share of table-coloured pixels above which an outline is a gap
/// between cards.
pub(crate) const TABLE_GAP: f32 = 0.6;

/// A blob of the colour mask this many typical cards large is a block of
/// touching cards (see `grow::rim_seeds`).
pub(crate) const BLOCK: f32 = 2.5;
/// With no typical card, a blob this many of the smallest cards large and
/// of no card's shape is a block.
pub(crate) const UNSIZED_BLOCK: f32 = 8.0;

/// The edge threshold of the second look at a plain cloth.
pub(crate) const FINE_THRESHOLD: u8 = 5;

/// The narrowest card the general path reports, over the frame's width:
/// the smallest card the camera is asked to read is 40 px wide at 1280;
/// below that lie a checked cloth's squares and a glyph's parts.
pub(crate) const MIN_SHORT: f32 = 0.025;

/// Keeps what the edge map found only where the faces vouch for it. A
/// face read by its print is hard to fake; an outline from the edge map is
/// not (a checked cloth's square, stretched by a wide lens, is a card's
/// shape, and a plain back is any plain rectangle). So an edge-map
/// detection must be about the size of the faces read (the cards of one
/// table are one size, give or take the camera's tilt), and with no face
/// read at all it is not reported. Cards found by their own colour stand
/// on their own. A back whose print has a design (`backs_vouch`) is as
/// hard to fake as a face, and vouches as one: a lone back held close to
/// the camera, or a layout of backs alone, is a card.
pub(crate) fn vouched(
    dets: Vec<(Detected, Source)>,
    frame_w: usize,
    backs_vouch: bool,
) -> Vec<(Detected, Source)> {
    let area = |d: &Detected| polygon_area(&d.corners);
    let mut faces: Vec<f32> = dets
        .iter()
        .filter(|(d, _)| match d.token {
            Some(Token::Up(_) | Token::Pair(..)) => true,
            Some(Token::Down) => backs_vouch,
            _ => false,
        })
        .map(|(d, _)| area(d))
        .collect();
    faces.sort_by(f32::total_cmp);
    let face = faces.get(faces.len() / 2).copied();
    let least = MIN_SHORT * frame_w as f32;
    dets.into_iter()
        .filter(|(d, source)| {
            let short = (dist(d.corners[0], d.corners[1]) + dist(d.corners[3], d.corners[2])) / 2.0;
            if short < least {
                return false;
            }
            match (source, face) {
                (Source::Colour, _) => true,
                (_, None) => false,
                (_, Some(a)) => (0.6 * a..1.6 * a).contains(&area(d)),
            }
        })
        .collect()
}

/// One candidate outline of the first pass.
pub(crate) struct Candidate {
    pub(crate) patch: Patch,
    pub(crate) boundary: Vec<Edge>,
    pub(crate) quad: Quad,
    /// The blob's area over its quadrilateral's.
    pub(crate) fill: f32,
    /// Card-shaped once snapped.
    pub(crate) shaped: bool,
    pub(crate) source: Source,
    /// From the thinned edge map or the lightness split: read, and counted
    /// for the typical card, but not for the one hands are sized by.
    pub(crate) thin: bool,
}

/// `quad` with its sides moved onto the card's edge in the frame (see
/// [`outline::snap`]); a hole's outline includes the edge band outside the
/// card, a region's lies inside the card's printed frame.
pub(super) fn snapped(frame: &RgbImage, quad: &Quad, source: Source) -> Quad {
    // A hole may hold the card's shadow too; a region lies inside the
    // card's printed frame, a few hundredths of the card in.
    // A hole holds its edge band, so the card's edge is never outside it:
    // looking outward would find the next card's.
    let (inward, outward) = match source {
        Source::Hole => (0.15 * quad.short + 3.0, 1.0),
        Source::Region => (2.0, 0.14 * quad.short + 2.0),
        // Fitted to the pixels of the card itself already.
        Source::Colour => return quad.clone(),
    };
    match outline::snap(frame, &quad.corners, inward, outward, Prefer::Outermost) {
        Some(c) => {
            let q = quad_of(portrait(c));
            // A snap that changed the card's shape much caught something
            // else. A pale card on a pale table is found by its printed
            // frame (a region) or with its shadow (a hole), a sixth off its
            // shape: snapped onto its edge, it stays card-shaped.
            let change = (q.aspect - quad.aspect).abs();
            let kept = change < 0.12
                || card_shaped(q.aspect, 1.0) && (!card_shaped(quad.aspect, 1.0) || change < 0.2);
            if kept { q } else { quad.clone() }
        }
        None => quad.clone(),
    }
}

/// `quad` moved outward onto the card's edge, as a region inside the
/// card's print is ([`snapped`]), when that keeps it card-shaped.
pub(crate) fn outward_snap(frame: &RgbImage, quad: &Quad) -> Option<Quad> {
    let c = outline::snap(
        frame,
        &quad.corners,
        2.0,
        0.14 * quad.short + 2.0,
        Prefer::Outermost,
    )?;
    let q = quad_of(portrait(c));
    (card_shaped(q.aspect, 1.0) && q.area > quad.area).then_some(q)
}

/// How far a throne's partner may stick out from under the top card, over
/// the card's short side: the convention's half, with room for a careless
/// hand and a tilted camera.
const PAIR_SHIFT: std::ops::Range<f32> = 0.3..0.9;

/// Reads a blob as a throne pair (see the module's step 6): `quad` is the
/// blob's outline, `boundary` its boundary pixels. `None` when no reading
/// of it as two cards finds a card on top.
pub(crate) fn throne_pair(
    frame: &RgbImage,
    hands: &Hands,
    boundary: &[Edge],
    quad: &Quad,
    typical_short: Option<f32>,
    id: &dyn Identify,
) -> Option<Detected> {
    let q = quad.corners;
    let s = quad.short;
    let l = quad.aspect * s;
    let lerp =
        |a: (f32, f32), b: (f32, f32), t: f32| (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t);
    // Each reading: the axis the partner is pushed along (long or short
    // side of the outline) and the card's length along it.
    let readings = [
        (true, s * CARD_ASPECT),
        (true, s / CARD_ASPECT),
        (false, l / CARD_ASPECT),
    ];
    let mut reads: Vec<(Token, f32, Quad)> = Vec::new();
    let mut seen: Option<Quad> = None;
    for (long_axis, along) in readings {
        let span = if long_axis { l } else { s };
        let short = along.min(if long_axis { s } else { l });
        if along >= span || !PAIR_SHIFT.contains(&((span - along) / short)) {
            continue;
        }
        if typical_short.is_some_and(|t| !(0.6 * t..1.6 * t).contains(&short)) {
            continue;
        }
        let f = along / span;
        // The two ends' cards, corners in outline order.
        let ends = if long_axis {
            [
                [q[0], q[1], lerp(q[1], q[2], f), lerp(q[0], q[3], f)],
                [lerp(q[3], q[0], f), lerp(q[2], q[1], f), q[2], q[3]],
            ]
        } else {
            [
                [q[0], lerp(q[0], q[1], f), lerp(q[3], q[2], f), q[3]],
                [lerp(q[1], q[0], f), q[1], q[2], lerp(q[2], q[3], f)],
            ]
        };
        for (top, under) in [(ends[0], ends[1]), (ends[1], ends[0])] {
            let (Some(top), Some(under)) = (fit(boundary, Some(&top)), fit(boundary, Some(&under)))
            else {
                continue;
            };
            if !card_shaped(top.aspect, 1.0) {
                continue;
            }
            let grown = expand(&top.corners, top.centre, 0.12 * top.short + 2.0);
            if hands.cover(&grown) > 0 {
                return Some(Detected {
                    corners: top.corners,
                    centre: top.centre,
                    token: None,
                    confidence: 0.2,
                });
            }
            // The card on top is the one whose two corner codes both show
            // and agree: the one under it has a corner covered, and that
            // corner shows the top card's face.
            let Some(a) = both_codes(frame, &top) else {
                continue;
            };
            let conf = match id.identify_in(frame, &top.corners) {
                (Some(Token::Up(c)), conf) if c == a => conf,
                (Some(_), _) => continue,
                (None, _) => 0.8,
            };
            seen.get_or_insert(top.clone());
            if let Some(b) = exposed_code(frame, &top, &under)
                && b != a
            {
                reads.push((Token::pair(a, b), conf, top));
            }
        }
    }
    let Some((token, conf, top)) = reads.first().cloned() else {
        // A card on top and something under it: two cards, unread.
        return seen.map(|top| Detected {
            corners: top.corners,
            centre: top.centre,
            token: None,
            confidence: 0.3,
        });
    };
    let agreed = reads.iter().all(|r| r.0 == token);
    Some(Detected {
        corners: top.corners,
        centre: top.centre,
        token: agreed.then_some(token),
        confidence: if agreed { conf.min(0.9) } else { 0.3 },
    })
}

/// The card whose two corner codes both read, as the same card.
fn both_codes(frame: &RgbImage, q: &Quad) -> Option<Card> {
    let w = (READ_SCALE * q.short).clamp(MIN_READ_W, RECT_W as f32);
    let h = w * RECT_H as f32 / RECT_W as f32;
    let read = |img: &RgbImage| match (
        read_corner_code_at(img, false),
        read_corner_code_at(img, true),
    ) {
        (Some(a), Some(b)) if a == b => Some(a),
        _ => None,
    };
    let img = rectify_to(frame, &q.corners, w.round() as u32, h.round() as u32, 0.0);
    read(&img).or_else(|| {
        (img.width() < RECT_W)
            .then(|| read(&rectify_to(frame, &q.corners, RECT_W, RECT_H, 0.0)))
            .flatten()
    })
}

/// The card under `top` read by the corner code of its end that `top`
/// leaves uncovered, if one does.
fn exposed_code(frame: &RgbImage, top: &Quad, under: &Quad) -> Option<Card> {
    let c = under.corners;
    // Card-relative position to frame point, bilinear over the outline.
    let at = |(u, v): (f32, f32)| bilinear(&c, u, v);
    let short = (dist(c[0], c[1]) + dist(c[3], c[2])) / 2.0;
    let w = (READ_SCALE * short).clamp(MIN_READ_W, RECT_W as f32);
    let h = w * RECT_H as f32 / RECT_W as f32;
    let mut card = None;
    for (k, centre) in corner_code_centres().into_iter().enumerate() {
        // The code's centre lies a quarter card clear of the top card when
        // the partner is pushed out half a card: a tenth is the least that
        // leaves the whole code to see.
        if signed_distance(&top.corners, at(centre)) < 0.1 * short {
            continue;
        }
        let img = card.get_or_insert_with(|| {
            rectify_to(
                frame,
                &under.corners,
                w.round() as u32,
                h.round() as u32,
                0.0,
            )
        });
        if let Some(found) = read_corner_code_at(img, k == 1) {
            return Some(found);
        }
        if img.width() < RECT_W {
            let full = rectify_to(frame, &under.corners, RECT_W, RECT_H, 0.0);
            if let Some(found) = read_corner_code_at(&full, k == 1) {
                return Some(found);
            }
        }
    }
    None
}

/// Aspect (long over short side) and fill (blob pixels over quadrilateral
/// area) of a single card, allowing for a 30° tilt.
pub(super) fn card_shaped(aspect: f32, fill: f32) -> bool {
    (1.15..1.75).contains(&aspect) && (0.9..1.12).contains(&fill)
}

/// Where a hand (or an arm, a sleeve) lies over the table: pixels of the
/// frame, at the edge map's resolution.
pub(crate) struct Hands {
    w: usize,
    h: usize,
    /// Frame pixels per mask pixel.
    scale: usize,
    mask: Vec<bool>,
}

/// How far apart (largest channel difference, 0–255) two pieces of a table
/// may be in mean colour and still be one table's.
const PIECE_COLOUR: f32 = 24.0;

/// The mean colour of a region's grid pixels.
fn mean_colour(edges: &Edges, runs: &[Run]) -> [f32; 3] {
    let (mut sum, mut n) = ([0.0f32; 3], 0.0f32);
    for r in runs {
        for x in r.x0 as usize..r.x1 as usize {
            let c = edges.rgb[r.y as usize * edges.w + x];
            for k in 0..3 {
                sum[k] += f32::from(c[k]);
            }
            n += 1.0;
        }
    }
    sum.map(|v| v / n.max(1.0))
}

impl Hands {
    /// No hand anywhere.
    fn none() -> Hands {
        Hands {
            w: 0,
            h: 0,
            scale: 1,
            mask: Vec::new(),
        }
    }

    /// The hands among the large regions of the frame (see
    /// [`outline::Object`]): each reaches in from a side of the frame, is
    /// neither the table (the largest region) nor a strip across the frame
    /// (a table's edge, a plank, a stripe), is larger and thicker than a
    /// card and is not mostly cards. Shape, not skin colour: a warm table,
    /// a red card and a dark sleeve are all judged alike; colour only tells
    /// the pieces of one table (alike) from a hand.
    pub(crate) fn find(
        edges: &Edges,
        objects: &[outline::Object],
        table: Option<&TableModel>,
        cards: &[&Quad],
        typical_area: Option<f32>,
        typical_short: Option<f32>,
    ) -> Hands {
        let (w, h, s) = (edges.w, edges.h, edges.scale);
        let s2 = (s * s) as f32;
        let frame_area = (w * h) as f32 * s2;
        let min_area =
            typical_area.map_or(0.012 * frame_area, |a| (2.0 * a).max(0.006 * frame_area));
        let min_depth = typical_short.map_or(0.03 * w.min(h) as f32 * s as f32, |t| 0.3 * t);
        let mut found: Vec<(&outline::Object, [f32; 3])> = Vec::new();
        for o in objects.iter().skip(1) {
            if (o.area as f32) * s2 < min_area || o.spans() || !o.sides.iter().any(|&x| x) {
                continue;
            }
            let patch = Patch::new(&o.runs);
            let depth = patch
                .distance_sq()
                .iter()
                .copied()
                .fold(0.0f32, f32::max)
                .sqrt();
            if depth * (s as f32) < min_depth {
                continue;
            }
            let on_cards: usize = cards
                .iter()
                .map(|q| patch.count_in(&q.corners.map(|p| (p.0 / s as f32, p.1 / s as f32))))
                .sum();
            if 2 * on_cards > o.area {
                continue;
            }
            // A piece of the table cut off by a plank's seam or a stripe is
            // the table's colour; a hand or a sleeve over it, by and large,
            // is not. (Shape decides; this only spares the table's pieces.)
            if table.is_some_and(|t| t.share_like_table(edges, &o.runs) > 0.5) {
                continue;
            }
            found.push((o, mean_colour(edges, &o.runs)));
        }
        // A table in pieces (planks between seams, grain) gives several
        // regions alike in colour, each like the largest piece or like two
        // others; a hand, even one split at the wrist, is like at most one
        // other region.
        let alike = |a: &[f32; 3], b: &[f32; 3]| {
            (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f32::max) <= PIECE_COLOUR
        };
        let largest = objects.first().map(|o| mean_colour(edges, &o.runs));
        let colours: Vec<[f32; 3]> = found.iter().map(|f| f.1).collect();
        found.retain(|(_, c)| {
            let like_others = colours.iter().filter(|o| alike(o, c)).count() - 1;
            like_others < 2 && !largest.is_some_and(|l| alike(&l, c))
        });
        let mut mask: Vec<bool> = Vec::new();
        for (o, _) in found {
            if mask.is_empty() {
                mask = vec![false; w * h];
            }
            for r in &o.runs {
                let row = r.y as usize * w;
                mask[row + r.x0 as usize..row + r.x1 as usize].fill(true);
            }
        }
        Hands {
            w,
            h,
            scale: s,
            mask,
        }
    }

    /// Whether a hand was seen anywhere.
    pub(crate) fn any(&self) -> bool {
        !self.mask.is_empty()
    }

    /// Hand pixels (in frame pixels) whose centres lie inside the convex
    /// `quad`.
    fn cover(&self, quad: &[(f32, f32); 4]) -> usize {
        if self.mask.is_empty() {
            return 0;
        }
        let s = self.scale as f32;
        let local = quad.map(|p| (p.0 / s, p.1 / s));
        let mut n = 0;
        for_spans(&local, self.w, self.h, |y, x0, x1| {
            n += self.mask[y * self.w + x0..y * self.w + x1]
                .iter()
                .filter(|&&b| b)
                .count();
        });
        n * self.scale * self.scale
    }
}

/// Calls `f(y, x0, x1)` for each row of a `w`×`h` grid with the pixels
/// `x0..x1` whose centres lie inside the convex quadrilateral `q`.
fn for_spans(q: &[(f32, f32); 4], w: usize, h: usize, mut f: impl FnMut(usize, usize, usize)) {
    let ys = q.map(|p| p.1);
    let lo = ys
        .iter()
        .copied()
        .fold(f32::INFINITY, f32::min)
        .ceil()
        .max(0.0);
    let hi = ys
        .iter()
        .copied()
        .fold(f32::NEG_INFINITY, f32::max)
        .floor()
        .min(h as f32 - 1.0);
    if lo.is_nan() || hi.is_nan() || hi < lo {
        return;
    }
    for y in lo as usize..=hi as usize {
        let yf = y as f32;
        let (mut l, mut r) = (f32::INFINITY, f32::NEG_INFINITY);
        for i in 0..4 {
            let (a, b) = (q[i], q[(i + 1) % 4]);
            if a.1 == b.1 {
                if a.1 == yf {
                    l = l.min(a.0.min(b.0));
                    r = r.max(a.0.max(b.0));
                }
            } else if (yf - a.1) * (yf - b.1) <= 0.0 {
                let x = a.0 + (yf - a.1) * (b.0 - a.0) / (b.1 - a.1);
                l = l.min(x);
                r = r.max(x);
            }
        }
        let x0 = l.ceil().max(0.0);
        let x1 = (r.floor() + 1.0).min(w as f32);
        if x1 > x0 {
            f(y, x0 as usize, x1 as usize);
        }
    }
}

/// A boundary pixel: its centre, and the (unnormalised) direction in which
/// its neighbours are outside the blob.
#[derive(Clone, Copy, Debug)]
pub(super) struct Edge {
    pub(crate) p: (f32, f32),
    pub(crate) out: (f32, f32),
}

/// The blobs of a frame split at its lightness's Otsu threshold: the
/// lighter pixels' components and the darker ones', each with every hole
/// filled (a face's print). White cards on a dark patterned cloth, or dark
/// backs on a pale one, part from the cloth whatever its pattern's edges.
pub(super) fn lightness_blobs(frame: &RgbImage) -> Vec<outline::Blob> {
    let (w, h) = (frame.width() as usize, frame.height() as usize);
    let light: Vec<u8> = frame
        .pixels()
        .map(|p| ((u16::from(p[0]) + 2 * u16::from(p[1]) + u16::from(p[2])) / 4) as u8)
        .collect();
    let max_area = w * h / 5;
    let mut out = Vec::new();
    for (t, lighter) in lightness_splits(&light, false) {
        for runs in components(w, h, |i| (light[i] > t) == lighter) {
            let area: usize = runs.iter().map(|r| (r.x1 - r.x0) as usize).sum();
            if !(MIN_AREA..=max_area).contains(&area) {
                continue;
            }
            let mut patch = Patch::new(&runs);
            patch.fill_holes(usize::MAX);
            out.push(outline::Blob::of_runs(patch.runs(), Source::Region, w, h));
        }
    }
    out
}

/// The lightness thresholds a frame is split at, each with the side
/// kept (`true`: the lighter): its Otsu threshold, both sides; with
/// `extremes` each side split again at its own Otsu threshold too, for
/// the lightest (white faces) and the darkest pixels apart from the rest.
fn lightness_splits(light: &[u8], extremes: bool) -> Vec<(u8, bool)> {
    let mut hist = [0usize; 256];
    for &l in light {
        hist[l as usize] += 1;
    }
    let t = otsu(&hist);
    let mut splits = vec![(t, true), (t, false)];
    if extremes {
        let side = |lighter: bool| {
            let mut h = hist;
            h.iter_mut()
                .enumerate()
                .filter(|(l, _)| (*l > usize::from(t)) != lighter)
                .for_each(|(_, n)| *n = 0);
            otsu(&h)
        };
        splits.extend([(side(true), true), (side(false), false)]);
    }
    splits
}

/// Whether a card of `out` is read where `quad` lies.
pub(crate) fn read_at(out: &[(Detected, Source)], quad: &Quad) -> bool {
    out.iter()
        .any(|(d, _)| d.token.is_some() && dist(d.centre, quad.centre) < 0.35 * quad.short)
}

/// Adds `read` to `out` in place of the unread outlines about it: on a
/// patterned cloth the outline of a card's own colour may snag on the
/// cloth, and would otherwise outrank the read ([`dedupe`]).
pub(crate) fn replace_unread(out: &mut Vec<(Detected, Source)>, read: Detected) {
    let short = dist(read.corners[0], read.corners[1]);
    out.retain(|(d, _)| d.token.is_some() || dist(d.centre, read.centre) >= 0.35 * short);
    out.push((read, Source::Region));
}

/// Fewer faces read than this, and the frame's cards are looked for again
/// in the opened lightness blobs ([`opened_blobs`]).
pub(crate) const LOST_BELOW: usize = 3;

/// How near to reading an opened blob's outline must come to be read
/// again at the read cards' size.
pub(crate) const ROUGH_NEAR: f32 = 0.1;

/// The half-widths, as fractions of the frame's width, of the squares
/// [`opened_blobs`] opens the lightness blobs with: a check or stripe of
/// a cloth up to twice as wide is cut off the cards it touches.
const OPENINGS: [f32; 3] = [0.006, 0.0125, 0.025];

/// The lightness blobs ([`lightness_blobs`]) opened: on a patterned cloth
/// (gingham's white checks about a white card) a card's blob holds the
/// pieces of the pattern that touch it, and no card-shaped outline. What
/// is narrower than an opening's square is cut off; the card, wider, stays.
/// Worked at half the frame's resolution: the outlines are only rough,
/// and are snapped or read at the cards' size afterwards.
pub(crate) fn opened_blobs(frame: &RgbImage) -> Vec<outline::Blob> {
    let (fw, fh) = (frame.width() as usize, frame.height() as usize);
    let (w, h) = (fw / 2, fh / 2);
    let luma = |x: usize, y: usize| {
        let p = frame.get_pixel(x as u32, y as u32);
        u32::from(p[0]) + 2 * u32::from(p[1]) + u32::from(p[2])
    };
    let light: Vec<u8> = (0..w * h)
        .map(|i| {
            let (x, y) = (2 * (i % w), 2 * (i / w));
            let sum = luma(x, y) + luma(x + 1, y) + luma(x, y + 1) + luma(x + 1, y + 1);
            (sum / 16) as u8
        })
        .collect();
    let mut out = Vec::new();
    for (t, lighter) in lightness_splits(&light, true) {
        let mask: Vec<bool> = light.iter().map(|&l| (l > t) == lighter).collect();
        // The holes a card's print makes are filled; not the cloth's
        // pieces between cards, most larger than a print the opening
        // would keep. (A cloth's stripes join every card into one blob,
        // however large: the whole frame is worked at once.)
        let mut holes: Vec<(usize, Vec<Run>)> = components(w, h, |i| !mask[i])
            .into_iter()
            .filter(|runs| {
                !runs
                    .iter()
                    .any(|r| r.y == 0 || r.y as usize + 1 == h || r.x0 == 0 || r.x1 as usize == w)
            })
            .map(|runs| (runs.iter().map(|r| (r.x1 - r.x0) as usize).sum(), runs))
            .collect();
        holes.sort_by_key(|(n, _)| *n);
        let mut filled = mask;
        let mut next_hole = 0;
        for f in OPENINGS {
            // In the half-resolution grid.
            let r = ((f * fw as f32) / 2.0).round().max(1.0) as usize;
            let most = 2 * (2 * r + 1).pow(2);
            while next_hole < holes.len() && holes[next_hole].0 <= most {
                for run in &holes[next_hole].1 {
                    let row = run.y as usize * w;
                    filled[row + run.x0 as usize..row + run.x1 as usize].fill(true);
                }
                next_hole += 1;
            }
            let opened = opened(&filled, w, h, r);
            for runs in components(w, h, |i| opened[i]) {
                let area: usize = runs.iter().map(|r| (r.x1 - r.x0) as usize).sum();
                if 4 * area >= MIN_AREA {
                    out.push(outline::Blob::of_runs(
                        doubled(&runs),
                        Source::Region,
                        fw,
                        fh,
                    ));
                }
            }
        }
    }
    out
}

/// Runs of a half-resolution grid (row-major) in the full one.
fn doubled(runs: &[Run]) -> Vec<Run> {
    let mut out = Vec::with_capacity(2 * runs.len());
    let mut k = 0;
    while k < runs.len() {
        let row = runs[k..].iter().take_while(|r| r.y == runs[k].y).count();
        for dy in 0..2 {
            out.extend(runs[k..k + row].iter().map(|r| Run {
                y: 2 * r.y + dy,
                x0: 2 * r.x0,
                x1: 2 * r.x1,
            }));
        }
        k += row;
    }
    out
}

/// `mask` (`w`×`h`) opened by a square of side `2r + 1`: what is narrower
/// than the square is gone, the rest keeps its outline with its corners
/// rounded off.
fn opened(mask: &[bool], w: usize, h: usize, r: usize) -> Vec<bool> {
    // Whether all (erosion) or any (dilation) of the `2r + 1` pixels about
    // each is on, by a running count along each row, then down each column
    // (one count per column, the window moved a row at a time). Outside
    // the grid counts as off.
    let full = (2 * r + 1) as u32;
    let test = |n: u32, all: bool| if all { n == full } else { n > 0 };
    let rows = |src: &[bool], all: bool| -> Vec<bool> {
        let mut out = vec![false; src.len()];
        for (row, dst) in src.chunks_exact(w).zip(out.chunks_exact_mut(w)) {
            let mut n: u32 = row[..r.min(w)].iter().map(|&b| u32::from(b)).sum();
            for x in 0..w {
                if x + r < w {
                    n += u32::from(row[x + r]);
                }
                dst[x] = test(n, all);
                if x >= r {
                    n -= u32::from(row[x - r]);
                }
            }
        }
        out
    };
    let columns = |src: &[bool], all: bool| -> Vec<bool> {
        let mut out = vec![false; src.len()];
        let mut n = vec![0u32; w];
        for y in 0..r.min(h) {
            for (c, &b) in n.iter_mut().zip(&src[y * w..(y + 1) * w]) {
                *c += u32::from(b);
            }
        }
        for y in 0..h {
            if y + r < h {
                for (c, &b) in n.iter_mut().zip(&src[(y + r) * w..(y + r + 1) * w]) {
                    *c += u32::from(b);
                }
            }
            for (d, &c) in out[y * w..(y + 1) * w].iter_mut().zip(&n) {
                *d = test(c, all);
            }
            if y >= r {
                for (c, &b) in n.iter_mut().zip(&src[(y - r) * w..(y - r + 1) * w]) {
                    *c -= u32::from(b);
                }
            }
        }
        out
    };
    let eroded = columns(&rows(mask, true), true);
    columns(&rows(&eroded, false), false)
}

/// The threshold that best splits a histogram in two (Otsu's: the most
/// variance between the two sides' means).
fn otsu(hist: &[usize; 256]) -> u8 {
    let total: f64 = hist.iter().sum::<usize>() as f64;
    let sum: f64 = hist
        .iter()
        .enumerate()
        .map(|(i, &n)| i as f64 * n as f64)
        .sum();
    let (mut below, mut sum_below) = (0.0f64, 0.0f64);
    let mut best = (0.0f64, 0u8);
    for (t, &n) in hist.iter().enumerate() {
        below += n as f64;
        sum_below += t as f64 * n as f64;
        let above = total - below;
        if below == 0.0 || above == 0.0 {
            continue;
        }
        let (m0, m1) = (sum_below / below, (sum - sum_below) / above);
        let between = below * above * (m0 - m1) * (m0 - m1);
        if between > best.0 {
            best = (between, t as u8);
        }
    }
    best.1
}

/// One blob as a bitmap over its bounding box with a background margin of
/// one pixel all round.
pub(super) struct Patch {
    /// Frame position of the bitmap's (0, 0).
    x0: i32,
    y0: i32,
    w: usize,
    h: usize,
    on: Vec<bool>,
}

impl Patch {
    pub(super) fn new(runs: &[Run]) -> Patch {
        let x_lo = runs.iter().map(|r| r.x0).min().unwrap_or(0);
        let x_hi = runs.iter().map(|r| r.x1).max().unwrap_or(0);
        let y_lo = runs.first().map_or(0, |r| r.y);
        let y_hi = runs.last().map_or(0, |r| r.y);
        let (x0, y0) = (x_lo as i32 - 1, y_lo as i32 - 1);
        let w = (x_hi - x_lo) as usize + 2;
        let h = (y_hi - y_lo) as usize + 3;
        let mut on = vec![false; w * h];
        for r in runs {
            let row = (r.y as i32 - y0) as usize * w;
            let a = (r.x0 as i32 - x0) as usize;
            let b = (r.x1 as i32 - x0) as usize;
            on[row + a..row + b].fill(true);
        }
        let mut patch = Patch { x0, y0, w, h, on };
        patch.fill_holes(runs.iter().map(|r| (r.x1 - r.x0) as usize).sum::<usize>() / 100);
        patch
    }

    /// Fills holes of at most `max` pixels. Dark ink under noise, or warm
    /// ink, is often not card-like and pits the card; a hole that large is
    /// felt enclosed by touching cards.
    fn fill_holes(&mut self, max: usize) {
        let holes = components(self.w, self.h, |i| !self.on[i]);
        for runs in holes {
            let outside = runs[0].y == 0;
            let n: usize = runs.iter().map(|r| (r.x1 - r.x0) as usize).sum();
            if !outside && n <= max {
                for r in runs {
                    let row = r.y as usize * self.w;
                    self.on[row + r.x0 as usize..row + r.x1 as usize].fill(true);
                }
            }
        }
    }

    /// The patch's pixels as runs in frame coordinates, row-major.
    fn runs(&self) -> Vec<Run> {
        let mut out = Vec::new();
        for y in 0..self.h {
            let row = &self.on[y * self.w..(y + 1) * self.w];
            let mut x = 0;
            while x < self.w {
                if row[x] {
                    let x0 = x;
                    while x < self.w && row[x] {
                        x += 1;
                    }
                    out.push(Run {
                        y: (y as i32 + self.y0) as u32,
                        x0: (x0 as i32 + self.x0) as u32,
                        x1: (x as i32 + self.x0) as u32,
                    });
                }
                x += 1;
            }
        }
        out
    }

    /// Pixels with a four-neighbour outside, in frame coordinates, row-major,
    /// each with the direction towards its outside neighbours.
    pub(super) fn boundary(&self) -> Vec<Edge> {
        let w = self.w;
        let mut out = Vec::new();
        for y in 1..self.h - 1 {
            for x in 1..w - 1 {
                let i = y * w + x;
                if !self.on[i] {
                    continue;
                }
                let off = |j: usize| f32::from(u8::from(!self.on[j]));
                let out_x = off(i + 1) - off(i - 1);
                let out_y = off(i + w) - off(i - w);
                if !(self.on[i - 1] && self.on[i + 1] && self.on[i - w] && self.on[i + w]) {
                    out.push(Edge {
                        p: ((x as i32 + self.x0) as f32, (y as i32 + self.y0) as f32),
                        out: (out_x, out_y),
                    });
                }
            }
        }
        out
    }

    /// Blob pixels whose centres lie inside the convex `quad` (frame
    /// coordinates).
    fn count_in(&self, quad: &[(f32, f32); 4]) -> usize {
        let local = quad.map(|p| (p.0 - self.x0 as f32, p.1 - self.y0 as f32));
        let mut n = 0;
        for_spans(&local, self.w, self.h, |y, x0, x1| {
            n += self.on[y * self.w + x0..y * self.w + x1]
                .iter()
                .filter(|&&b| b)
                .count();
        });
        n
    }

    /// Squared Euclidean distance from each pixel centre to the nearest
    /// background pixel centre (exact: a distance per column, then the lower
    /// envelope of parabolas along each row).
    fn distance_sq(&self) -> Vec<f32> {
        let (w, h) = (self.w, self.h);
        let mut d = vec![0.0f32; w * h];
        for x in 0..w {
            let mut g = 0.0f32;
            for y in 0..h {
                g = if self.on[y * w + x] { g + 1.0 } else { 0.0 };
                d[y * w + x] = g;
            }
            let mut g = 0.0f32;
            for y in (0..h).rev() {
                g = if self.on[y * w + x] { g + 1.0 } else { 0.0 };
                let v = d[y * w + x].min(g);
                d[y * w + x] = v * v;
            }
        }
        let mut f = vec![0.0f32; w];
        let mut v = vec![0usize; w];
        let mut z = vec![0.0f32; w + 1];
        for y in 0..h {
            let row = &mut d[y * w..(y + 1) * w];
            f.copy_from_slice(row);
            lower_envelope(&f, row, &mut v, &mut z);
        }
        d
    }
}

/// `d[q] = min over p of (q - p)² + f[p]`, in linear time.
fn lower_envelope(f: &[f32], d: &mut [f32], v: &mut [usize], z: &mut [f32]) {
    let n = f.len();
    let mut k = 0;
    v[0] = 0;
    z[0] = f32::NEG_INFINITY;
    z[1] = f32::INFINITY;
    for q in 1..n {
        let fq = f[q] + (q * q) as f32;
        let mut s;
        loop {
            let p = v[k];
            s = (fq - (f[p] + (p * p) as f32)) / (2.0 * (q - p) as f32);
            if s <= z[k] {
                k -= 1;
            } else {
                break;
            }
        }
        k += 1;
        v[k] = q;
        z[k] = s;
        z[k + 1] = f32::INFINITY;
    }
    k = 0;
    for (q, out) in d.iter_mut().enumerate() {
        while z[k + 1] < q as f32 {
            k += 1;
        }
        let p = v[k];
        *out = (q as f32 - p as f32).powi(2) + f[p];
    }
}

/// Splits a blob of touching cards at its distance-transform cores. Returns
/// the card-shaped parts of the best split (none when no split gives one).
pub(crate) fn split(
    patch: &Patch,
    boundary: &[Edge],
    typical_area: Option<f32>,
    typical_short: Option<f32>,
    frame: (usize, usize),
) -> Vec<Quad> {
    let d = patch.distance_sq();
    let deepest = d.iter().copied().fold(0.0f32, f32::max).sqrt();
    let area = patch.on.iter().filter(|&&b| b).count();
    // Cards touch by a corner or along a thin neck; a core at some depth
    // between a third and four fifths of half the short side keeps each card
    // whole and separate. Without a typical card the blob's own depth
    // stands in (two cards side by side are deeper than one).
    let (half, fractions): (f32, &[f32]) = match typical_short {
        Some(s) => ((s / 2.0).min(deepest), &[0.5, 0.65, 0.8, 0.35]),
        None => (deepest, &[0.35, 0.5, 0.65, 0.8]),
    };
    let mut best: (Vec<Quad>, usize) = (Vec::new(), 0);
    for &f in fractions {
        let t = f * half;
        if t < 2.0 {
            continue;
        }
        let cores = components(patch.w, patch.h, |i| d[i] > t * t);
        let sizes: Vec<usize> = cores
            .iter()
            .map(|c| c.iter().map(|r| (r.x1 - r.x0) as usize).sum())
            .collect();
        let biggest = sizes.iter().copied().max().unwrap_or(0);
        // Rough outlines: each core's outline pushed back out by the depth
        // it was cut at (a convex outline's inset has parallel sides). A
        // core's outer edge lies on average half a pixel short of `t`.
        let rough: Vec<[(f32, f32); 4]> = cores
            .iter()
            .zip(&sizes)
            .filter(|(_, n)| **n >= 4 && **n * 8 >= biggest)
            .filter_map(|(c, _)| {
                let core = Patch::new(&shift_runs(c, patch.x0, patch.y0));
                let q = fit(&core.boundary(), None)?;
                offset(&q.corners, t - 0.5)
            })
            .collect();
        if rough.is_empty() {
            continue;
        }
        // Each boundary pixel belongs to the rough outline it is nearest.
        let mut owned: Vec<Vec<Edge>> = vec![Vec::new(); rough.len()];
        for &e in boundary {
            let (k, sd) = rough
                .iter()
                .map(|q| signed_distance(q, e.p))
                .enumerate()
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .expect("some rough outline");
            if sd < 0.25 * half + 2.0 {
                owned[k].push(e);
            }
        }
        let mut parts = Vec::new();
        let mut covered = 0;
        for (q, pts) in rough.iter().zip(&owned) {
            let Some(q) = fit(pts, Some(q)) else {
                continue;
            };
            let in_frame = q.corners.iter().all(|c| {
                c.0 > 0.5 && c.1 > 0.5 && c.0 < frame.0 as f32 - 1.5 && c.1 < frame.1 as f32 - 1.5
            });
            let inside = patch.count_in(&q.corners);
            let fill = inside as f32 / q.area.max(1.0);
            // A fragment of a card (a core cut short) is no card.
            let sized = typical_area.is_none_or(|a| (0.5 * a..1.5 * a).contains(&q.area));
            if in_frame && sized && card_shaped(q.aspect, fill) {
                parts.push(q);
                covered += inside;
            }
        }
        // Done when every core is a card and the cards are the whole blob
        // (one core for two cards is not).
        let complete = parts.len() == rough.len() && covered * 10 >= area * 9;
        if (parts.len(), covered) > (best.0.len(), best.1) {
            best = (parts, covered);
        }
        if complete {
            break;
        }
    }
    best.0
}

fn shift_runs(runs: &[Run], x0: i32, y0: i32) -> Vec<Run> {
    runs.iter()
        .map(|r| Run {
            y: (r.y as i32 + y0) as u32,
            x0: (r.x0 as i32 + x0) as u32,
            x1: (r.x1 as i32 + x0) as u32,
        })
        .collect()
}

/// A card's quadrilateral and its shape.
#[derive(Clone)]
pub(super) struct Quad {
    pub corners: [(f32, f32); 4],
    pub centre: (f32, f32),
    pub area: f32,
    /// Long sides over short sides.
    pub aspect: f32,
    /// Mean length of the short sides.
    pub short: f32,
}

/// Fits a quadrilateral to boundary pixels: around the `rough` outline when
/// given, else around the pixels' minimum-area rectangle.
pub(super) fn fit(boundary: &[Edge], rough: Option<&[(f32, f32); 4]>) -> Option<Quad> {
    let rough = match rough {
        Some(q) => *q,
        None => {
            let pts: Vec<(f32, f32)> = boundary.iter().map(|e| e.p).collect();
            let r = min_rect(&hull(&pts))?;
            if r.a * r.b < 1.0 {
                return None;
            }
            r.grow(EDGE).corners()
        }
    };
    Some(quad_of(portrait(refine(&rough, boundary).unwrap_or(rough))))
}

/// The quadrilateral with these corners (portrait order) and its shape.
pub(super) fn quad_of(corners: [(f32, f32); 4]) -> Quad {
    let top = dist(corners[0], corners[1]);
    let bottom = dist(corners[3], corners[2]);
    let left = dist(corners[0], corners[3]);
    let right = dist(corners[1], corners[2]);
    let centre =
        intersect((corners[0], corners[2]), (corners[1], corners[3])).unwrap_or_else(|| {
            let c = corners
                .iter()
                .fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
            (c.0 / 4.0, c.1 / 4.0)
        });
    Quad {
        corners,
        centre,
        area: polygon_area(&corners),
        aspect: (left + right) / (top + bottom).max(1e-3),
        short: (top + bottom) / 2.0,
    }
}

/// The sides of a convex quadrilateral as lines with outward unit normals:
/// (a point on the side, the normal).
fn sides(q: &[(f32, f32); 4]) -> [((f32, f32), (f32, f32)); 4] {
    let c = q
        .iter()
        .fold((0.0, 0.0), |a, p| (a.0 + p.0 / 4.0, a.1 + p.1 / 4.0));
    std::array::from_fn(|i| {
        let (a, b) = (q[i], q[(i + 1) % 4]);
        let len = dist(a, b).max(1e-6);
        let mut n = (-(b.1 - a.1) / len, (b.0 - a.0) / len);
        if (c.0 - a.0) * n.0 + (c.1 - a.1) * n.1 > 0.0 {
            n = (-n.0, -n.1);
        }
        (a, n)
    })
}

/// Distance from a convex quadrilateral's outline, negative inside.
pub(super) fn signed_distance(q: &[(f32, f32); 4], p: (f32, f32)) -> f32 {
    sides(q)
        .iter()
        .map(|(a, n)| (p.0 - a.0) * n.0 + (p.1 - a.1) * n.1)
        .fold(f32::NEG_INFINITY, f32::max)
}

/// A convex quadrilateral with every side moved outward by `by`.
fn offset(q: &[(f32, f32); 4], by: f32) -> Option<[(f32, f32); 4]> {
    let s = sides(q);
    let moved = s.map(|(a, n)| (a.0 + n.0 * by, a.1 + n.1 * by));
    let mut out = [(0.0, 0.0); 4];
    for (i, c) in out.iter_mut().enumerate() {
        let (j, k) = ((i + 3) % 4, i);
        let dir = |m: usize| (-s[m].1.1, s[m].1.0);
        let (pj, pk) = (moved[j], moved[k]);
        let (dj, dk) = (dir(j), dir(k));
        *c = intersect(
            (pj, (pj.0 + dj.0, pj.1 + dj.1)),
            (pk, (pk.0 + dk.0, pk.1 + dk.1)),
        )?;
    }
    Some(out)
}

/// Reads one card-shaped quadrilateral, unless skin is on or right around
/// it.
pub(super) fn judge(
    frame: &RgbImage,
    hands: &Hands,
    q: &Quad,
    id: &dyn Identify,
    source: Source,
) -> Detected {
    judge_as(frame, hands, q, id, source, true)
}

/// [`judge`] for an outline being moved onto its print: the print is not
/// followed past one search (see [`Identify::identify_placed_near`]).
pub(super) fn judge_near(
    frame: &RgbImage,
    hands: &Hands,
    q: &Quad,
    id: &dyn Identify,
    source: Source,
) -> Detected {
    judge_as(frame, hands, q, id, source, false)
}

fn judge_as(
    frame: &RgbImage,
    hands: &Hands,
    q: &Quad,
    id: &dyn Identify,
    source: Source,
    follow: bool,
) -> Detected {
    let grow = 0.12 * q.short + 2.0;
    let grown = expand(&q.corners, q.centre, grow);
    let skin = hands.cover(&grown);
    if skin > 0 {
        // Seen, but a hand is on it: no token.
        let skin_frac = (skin as f32 / polygon_area(&grown).max(1.0)).max(0.01);
        let confidence = (0.5 - skin_frac * 5.0).clamp(0.05, 0.5);
        return Detected {
            corners: q.corners,
            centre: q.centre,
            token: None,
            confidence,
        };
    }
    let rough = !matches!(source, Source::Colour);
    let ((token, confidence), corners) = if follow {
        id.identify_placed_in(frame, &q.corners, rough)
    } else {
        id.identify_placed_near(frame, &q.corners, rough)
    };
    Detected {
        corners,
        centre: if corners == q.corners {
            q.centre
        } else {
            centroid(&corners)
        },
        token,
        confidence,
    }
}

/// The mean of an outline's corners.
pub(super) fn centroid(q: &[(f32, f32); 4]) -> (f32, f32) {
    q.iter()
        .fold((0.0, 0.0), |a, p| (a.0 + p.0 / 4.0, a.1 + p.1 / 4.0))
}

pub(super) fn dist(a: (f32, f32), b: (f32, f32)) -> f32 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

pub(super) fn polygon_area(p: &[(f32, f32); 4]) -> f32 {
    let mut s = 0.0;
    for i in 0..4 {
        let (a, b) = (p[i], p[(i + 1) % 4]);
        s += a.0 * b.1 - b.0 * a.1;
    }
    (s / 2.0).abs()
}

fn expand(q: &[(f32, f32); 4], c: (f32, f32), by: f32) -> [(f32, f32); 4] {
    q.map(|p| {
        let d = dist(p, c).max(1e-3);
        (p.0 + (p.0 - c.0) / d * by, p.1 + (p.1 - c.1) / d * by)
    })
}

/// Convex hull (monotone chain) of points given sorted by `y`, then `x`.
pub(super) fn hull(pts: &[(f32, f32)]) -> Vec<(f32, f32)> {
    let cross = |o: (f32, f32), a: (f32, f32), b: (f32, f32)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    if pts.len() < 3 {
        return pts.to_vec();
    }
    let mut h: Vec<(f32, f32)> = Vec::with_capacity(pts.len() / 4);
    for pass in [false, true] {
        let start = h.len();
        let push = |p: (f32, f32), h: &mut Vec<(f32, f32)>| {
            while h.len() >= start + 2 && cross(h[h.len() - 2], h[h.len() - 1], p) <= 0.0 {
                h.pop();
            }
            h.push(p);
        };
        if pass {
            pts.iter().rev().for_each(|&p| push(p, &mut h));
        } else {
            pts.iter().for_each(|&p| push(p, &mut h));
        }
        h.pop();
    }
    h
}

/// A rotated rectangle: centre, unit axis `u` (the other axis is `u` turned
/// a quarter), and half-lengths along `u` and along the other axis.
#[derive(Clone, Copy, Debug)]
struct Rect {
    c: (f32, f32),
    u: (f32, f32),
    a: f32,
    b: f32,
}

impl Rect {
    fn corners(&self) -> [(f32, f32); 4] {
        let (u, v) = (self.u, (-self.u.1, self.u.0));
        [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(|(s, t)| {
            (
                self.c.0 + s * self.a * u.0 + t * self.b * v.0,
                self.c.1 + s * self.a * u.1 + t * self.b * v.1,
            )
        })
    }

    fn grow(&self, by: f32) -> Rect {
        Rect {
            a: self.a + by,
            b: self.b + by,
            ..*self
        }
    }
}

/// The minimum-area rectangle around a convex polygon (one side lies on a
/// polygon edge).
/// The smallest rectangle round `pts`, its corners in order round it.
pub(super) fn bounding_rect(pts: &[(f32, f32)]) -> Option<[(f32, f32); 4]> {
    min_rect(&hull(pts)).map(|r| r.corners())
}

fn min_rect(hull: &[(f32, f32)]) -> Option<Rect> {
    if hull.len() < 3 {
        return None;
    }
    let mut best: Option<(f32, Rect)> = None;
    for i in 0..hull.len() {
        let (p, q) = (hull[i], hull[(i + 1) % hull.len()]);
        let len = dist(p, q);
        if len < 1e-3 {
            continue;
        }
        let u = ((q.0 - p.0) / len, (q.1 - p.1) / len);
        let (mut lo_u, mut hi_u, mut lo_v, mut hi_v) = (f32::MAX, f32::MIN, f32::MAX, f32::MIN);
        for &h in hull {
            let (pu, pv) = (h.0 * u.0 + h.1 * u.1, -h.0 * u.1 + h.1 * u.0);
            lo_u = lo_u.min(pu);
            hi_u = hi_u.max(pu);
            lo_v = lo_v.min(pv);
            hi_v = hi_v.max(pv);
        }
        let area = (hi_u - lo_u) * (hi_v - lo_v);
        if best.as_ref().is_none_or(|b| area < b.0) {
            let (mu, mv) = ((lo_u + hi_u) / 2.0, (lo_v + hi_v) / 2.0);
            let c = (mu * u.0 - mv * u.1, mu * u.1 + mv * u.0);
            let rect = Rect {
                c,
                u,
                a: (hi_u - lo_u) / 2.0,
                b: (hi_v - lo_v) / 2.0,
            };
            best = Some((area, rect));
        }
    }
    best.map(|b| b.1)
}

/// Boundary pixel centres sit half a pixel inside the card's outer edge.
const EDGE: f32 = 0.5;

/// Refines the sides of the `rough` outline (outer edge, as the result)
/// against the boundary pixels and returns the corners where the fitted
/// sides meet. A side with too few pixels along it (another card touches it
/// there) keeps the rough side.
fn refine(rough: &[(f32, f32); 4], boundary: &[Edge]) -> Option<[(f32, f32); 4]> {
    let mut lines: Vec<Line> = Vec::with_capacity(4);
    for (i, (_, normal)) in sides(rough).into_iter().enumerate() {
        let (a, b) = (rough[i], rough[(i + 1) % 4]);
        let len = dist(a, b).max(1e-3);
        let d = ((b.0 - a.0) / len, (b.1 - a.1) / len);
        let tol = (0.08 * len).max(2.5);
        // Only pixels whose outside lies beyond this side: across a narrow
        // gap, a touching neighbour's edge faces the other way.
        let mut near: Vec<(f32, f32)> = boundary
            .iter()
            .filter(|e| {
                let (vx, vy) = (e.p.0 - a.0, e.p.1 - a.1);
                let along = vx * d.0 + vy * d.1;
                let off = (vx * normal.0 + vy * normal.1).abs();
                let facing = e.out.0 * normal.0 + e.out.1 * normal.1 > 0.0;
                along > 0.15 * len && along < 0.85 * len && off < tol && facing
            })
            .map(|e| e.p)
            .collect();
        let mut line = fit_line(&near);
        for _ in 0..2 {
            let Some(l) = line else { break };
            let n = (-l.1.1, l.1.0);
            near.retain(|p| ((p.0 - l.0.0) * n.0 + (p.1 - l.0.1) * n.1).abs() < 1.5);
            line = fit_line(&near);
        }
        lines.push(match line {
            Some(l) if near.len() as f32 >= (0.25 * len).max(4.0) => {
                // Boundary pixel centres sit half a pixel inside the edge.
                let n = (-l.1.1, l.1.0);
                let out = if n.0 * normal.0 + n.1 * normal.1 > 0.0 {
                    EDGE
                } else {
                    -EDGE
                };
                ((l.0.0 + n.0 * out, l.0.1 + n.1 * out), l.1)
            }
            _ => (a, d),
        });
    }
    let diagonal = dist(rough[0], rough[2]);
    let mut corners = [(0.0, 0.0); 4];
    for (i, c) in corners.iter_mut().enumerate() {
        let l0 = lines[(i + 3) % 4];
        let l1 = lines[i];
        let p = intersect(
            (l0.0, (l0.0.0 + l0.1.0, l0.0.1 + l0.1.1)),
            (l1.0, (l1.0.0 + l1.1.0, l1.0.1 + l1.1.1)),
        )?;
        // A refined corner far from the rough one means the fit went wrong.
        if dist(p, rough[i]) > 0.25 * diagonal {
            return None;
        }
        *c = p;
    }
    Some(corners)
}

/// Orders corners clockwise (in the frame) starting so that the first side
/// is a short one, with the first corner the upper-left of the two choices.
pub(super) fn portrait(mut q: [(f32, f32); 4]) -> [(f32, f32); 4] {
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

/// The outline `corners` (portrait order) widened by `margin` of the
/// card's width on its left and right and of its height above and below,
/// in the card's own plane (under the camera's perspective).
pub(crate) fn widened(corners: &[(f32, f32); 4], margin: f32) -> Option<[(f32, f32); 4]> {
    outline_within(corners, (-margin, -margin), (1.0 + margin, 1.0 + margin))
}

/// The outline of the rectangle from `lo` to `hi` in the coordinates in
/// which `corners` span the unit square (across, down), under the same
/// perspective.
pub(crate) fn outline_within(
    corners: &[(f32, f32); 4],
    lo: (f32, f32),
    hi: (f32, f32),
) -> Option<[(f32, f32); 4]> {
    let unit = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
    let m = homography(&unit, corners)?;
    let at = |u: f64, v: f64| {
        let w = m[6] * u + m[7] * v + m[8];
        (
            ((m[0] * u + m[1] * v + m[2]) / w) as f32,
            ((m[3] * u + m[4] * v + m[5]) / w) as f32,
        )
    };
    let (lo, hi) = (
        (f64::from(lo.0), f64::from(lo.1)),
        (f64::from(hi.0), f64::from(hi.1)),
    );
    Some([
        at(lo.0, lo.1),
        at(hi.0, lo.1),
        at(hi.0, hi.1),
        at(lo.0, hi.1),
    ])
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
/// `corners` are the card's outer edge in frame coordinates, portrait order
/// as in [`Detected`].
pub fn rectify(frame: &RgbImage, corners: &[(f32, f32); 4]) -> RgbImage {
    // Half a pixel up and left of the exact point, as rectify has always
    // sampled: learned templates are tuned on that. The corner code reads
    // more surely from the exact point.
    rectify_to(frame, corners, RECT_W, RECT_H, 0.5)
}

/// [`rectify`] to `out_w`×`out_h`, sampling `shift` pixels up and left of
/// the exact point.
pub(crate) fn rectify_to(
    frame: &RgbImage,
    corners: &[(f32, f32); 4],
    out_w: u32,
    out_h: u32,
    shift: f32,
) -> RgbImage {
    let mut out = RgbImage::new(out_w, out_h);
    rectify_window(frame, corners, &mut out, shift, (0..out_w, 0..out_h));
    out
}

/// The card under `corners` at [`RECT_W`]×[`RECT_H`] as [`rectify`] makes
/// it, but with only its two corner codes filled in (the rest black): all
/// the corner code reader looks at, an eighth of the pixels.
pub(crate) fn rectify_corner_codes(frame: &RgbImage, corners: &[(f32, f32); 4]) -> RgbImage {
    let mut out = RgbImage::new(RECT_W, RECT_H);
    let [(cx, cy), _] = crate::print::classic::corner_code_centres();
    let (rx, ry) = crate::print::classic::corner_code_reach();
    // The code spans from `2c - r` to `r` of the card; a pixel more on each
    // side for the reader's rounding.
    let span = |near: f32, far: f32, n: u32| {
        let n_f = n as f32;
        let lo = ((near * n_f).floor() as u32).saturating_sub(1);
        let hi = ((far * n_f).ceil() as u32 + 1).min(n);
        (lo..hi, n - hi..n - lo)
    };
    let (xs, xs_far) = span(2.0 * cx - rx, rx, RECT_W);
    let (ys, ys_far) = span(2.0 * cy - ry, ry, RECT_H);
    rectify_window(frame, corners, &mut out, 0.5, (xs, ys));
    rectify_window(frame, corners, &mut out, 0.5, (xs_far, ys_far));
    out
}

/// Fills the pixels of `out` in the columns and rows of `window` with the
/// card under `corners`, bilinear, sampling `shift` pixels up and left of
/// the exact point; `out` spans the whole card.
fn rectify_window(
    frame: &RgbImage,
    corners: &[(f32, f32); 4],
    out: &mut RgbImage,
    shift: f32,
    (xs, ys): (std::ops::Range<u32>, std::ops::Range<u32>),
) {
    let (out_w, out_h) = out.dimensions();
    let (rw, rh) = (out_w as f32, out_h as f32);
    let dst = [(0.0, 0.0), (rw, 0.0), (rw, rh), (0.0, rh)];
    let Some(m) = homography(&dst, corners) else {
        return;
    };
    let (fw, fh) = (frame.width() as usize, frame.height() as usize);
    if fw < 2 || fh < 2 {
        return;
    }
    let (src, stride) = (frame.as_raw(), 3 * fw);
    let (max_x, max_y) = ((fw - 1) as f32, (fh - 1) as f32);
    let mf = m.map(|v| v as f32);
    let (x0_out, x1_out) = (xs.start.min(out_w) as usize, xs.end.min(out_w) as usize);
    // Each row in two passes: its source points first (divisions in
    // even runs that vectorise), then the samples.
    let n = x1_out.saturating_sub(x0_out);
    let (mut sxs, mut sys) = (vec![0.0f32; n], vec![0.0f32; n]);
    let rows = out
        .chunks_exact_mut(3 * out_w as usize)
        .enumerate()
        .skip(ys.start as usize)
        .take(ys.end.saturating_sub(ys.start) as usize);
    for (y, row) in rows {
        // Output pixel centres are at +0.5 from its outer edge. The row's
        // terms in f64, each pixel's in f32: only one rounding from here.
        let v = y as f64 + 0.5;
        let (bx, by, bw) = (
            (m[1] * v + m[2]) as f32,
            (m[4] * v + m[5]) as f32,
            (m[7] * v + m[8]) as f32,
        );
        for (k, (sx, sy)) in sxs.iter_mut().zip(sys.iter_mut()).enumerate() {
            let u = (x0_out + k) as f32 + 0.5;
            let inv = 1.0 / (mf[6] * u + bw);
            *sx = (mf[0] * u + bx) * inv - shift;
            *sy = (mf[3] * u + by) * inv - shift;
        }
        let pixels = row[3 * x0_out..3 * x1_out].chunks_exact_mut(3);
        for ((&sx, &sy), px) in sxs.iter().zip(&sys).zip(pixels) {
            if !((0.0..=max_x).contains(&sx) && (0.0..=max_y).contains(&sy)) {
                continue;
            }
            // Bilinear in 8-bit fixed point; the last row and column take
            // their full weight from the pixel before. Scaled by a power
            // of two, the point's fraction is as exact as subtracting its
            // whole part in floats.
            let (fx, fy) = ((sx * 256.0 + 0.5) as i32, (sy * 256.0 + 0.5) as i32);
            let x0 = ((fx >> 8) as usize).min(fw - 2);
            let y0 = ((fy >> 8) as usize).min(fh - 2);
            let wx = (fx - ((x0 as i32) << 8)) as u32;
            let wy = (fy - ((y0 as i32) << 8)) as u32;
            let i = y0 * stride + 3 * x0;
            let (r0, r1) = (&src[i..i + 6], &src[i + stride..i + stride + 6]);
            let (ax, ay) = (256 - wx, 256 - wy);
            for k in 0..3 {
                let top = u32::from(r0[k]) * ax + u32::from(r0[k + 3]) * wx;
                let bot = u32::from(r1[k]) * ax + u32::from(r1[k + 3]) * wx;
                px[k] = ((top * ay + bot * wy + (1 << 15)) >> 16) as u8;
            }
        }
    }
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
pub(crate) mod tests {
    use super::*;
    use crate::finder::{detect, find};
    use crate::lattice::tests::card_image;
    use crate::scene::{
        HandParams, Look, OccluderLook, SKIN_TONES, SceneParams, Surface, SurfaceKind, felt, render,
    };
    use arbiter_core::table::{Cell, Colour, Table};
    use std::sync::OnceLock;

    #[test]
    fn an_opening_keeps_what_holds_the_square_and_nothing_else() {
        // A mask of speckle, stripes and blocks, opened, against the
        // definition: a pixel stays when some (2r+1)-square lying wholly
        // on the mask covers it.
        let (w, h) = (41, 29);
        let mut seed = 7u32;
        let mask: Vec<bool> = (0..w * h)
            .map(|i| {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                let (x, y) = (i % w, i / w);
                (5..20).contains(&x) && (4..15).contains(&y)
                    || y % 9 < 2
                    || (seed >> 24).is_multiple_of(5)
            })
            .collect();
        for r in [1usize, 2, 4] {
            let fits = |cx: usize, cy: usize| {
                cx >= r
                    && cy >= r
                    && cx + r < w
                    && cy + r < h
                    && (cy - r..=cy + r).all(|y| (cx - r..=cx + r).all(|x| mask[y * w + x]))
            };
            let want: Vec<bool> = (0..w * h)
                .map(|i| {
                    let (x, y) = ((i % w) as i64, (i / w) as i64);
                    let r = r as i64;
                    (y - r..=y + r).any(|cy| {
                        (x - r..=x + r)
                            .any(|cx| cx >= 0 && cy >= 0 && fits(cx as usize, cy as usize))
                    })
                })
                .collect();
            assert_eq!(opened(&mask, w, h, r), want, "r = {r}");
        }
        // The block survives the widest opening whole; the two-pixel
        // stripes do not.
        let wide = opened(&mask, w, h, 4);
        assert!((5..20).all(|x| (4..15).all(|y| wide[y * w + x])));
        assert!(!wide[20 * w + 30]);
    }

    #[test]
    fn a_card_read_again_replaces_the_unread_outlines_about_it_only() {
        let at = |x: f32, token: Option<Token>| Detected {
            corners: [
                (x - 30.0, 0.0),
                (x + 30.0, 0.0),
                (x + 30.0, 84.0),
                (x - 30.0, 84.0),
            ],
            centre: (x, 42.0),
            token,
            confidence: 0.3,
        };
        let mut out = vec![
            // Snagged on the cloth, about the card read again.
            (at(100.0, None), Source::Colour),
            // The next card, unread, and a card read.
            (at(170.0, None), Source::Colour),
            (at(240.0, Some(Token::Down)), Source::Region),
        ];
        replace_unread(&mut out, at(104.0, Some(Token::Down)));
        let left: Vec<(f32, bool)> = out
            .iter()
            .map(|(d, _)| (d.centre.0, d.token.is_some()))
            .collect();
        assert_eq!(left, [(170.0, false), (240.0, true), (104.0, true)]);
    }

    #[test]
    fn doubled_runs_cover_both_rows_of_each_half_row() {
        let runs = [
            Run { y: 0, x0: 1, x1: 3 },
            Run { y: 0, x0: 5, x1: 6 },
            Run { y: 2, x0: 0, x1: 2 },
        ];
        let ys: Vec<(u32, u32, u32)> = doubled(&runs).iter().map(|r| (r.y, r.x0, r.x1)).collect();
        assert_eq!(
            ys,
            [
                (0, 2, 6),
                (0, 10, 12),
                (1, 2, 6),
                (1, 10, 12),
                (4, 0, 4),
                (5, 0, 4)
            ]
        );
    }

    #[test]
    fn otsu_splits_two_humps_between_them() {
        let mut hist = [0usize; 256];
        for (centre, n) in [(60usize, 900usize), (200, 300)] {
            for d in 0..20 {
                hist[centre + d - 10] += n / 20;
            }
        }
        // Pixels at the threshold go with the darker side.
        let t = otsu(&hist);
        assert!((69..190).contains(&t), "threshold {t}");
        // One hump alone has nothing to split on either side of it.
        let mut one = [0usize; 256];
        one[128] = 1000;
        assert_eq!(otsu(&one), 0);
    }

    /// The corner codes rectified alone are the full rectification's, pixel
    /// for pixel, and read as the full card does; the rest is left black.
    #[test]
    fn corner_codes_rectified_alone_read_as_the_whole_card() {
        let t = table(TABLES[3]);
        let s = render(&t, &base(), &card_image, cloth());
        let [(cx, cy), _] = crate::print::classic::corner_code_centres();
        let (mut faces, mut black) = (0, 0);
        for c in &s.truth {
            let full = rectify(&s.image, &c.corners_px);
            let codes = rectify_corner_codes(&s.image, &c.corners_px);
            assert_eq!(
                crate::print::classic::read_corner_code(&codes),
                crate::print::classic::read_corner_code(&full),
                "{:?}",
                c.cell
            );
            if c.token != Token::Down {
                faces += 1;
                assert_eq!(
                    crate::print::classic::read_corner_code(&codes),
                    c.token.card()
                );
            }
            // A code's centre, in both corners, is the full card's pixel.
            for (u, v) in [(cx, cy), (1.0 - cx, 1.0 - cy)] {
                let (x, y) = ((u * RECT_W as f32) as u32, (v * RECT_H as f32) as u32);
                assert_eq!(codes.get_pixel(x, y), full.get_pixel(x, y));
            }
            // The middle of the card (the glyph) is not rectified.
            black += usize::from(codes.get_pixel(RECT_W / 2, RECT_H / 2).0 == [0; 3]);
        }
        assert!(faces >= 10, "{faces} faces");
        assert_eq!(black, s.truth.len());
    }

    /// Rectifying is bilinear sampling at each output pixel's centre
    /// mapped through the homography, rounded as the plain definition
    /// rounds, pixel for pixel: however fast, it samples what the learned
    /// templates were learned from. Quads partly outside the frame leave
    /// their outside pixels black.
    #[test]
    fn rectifying_samples_exactly_the_bilinear_definition() {
        use rand::{Rng, SeedableRng, rngs::StdRng};
        let mut rng = StdRng::seed_from_u64(7);
        let (fw, fh) = (97u32, 61u32);
        let frame = RgbImage::from_fn(fw, fh, |_, _| image::Rgb(rng.random::<[u8; 3]>()));
        let at =
            |x: usize, y: usize, k: usize| u32::from(frame.as_raw()[3 * (y * fw as usize + x) + k]);
        for case in 0..200 {
            let c: [(f32, f32); 4] = std::array::from_fn(|_| {
                (
                    rng.random_range(-20.0..117.0),
                    rng.random_range(-20.0..81.0),
                )
            });
            let (ow, oh, shift) = (
                rng.random_range(2..40),
                rng.random_range(2..40),
                [0.0, 0.5][case % 2],
            );
            let got = rectify_to(&frame, &c, ow, oh, shift);
            let Some(m) = homography(
                &[
                    (0.0, 0.0),
                    (ow as f32, 0.0),
                    (ow as f32, oh as f32),
                    (0.0, oh as f32),
                ],
                &c,
            ) else {
                continue;
            };
            for y in 0..oh {
                for x in 0..ow {
                    let v = y as f64 + 0.5;
                    let (bx, by, bw) = (
                        (m[1] * v + m[2]) as f32,
                        (m[4] * v + m[5]) as f32,
                        (m[7] * v + m[8]) as f32,
                    );
                    let u = x as f32 + 0.5;
                    let inv = 1.0 / (m[6] as f32 * u + bw);
                    let sx = (m[0] as f32 * u + bx) * inv - shift;
                    let sy = (m[3] as f32 * u + by) * inv - shift;
                    let inside = (0.0..=(fw - 1) as f32).contains(&sx)
                        && (0.0..=(fh - 1) as f32).contains(&sy);
                    let want: [u8; 3] = if !inside {
                        [0; 3]
                    } else {
                        let (x0, y0) = (
                            (sx as usize).min(fw as usize - 2),
                            (sy as usize).min(fh as usize - 2),
                        );
                        let wx = ((sx - x0 as f32) * 256.0 + 0.5) as u32;
                        let wy = ((sy - y0 as f32) * 256.0 + 0.5) as u32;
                        std::array::from_fn(|k| {
                            let top = at(x0, y0, k) * (256 - wx) + at(x0 + 1, y0, k) * wx;
                            let bot = at(x0, y0 + 1, k) * (256 - wx) + at(x0 + 1, y0 + 1, k) * wx;
                            ((top * (256 - wy) + bot * wy + (1 << 15)) >> 16) as u8
                        })
                    };
                    assert_eq!(got.get_pixel(x, y).0, want, "case {case} at {x},{y}");
                }
            }
        }
    }

    /// The cloth of the card and deck scenes.
    pub(crate) fn cloth() -> &'static RgbImage {
        static F: OnceLock<RgbImage> = OnceLock::new();
        F.get_or_init(|| felt(128, 3))
    }

    pub(crate) fn table(text: &str) -> Table {
        Table::parse_grid(text, Cell::new(0, 0)).unwrap()
    }

    const TABLES: [&str; 4] = [
        "rK uQ ## wB\nbP ## yN rR\n",
        "wK bQ rB\n## uN ##\nyP wR bK\n",
        "uK ## rQ bN wP\n## yB ## uR rP\n",
        "wK bQ ## rB\nuN yP wR ##\nbK ## rQ uB\n## wN bP yR\n",
    ];

    pub(crate) fn base() -> SceneParams {
        SceneParams {
            width: 640,
            height: 360,
            pitch_px: 48.0,
            ..SceneParams::clean()
        }
    }

    #[derive(Default)]
    struct Tally {
        /// Cards fully in the frame and not covered by a hand.
        cards: usize,
        identified: usize,
        /// Of `cards`, those with no detection at all.
        missed: usize,
        /// Tokens that are not the true token of the card they sit on, or
        /// that sit on no card, over every detection.
        wrong: usize,
        /// Cards the hand covers in part.
        covered: usize,
        /// Of `covered`, those given a token (right or wrong).
        covered_read: usize,
    }

    /// Runs detection on one scene and matches detections to the truth by
    /// centre. `strict`: every card found once, centred and read.
    fn run(t: &Table, p: &SceneParams, tally: &mut Tally, strict: bool) {
        let s = render(t, p, &card_image, cloth());
        let found = detect(&s.image);
        let (cw, _) = p.card_size();
        let near = |d: &Detected, c: (f32, f32)| dist(d.centre, c) < 0.4 * cw;
        for d in &found {
            if d.token.is_some() && !s.truth.iter().any(|ct| near(d, ct.centre_px)) {
                tally.wrong += 1;
                eprintln!("WRONG {:?} on no card at {:?} ({p:?})", d.token, d.centre);
            }
        }
        for ct in &s.truth {
            let here: Vec<&Detected> = found.iter().filter(|d| near(d, ct.centre_px)).collect();
            for d in &here {
                if d.token.is_some_and(|tok| tok != ct.token) {
                    tally.wrong += 1;
                    eprintln!(
                        "WRONG {:?}: {:?} read as {:?} ({p:?})",
                        ct.cell, ct.token, d.token
                    );
                }
            }
            if ct.visible < 1.0 {
                tally.covered += 1;
                tally.covered_read += usize::from(here.iter().any(|d| d.token.is_some()));
                continue;
            }
            let in_frame = ct.corners_px.iter().all(|c| {
                (0.0..p.width as f32).contains(&c.0) && (0.0..p.height as f32).contains(&c.1)
            });
            if !in_frame {
                continue;
            }
            tally.cards += 1;
            if strict {
                assert_eq!(here.len(), 1, "{:?} detected {} times", ct.cell, here.len());
                let d = here[0];
                assert!(
                    dist(d.centre, ct.centre_px) < 2.0,
                    "{:?}: centre {:?} vs {:?}",
                    ct.cell,
                    d.centre,
                    ct.centre_px
                );
                assert_eq!(d.token, Some(ct.token), "{:?}", ct.cell);
            }
            if here.is_empty() {
                tally.missed += 1;
                eprintln!("MISSED {:?} at {:?} ({p:?})", ct.cell, ct.centre_px);
            } else if here.iter().any(|d| d.token == Some(ct.token)) {
                tally.identified += 1;
            }
        }
    }

    fn report(name: &str, t: &Tally) {
        println!(
            "{name}: identified {}/{} ({:.1}%), missed {}, confident-wrong {}, \
             covered {} (given a token {})",
            t.identified,
            t.cards,
            100.0 * recall(t),
            t.missed,
            t.wrong,
            t.covered,
            t.covered_read,
        );
    }

    fn recall(t: &Tally) -> f32 {
        t.identified as f32 / t.cards.max(1) as f32
    }

    /// A 1280×720 scene on a table that is not felt.
    fn on_table(kind: SurfaceKind, seed: u64) -> SceneParams {
        SceneParams {
            pitch_px: 64.0,
            layout_rotation_deg: (seed * 37 % 360) as f32,
            per_card_skew_deg: 4.0,
            tilt_deg: (seed % 3) as f32 * 10.0,
            noise_sigma: 2.0,
            jpeg_quality: Some(85),
            seed,
            look: Look {
                surface: Some(Surface::random(kind, 64.0, seed)),
                card_relief: 0.6,
                ..Look::default()
            },
            ..SceneParams::clean()
        }
    }

    /// Every surface kind but felt and the patterned cloths.
    fn plain_tables() -> impl Iterator<Item = SurfaceKind> {
        SurfaceKind::ALL.into_iter().filter(|k| {
            !matches!(
                k,
                SurfaceKind::Felt | SurfaceKind::Gingham | SurfaceKind::Stripes
            )
        })
    }

    /// Wood, white, cream, linen and slate go the general path (no hue is
    /// assumed): the cards are found by their outline and read, none
    /// wrong, and no frame without a hand is called busy (a warm wooden
    /// table was once all "skin").
    #[test]
    #[ignore = "long: cargo test-long"]
    fn plain_tables_of_every_kind_are_read_by_their_outline() {
        let mut tally = Tally::default();
        let mut busy = Vec::new();
        for (i, kind) in plain_tables().enumerate() {
            for k in 0..2u64 {
                let seed = 10 * i as u64 + k;
                let p = on_table(kind, seed);
                let text = TABLES[seed as usize % TABLES.len()];
                let s = render(&table(text), &p, &card_image, cloth());
                if find(&s.image, &CornerCode).hand {
                    busy.push(format!("{kind:?} seed {seed}"));
                }
                run(&table(text), &p, &mut tally, false);
            }
        }
        report("plain tables", &tally);
        // Issue 16 asks for under 1% of hand-free frames: a light wood's
        // planks, each a region of its own, once passed for hands.
        assert!(busy.is_empty(), "hand-free frames called busy: {busy:?}");
        assert_eq!(tally.wrong, 0);
        assert!(recall(&tally) >= RECALL_PLAIN, "too few identified");
    }

    /// The least share of cards the general path reads on plain tables.
    const RECALL_PLAIN: f32 = 0.7;

    /// A hand over the cards on a wooden table makes the frame busy by its
    /// shape, in any skin tone, and no card under it is read.
    #[test]
    fn a_hand_on_a_wooden_table_is_seen_by_its_shape() {
        for (i, skin) in SKIN_TONES.iter().enumerate().step_by(2) {
            let mut p = on_table(SurfaceKind::LightWood, 40 + i as u64);
            p.hand = Some(HandParams {
                reach: 0.5,
                from_deg: Some(30.0 + 40.0 * i as f32),
                size: 1.0,
            });
            p.look.occluder = Some(OccluderLook {
                skin: *skin,
                sleeve: None,
            });
            let s = render(&table(TABLES[3]), &p, &card_image, cloth());
            assert!(s.busy, "the scene has the hand over a card");
            assert!(find(&s.image, &CornerCode).hand, "skin {skin:?} not seen");
        }
    }

    #[test]
    fn clean_scenes_find_and_read_every_card() {
        let mut tally = Tally::default();
        for (i, text) in TABLES.iter().enumerate() {
            let mut p = base();
            p.seed = i as u64;
            run(&table(text), &p, &mut tally, true);
        }
        report("clean", &tally);
        assert_eq!(tally.identified, tally.cards);
    }

    #[test]
    fn turned_and_tilted_scenes_are_never_read_wrong() {
        let mut tally = Tally::default();
        for seed in 0..12u64 {
            let text = TABLES[seed as usize % 3];
            let mut p = base();
            p.seed = seed;
            p.layout_rotation_deg = (seed as f32 * 37.0) % 360.0;
            p.per_card_skew_deg = 10.0;
            p.quarter_turns = true;
            p.gap_jitter_px = 2.0;
            p.tilt_deg = 15.0 * (seed % 3) as f32;
            run(&table(text), &p, &mut tally, false);
        }
        report("rotated/skewed/turned/tilt<=30", &tally);
        assert_eq!(tally.wrong, 0);
        assert!(recall(&tally) >= 0.97, "too few identified");
    }

    /// The hardest scenes the renderer makes, at their own size (1280×720,
    /// cards 56 px wide), without the hand.
    #[test]
    fn tough_scenes_without_a_hand_are_never_read_wrong() {
        let mut tally = Tally::default();
        for seed in 0..4u64 {
            let p = SceneParams {
                hand: None,
                seed,
                ..SceneParams::tough()
            };
            run(
                &table(TABLES[seed as usize % TABLES.len()]),
                &p,
                &mut tally,
                false,
            );
        }
        report("tough, no hand", &tally);
        assert_eq!(tally.wrong, 0);
        // Cards touching end to end along a whole side are split, but the
        // shared side is only estimated and some codes then fail to read.
        assert!(recall(&tally) >= 0.85, "too few identified");
    }

    /// Scenes anywhere between clean and tough, a hand in some.
    #[test]
    fn random_scenes_are_never_read_wrong() {
        let (mut plain, mut handed) = (Tally::default(), Tally::default());
        for seed in 0..16u64 {
            let p = SceneParams::random(seed);
            let tally = if p.hand.is_some() {
                &mut handed
            } else {
                &mut plain
            };
            run(
                &table(TABLES[seed as usize % TABLES.len()]),
                &p,
                tally,
                false,
            );
        }
        report("random, no hand", &plain);
        report("random, hand", &handed);
        assert_eq!(plain.wrong + handed.wrong, 0);
        assert_eq!(handed.covered_read, 0, "a card under the hand was read");
        assert!(recall(&plain) >= 0.95, "too few identified");
    }

    #[test]
    fn a_hand_over_cards_is_never_read_wrong() {
        let mut tally = Tally::default();
        for seed in 0..4u64 {
            let text = TABLES[seed as usize % 3];
            let mut p = base();
            p.seed = seed;
            p.hand = Some(HandParams {
                reach: 0.5,
                from_deg: Some(seed as f32 * 90.0),
                size: 1.0,
            });
            let s = render(&table(text), &p, &card_image, cloth());
            assert!(find(&s.image, &CornerCode).hand);
            run(&table(text), &p, &mut tally, false);
        }
        report("hand", &tally);
        assert_eq!(tally.wrong, 0);
        assert_eq!(tally.covered_read, 0, "a card under the hand was read");
        let mut p = base();
        p.seed = 9;
        let s = render(&table(TABLES[0]), &p, &card_image, cloth());
        assert!(!find(&s.image, &CornerCode).hand);
    }

    #[test]
    fn light_blur_noise_and_jpeg_are_never_read_wrong() {
        let mut tally = Tally::default();
        for seed in 0..4u64 {
            let text = TABLES[seed as usize % 3];
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
            run(&table(text), &p, &mut tally, false);
        }
        report("light/blur/noise/jpeg", &tally);
        assert_eq!(tally.wrong, 0);
    }

    /// Yellow ink is pale, near the paper: under any light it is still
    /// card (not felt, and not skin, which would make the frame busy).
    #[test]
    fn yellow_ink_is_card_in_any_light() {
        for ink in [[244u8, 192, 16], [214, 160, 0], [235, 205, 20]] {
            for k in [1.0f32, 0.8, 0.6, 0.4] {
                let [r, g, b] = ink.map(|c| (f32::from(c) * k) as u8);
                assert_eq!(class_of(r, g, b), CARD, "{ink:?} x {k}");
            }
        }
    }

    /// Each yellow card beside the white one of the same piece, and backs,
    /// in uneven light and JPEG: yellow is read as yellow (or not read),
    /// never as white, a back or nothing at all.
    #[test]
    fn yellow_cards_read_as_yellow_beside_white_ones_and_backs() {
        use crate::recognise::Recogniser;
        let grid = "yK wK yQ wQ\nyR wR yB wB\nyN wN yP wP\n## yK ## wN\n";
        let t = table(grid);
        let (mut yellow, mut read) = (0, 0);
        for seed in 0..6u64 {
            let mut p = base();
            p.seed = seed;
            p.layout_rotation_deg = 25.0 * seed as f32;
            p.tilt_deg = 5.0 * (seed % 3) as f32;
            p.light_gradient = 0.1 * seed as f32;
            p.shadow = 0.05 * seed as f32;
            p.jpeg_quality = Some(80);
            let s = render(&t, &p, &card_image, cloth());
            let found = detect(&s.image);
            let (cw, _) = p.card_size();
            for ct in &s.truth {
                let here: Vec<&Detected> = found
                    .iter()
                    .filter(|d| dist(d.centre, ct.centre_px) < 0.4 * cw)
                    .collect();
                assert_eq!(here.len(), 1, "{:?} seed {seed}", ct.cell);
                let got = here[0].token;
                assert!(got.is_none_or(|g| g == ct.token), "{}: {got:?}", ct.token);
                if ct.token.card().is_some_and(|c| c.colour == Colour::Yellow) {
                    yellow += 1;
                    read += usize::from(got == Some(ct.token));
                }
            }
            // The whole pipeline, with the learned templates, says the same.
            let rec = Recogniser::bundled().recognise(&s.image);
            assert!(!rec.busy, "yellow taken for a hand (seed {seed})");
            let mut want: Vec<Token> = t.iter().map(|(_, tok)| tok).collect();
            let mut got: Vec<Token> = rec.cells.iter().map(|r| r.token).collect();
            want.sort_by_key(|t| t.to_string());
            got.sort_by_key(|t| t.to_string());
            let unread = got.iter().filter(|t| **t == Token::Unreadable).count();
            assert!(unread <= 1, "seed {seed}: {got:?}");
            if unread == 0 {
                assert_eq!(got, want, "seed {seed}");
            }
        }
        println!("yellow: read {read}/{yellow}");
        assert!(read * 20 >= yellow * 19, "read {read}/{yellow}");
    }

    /// Tables with throne pairs on their outer rows, where the renderer
    /// pushes the partner off the layout.
    fn throne_tables() -> Vec<Table> {
        type Thrones = &'static [((i32, i32), &'static str)];
        let pairs: [(&str, Thrones); 3] = [
            ("uQ rB bN yR\nyP uK rP bB\n", &[((1, 1), "uK+uN")]),
            (
                "yK bQ rR\nuP ## yB\nrN bP uK\n",
                &[((0, 0), "yK+yN"), ((2, 2), "uK+uB")],
            ),
            (
                "rK yQ\nbP uN\nyK rB\n",
                &[((0, 0), "rK+rN"), ((0, 2), "yK+yQ")],
            ),
        ];
        pairs
            .iter()
            .map(|(grid, thrones)| {
                let mut t = table(grid);
                for &((c, r), pair) in *thrones {
                    t.set(Cell::new(c, r), Some(Token::parse_pair(pair).unwrap()));
                }
                t
            })
            .collect()
    }

    /// Pairs read as pairs, wherever the camera is; nothing else (the
    /// single cards beside them included) is ever read as one.
    #[test]
    fn throne_pairs_are_read_and_single_cards_never_pair() {
        let (mut pairs, mut read, mut wrong, mut singles) = (0, 0, 0, 0);
        for seed in 0..12u64 {
            let t = &throne_tables()[seed as usize % 3];
            let mut p = base();
            p.seed = seed;
            p.layout_rotation_deg = (seed as f32 * 53.0) % 360.0;
            p.per_card_skew_deg = 4.0;
            p.tilt_deg = 5.0 * (seed % 4) as f32;
            if seed % 3 == 2 {
                p.light_gradient = 0.3;
                p.noise_sigma = 3.0;
                p.jpeg_quality = Some(85);
            }
            let s = render(t, &p, &card_image, cloth());
            let found = detect(&s.image);
            let (cw, _) = p.card_size();
            for ct in &s.truth {
                let here: Vec<&Detected> = found
                    .iter()
                    .filter(|d| dist(d.centre, ct.centre_px) < 0.4 * cw)
                    .collect();
                for d in &here {
                    if d.token.is_some_and(|tok| tok != ct.token) {
                        wrong += 1;
                        eprintln!(
                            "WRONG {:?}: {} read as {:?} ({p:?})",
                            ct.cell, ct.token, d.token
                        );
                    }
                }
                match ct.token {
                    Token::Pair(..) => {
                        pairs += 1;
                        read += usize::from(here.iter().any(|d| d.token == Some(ct.token)));
                    }
                    _ => singles += 1,
                }
            }
            for d in &found {
                let on_card = s
                    .truth
                    .iter()
                    .any(|ct| dist(d.centre, ct.centre_px) < 0.4 * cw);
                if d.token.is_some() && !on_card {
                    wrong += 1;
                    eprintln!("WRONG {:?} on no card at {:?} ({p:?})", d.token, d.centre);
                }
            }
        }
        println!("throne pairs: read {read}/{pairs}, wrong {wrong}, single cards {singles}");
        assert_eq!(wrong, 0);
        assert!(read * 10 >= pairs * 9, "read {read}/{pairs}");
    }

    /// Brute-force four-connected labelling, to check the run labelling.
    fn flood_labels(w: usize, h: usize, on: &[bool]) -> Vec<usize> {
        let mut label = vec![0; w * h];
        let mut next = 0;
        for start in 0..w * h {
            if !on[start] || label[start] != 0 {
                continue;
            }
            next += 1;
            let mut stack = vec![start];
            label[start] = next;
            while let Some(i) = stack.pop() {
                let (x, y) = (i % w, i / w);
                let mut visit = |j: usize| {
                    if on[j] && label[j] == 0 {
                        label[j] = next;
                        stack.push(j);
                    }
                };
                if x > 0 {
                    visit(i - 1);
                }
                if x + 1 < w {
                    visit(i + 1);
                }
                if y > 0 {
                    visit(i - w);
                }
                if y + 1 < h {
                    visit(i + w);
                }
            }
        }
        label
    }

    #[test]
    fn run_labelling_matches_a_flood_fill() {
        use rand::{Rng, SeedableRng, rngs::StdRng};
        let mut rng = StdRng::seed_from_u64(7);
        for density in [0.3, 0.5, 0.6, 0.8] {
            let (w, h) = (37, 23);
            let on: Vec<bool> = (0..w * h).map(|_| rng.random_bool(density)).collect();
            let flood = flood_labels(w, h, &on);
            let comps = components(w, h, |i| on[i]);
            assert_eq!(comps.len(), flood.iter().copied().max().unwrap_or(0));
            let mut covered = 0;
            for runs in &comps {
                let first = runs[0];
                let l = flood[first.y as usize * w + first.x0 as usize];
                for r in runs {
                    for x in r.x0..r.x1 {
                        assert_eq!(flood[r.y as usize * w + x as usize], l);
                        covered += 1;
                    }
                }
            }
            assert_eq!(covered, on.iter().filter(|&&b| b).count());
        }
    }

    #[test]
    fn distance_transform_is_exact() {
        // A disc with a notch, in a patch with its margin.
        let mut runs = Vec::new();
        for y in 0..21u32 {
            let dy = y as f32 - 10.0;
            let half = (100.0 - dy * dy).max(0.0).sqrt() as u32;
            let (x0, x1) = (10 - half, 10 + half + 1);
            if y == 10 {
                runs.push(Run { y, x0, x1: 8 });
                runs.push(Run { y, x0: 9, x1 });
            } else {
                runs.push(Run { y, x0, x1 });
            }
        }
        let patch = Patch::new(&runs);
        let d = patch.distance_sq();
        let (w, h) = (patch.w, patch.h);
        for (i, &got) in d.iter().enumerate() {
            let mut best = f32::MAX;
            for j in 0..w * h {
                if !patch.on[j] {
                    let dx = (i % w) as f32 - (j % w) as f32;
                    let dy = (i / w) as f32 - (j / w) as f32;
                    best = best.min(dx * dx + dy * dy);
                }
            }
            assert_eq!(got, best, "pixel {i}");
        }
    }

    #[test]
    fn spans_cover_the_pixels_inside_a_quadrilateral() {
        let quads = [
            [(3.2, 1.5), (17.9, 4.0), (15.1, 19.7), (1.0, 16.2)],
            [(10.0, 0.0), (20.0, 10.0), (10.0, 20.0), (0.0, 10.0)],
            [(2.0, 2.0), (12.0, 2.0), (12.0, 9.0), (2.0, 9.0)],
        ];
        for q in quads {
            let mut inside = vec![false; 24 * 24];
            for_spans(&q, 24, 24, |y, x0, x1| {
                for x in x0..x1 {
                    inside[y * 24 + x] = true;
                }
            });
            for y in 0..24 {
                for x in 0..24 {
                    let p = (x as f32, y as f32);
                    // Signed areas of the four triangles: inside when none
                    // is negative (clockwise order) or none positive.
                    let s: Vec<f32> = (0..4)
                        .map(|i| {
                            let (a, b) = (q[i], q[(i + 1) % 4]);
                            (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0)
                        })
                        .collect();
                    let want = s.iter().all(|&v| v >= 0.0) || s.iter().all(|&v| v <= 0.0);
                    assert_eq!(inside[y * 24 + x], want, "{q:?} at {p:?}");
                }
            }
        }
    }
}
