//! The coded deck's reader: cards found and named by their codes alone
//! ([`crate::codes`]), no hand-made identification.
//!
//! Every code the detector reads gives the whole card's outline (its pose
//! and where it lies on the card, [`crate::print::CODE_LAYOUT`]). Codes
//! whose cards' centres fall together are one card: its two codes, or one
//! when the other is covered, which then counts only read with no cell
//! corrected ([`MOST_CORRECTED_ALONE`]: a quad of something else comes
//! within a cell or two of a code now and then, never twice at one card's
//! two places). A card is named when its codes agree and none was read
//! with more than [`MOST_CORRECTED`] cells corrected; otherwise it is
//! `??`, and [`CodedCard::doubt`] says why. The outlines go
//! to the same lattice and tracking as any other reader's.

use image::RgbImage;

use crate::codes::{self, CodeSeen, MOST_CORRECTED, MOST_CORRECTED_ALONE, Named};
use crate::print::CODE_LAYOUT;
use crate::shapes::solve;
use arbiter_core::table::Token;

/// A card's outline in the frame: top-left, top-right, bottom-right,
/// bottom-left as one of its codes sees it (either end may be the top).
pub type Outline = [(f32, f32); 4];

/// Codes whose cards' centres lie closer than this, in card widths, are
/// the same card. Two cards never lie closer than a card's width apart
/// (a throne's partner sticks out half a width, and shows its own code
/// away from the king's), while one card's two codes agree to a few
/// hundredths.
const SAME_CARD: f32 = 0.3;

/// Why a card shown by its codes is not named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Doubt {
    /// Its codes read with this many cells corrected (the worst of them):
    /// too near another code to trust.
    Unsure(usize),
    /// Its two codes name different cards.
    Disagree(Named, Named),
    /// A lamp's glare washed out where a card lies, codes and all.
    Glare,
}

impl std::fmt::Display for Doubt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Doubt::Unsure(n) => write!(
                f,
                "its codes read with {n} of their cells wrong (at most {MOST_CORRECTED} are trusted)"
            ),
            Doubt::Disagree(a, b) => write!(
                f,
                "its two codes disagree ({} and {})",
                a.token(),
                b.token()
            ),
            Doubt::Glare => write!(f, "glare washes out its codes"),
        }
    }
}

/// One card found by its codes.
#[derive(Clone, Debug, PartialEq)]
pub struct CodedCard {
    pub corners: Outline,
    pub centre: (f32, f32),
    /// What it shows; `None` for `??` (see `doubt`).
    pub token: Option<Token>,
    /// 0–1: how sure the reading is.
    pub confidence: f32,
    /// How many of its codes were read (1 or 2; 0 for a card glare
    /// washed out).
    pub codes: usize,
    /// Why it is `??`, when it is.
    pub doubt: Option<Doubt>,
    /// Its code not read lies under something that is no card: a hand,
    /// most likely, reaching over the table (see [`covered`]).
    pub covered: bool,
}

/// Every card of the coded deck in `frame`, and `??` where a lamp's glare
/// washed out a card's whole face.
pub fn cards(frame: &RgbImage) -> Vec<CodedCard> {
    let seen = codes::detect(frame);
    let mut cards = group(&seen);
    let lone: Vec<Option<&CodeSeen>> = cards.iter().map(|c| lone_code(&seen, c)).collect();
    let hidden: Vec<bool> = lone
        .iter()
        .zip(&cards)
        .map(|(code, card)| code.is_some_and(|code| covered(frame, card, code, &cards)))
        .collect();
    for (card, hidden) in cards.iter_mut().zip(hidden) {
        card.covered = hidden;
    }
    let blanks = glare_blanks(frame, &cards);
    cards.extend(blanks);
    cards
}

/// Why the coded deck's `??` cards are not named, said to the players with
/// what mends it: the first of glare, codes that disagree, and codes read
/// with too many cells wrong that any card shows. The same words each
/// frame the cause lasts, so that a view says it once.
pub(crate) fn doubt_note(cards: &[CodedCard]) -> Option<String> {
    let doubts: Vec<Doubt> = cards.iter().filter_map(|c| c.doubt).collect();
    if doubts.contains(&Doubt::Glare) {
        return Some(
            "?? where a lamp's glare washes out a card's codes: move the lamp, or tilt the \
             camera, until its reflection lies off the cards"
                .to_string(),
        );
    }
    if let Some(Doubt::Disagree(a, b)) = doubts.iter().find(|d| matches!(d, Doubt::Disagree(..))) {
        return Some(format!(
            "?? where a card's two codes name different cards ({} and {}): is it a card of \
             another printing? Take it off the table and put the right one down",
            a.token(),
            b.token()
        ));
    }
    doubts.iter().find_map(|d| match d {
        Doubt::Unsure(n) => Some(format!(
            "?? where a card's codes read with {n} cells wrong: a crease, a stain or blur; \
             smooth the card, or bring the camera nearer"
        )),
        _ => None,
    })
}

/// The one code a card was read by, when it shows only one.
fn lone_code<'a>(seen: &'a [CodeSeen], card: &CodedCard) -> Option<&'a CodeSeen> {
    if card.codes != 1 {
        return None;
    }
    let short = short_side(&card.corners);
    seen.iter().find(|s| {
        let c = centre(&s.card_outline(&CODE_LAYOUT));
        (c.0 - card.centre.0).hypot(c.1 - card.centre.1) < 0.05 * short
    })
}

/// A sample of the ring of the code not read is paper if it lies within
/// this share of the read code's contrast of the read code's own paper.
const RING_FITS: f32 = 0.15;
/// A card's code not read is covered when this share of the white ring
/// round it is darker than paper.
const COVERED_SHARE: f32 = 0.25;

/// Whether the code a card was not read by is hidden under something that
/// is no card: where it should be, a quarter of the white ring round it
/// is darker than the paper round the code read on the same card (as
/// blurred, and lit alike). A hand does that, bare, gloved or sleeved,
/// whatever it makes of the black border; glare, which washes a code out,
/// only ever makes the ring whiter, and a code too small or blurred to
/// read still has its ring. A darker ring may still be the code in plain
/// sight, in a shadow or beside a read code in a lamp's spot: then its
/// cells show the print ([`other_code_in_sight`]) and it is not covered.
/// A code off the frame, or under another card read (a throne's partner
/// under its king), is not covered.
pub(crate) fn covered(
    frame: &RgbImage,
    card: &CodedCard,
    code: &CodeSeen,
    cards: &[CodedCard],
) -> bool {
    // The rings' middles in a code's coordinates (-1 to 1 across the
    // black border, 7 cells): the border's outer cell, and the quiet
    // ring's cell outside it.
    let cell = 2.0 / codes::BORDER_CELLS as f32;
    let ring = |r: f32| -> Vec<(f32, f32)> {
        (0..32)
            .map(|k| {
                let s = -r + 2.0 * r * ((k % 8) as f32 + 0.5) / 8.0;
                match k / 8 {
                    0 => (s, -r),
                    1 => (r, s),
                    2 => (-s, r),
                    _ => (-r, -s),
                }
            })
            .collect()
    };
    let (border, quiet) = (ring(1.0 - cell / 2.0), ring(1.0 + cell / 2.0));
    let sample = |pts: &[(f32, f32)], other: bool| -> Option<Vec<f32>> {
        pts.iter()
            .map(|&p| {
                let p = if other {
                    CODE_LAYOUT.in_other_code(p)
                } else {
                    p
                };
                luma_at(frame, code.project(p))
            })
            .collect()
    };
    let (Some(own_ink), Some(own_paper)) = (sample(&border, false), sample(&quiet, false)) else {
        return false;
    };
    let Some(paper) = sample(&quiet, true) else {
        return false;
    };
    let contrast = median(&own_paper) - median(&own_ink);
    if contrast <= 0.0 {
        return false;
    }
    let paper_fits = percentile(&own_paper, 0.1) - RING_FITS * contrast;
    let darker = paper.iter().filter(|&&v| v < paper_fits).count();
    if (darker as f32) < COVERED_SHARE * paper.len() as f32 {
        return false;
    }
    // A ring darker than the read code's paper may yet be the other code
    // in plain sight, lit less (the read one in glare) or blurred past the
    // detector's finding it on a small card: then it is no hand.
    if other_code_in_sight(frame, code, contrast) {
        return false;
    }
    let at = code.project(CODE_LAYOUT.in_other_code((0.0, 0.0)));
    let under_a_card = cards.iter().any(|c| {
        c.token.is_some()
            && (c.centre.0 - card.centre.0).hypot(c.centre.1 - card.centre.1) > 1.0
            && inside(&c.corners, at)
    });
    !under_a_card
}

/// The other code's cells (border, data and quiet ring) may be this many
/// off what the card's code prints and it still counts as in sight: a
/// blurred cell on the threshold or two. A hand, a sleeve or the table
/// leaves dozens of the 81 cells wrong; a part of the code covered, the
/// cells under it.
const IN_SIGHT_WRONG_CELLS: usize = 6;
/// ...and its printed black and white must lie this share of the read
/// code's contrast apart (a shadow's gentle texture matched by chance
/// would not).
const IN_SIGHT_CONTRAST: f32 = 0.4;

/// Whether the card's other code, the one the detector did not read, is
/// in sight where `code` puts it: its 9×9 cells sampled at their middles
/// match what is printed there, to [`IN_SIGHT_WRONG_CELLS`], somewhere
/// within a cell and a half of where the read code's pose puts them (a
/// pose taken from one code drifts across the card under blur or a lens).
fn other_code_in_sight(frame: &RgbImage, code: &CodeSeen, contrast: f32) -> bool {
    let cells = codes::code_cells(code.id);
    let n = codes::CODE_CELLS;
    let cell = 2.0 / codes::BORDER_CELLS as f32;
    let mut at = Vec::with_capacity(n * n);
    let mut white = Vec::with_capacity(n * n);
    for (r, row) in cells.iter().enumerate() {
        for (c, &w) in row.iter().enumerate() {
            // A cell's middle in the other code's own coordinates: the
            // quiet ring is cell 0, the black border begins at -1.
            let own = (
                -1.0 + (c as f32 - 0.5) * cell,
                -1.0 + (r as f32 - 0.5) * cell,
            );
            at.push(code.project(CODE_LAYOUT.in_other_code(own)));
            white.push(w);
        }
    }
    let a = code.project(CODE_LAYOUT.in_other_code((0.0, 0.0)));
    let b = code.project(CODE_LAYOUT.in_other_code((cell, 0.0)));
    let px = (b.0 - a.0).hypot(b.1 - a.1);
    const STEPS: i32 = 6;
    let step = 1.5 * px / STEPS as f32;
    let mut lumas = vec![0.0f32; at.len()];
    for i in -STEPS..=STEPS {
        for j in -STEPS..=STEPS {
            let (dx, dy) = (i as f32 * step, j as f32 * step);
            let mut all_in = true;
            for (l, p) in lumas.iter_mut().zip(&at) {
                match luma_at(frame, (p.0 + dx, p.1 + dy)) {
                    Some(v) => *l = v,
                    None => {
                        all_in = false;
                        break;
                    }
                }
            }
            if all_in && matches_print(&lumas, &white, contrast) {
                return true;
            }
        }
    }
    false
}

/// Whether `lumas`, the 9×9 cells row by row, show the print `white`:
/// fitted as light that varies evenly across the code (a lamp's spot or a
/// shadow's edge is even enough over one code) plus the print's contrast,
/// that contrast is at least [`IN_SIGHT_CONTRAST`] of the read code's,
/// and no more than [`IN_SIGHT_WRONG_CELLS`] cells lie on the wrong side
/// of half of it.
fn matches_print(lumas: &[f32], white: &[bool], contrast: f32) -> bool {
    let n = codes::CODE_CELLS;
    let centre = (n / 2) as f64;
    let terms = |i: usize, w: bool| {
        [
            1.0,
            (i % n) as f64 - centre,
            (i / n) as f64 - centre,
            f64::from(u8::from(w)),
        ]
    };
    // Least squares for luma = a + b·column + c·row + d·white, by the
    // normal equations.
    let mut ata = vec![vec![0.0f64; 4]; 4];
    let mut atb = vec![0.0f64; 4];
    for (i, (&l, &w)) in lumas.iter().zip(white).enumerate() {
        let t = terms(i, w);
        for (r, row) in ata.iter_mut().enumerate() {
            for (c, v) in row.iter_mut().enumerate() {
                *v += t[r] * t[c];
            }
            atb[r] += t[r] * f64::from(l);
        }
    }
    let Some(fit) = solve(ata, atb) else {
        return false;
    };
    let print = fit[3];
    if print < f64::from(IN_SIGHT_CONTRAST * contrast) {
        return false;
    }
    let wrong = lumas
        .iter()
        .zip(white)
        .enumerate()
        .filter(|&(i, (&l, &w))| {
            let t = terms(i, false);
            let light = fit[0] + fit[1] * t[1] + fit[2] * t[2];
            (f64::from(l) - light >= print / 2.0) != w
        })
        .count();
    wrong <= IN_SIGHT_WRONG_CELLS
}

/// The frame's luma at `p` (bilinear); `None` off the frame.
fn luma_at(frame: &RgbImage, (x, y): (f32, f32)) -> Option<f32> {
    let (w, h) = (frame.width() as f32, frame.height() as f32);
    if !(x >= 0.0 && y >= 0.0 && x < w - 1.0 && y < h - 1.0) {
        return None;
    }
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = (x - x0, y - y0);
    let luma = |x: u32, y: u32| {
        let p = frame.get_pixel(x, y).0;
        0.299 * f32::from(p[0]) + 0.587 * f32::from(p[1]) + 0.114 * f32::from(p[2])
    };
    let (x0, y0) = (x0 as u32, y0 as u32);
    let top = luma(x0, y0) * (1.0 - fx) + luma(x0 + 1, y0) * fx;
    let bottom = luma(x0, y0 + 1) * (1.0 - fx) + luma(x0 + 1, y0 + 1) * fx;
    Some(top * (1.0 - fy) + bottom * fy)
}

fn median(v: &[f32]) -> f32 {
    percentile(v, 0.5)
}

/// The value a share `q` of `v` lies below (nearest rank).
fn percentile(v: &[f32], q: f32) -> f32 {
    let mut v = v.to_vec();
    v.sort_by(f32::total_cmp);
    let i = ((v.len() as f32 * q) as usize).min(v.len().saturating_sub(1));
    v.get(i).copied().unwrap_or(0.0)
}

/// Whether `p` lies inside the convex outline `o`.
fn inside(o: &Outline, p: (f32, f32)) -> bool {
    let side = |a: (f32, f32), b: (f32, f32)| (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0);
    let s: Vec<f32> = (0..4).map(|i| side(o[i], o[(i + 1) % 4])).collect();
    s.iter().all(|&v| v >= 0.0) || s.iter().all(|&v| v <= 0.0)
}

/// A pixel this bright in every channel is clipped: nothing printed shows
/// through it.
const CLIPPED: u8 = 250;
/// A card's place this much clipped holds a card glare washed out (the
/// cloth, matte, rarely clips; a card's stock, glossy, does).
const GLARE_WASHED: f32 = 0.35;

/// `??` cards where glare washed a card out beside the cards read: each
/// place a card would lie beside one read (its outline moved by a card
/// and a gap along either side), holding no card read and clipped over at
/// least [`GLARE_WASHED`] of it; then beside those, so a lamp's spot over
/// a few cards leaves each of them `??`. A card no one could read is
/// there; a place next to no card read is never guessed at.
fn glare_blanks(frame: &RgbImage, cards: &[CodedCard]) -> Vec<CodedCard> {
    let mut out: Vec<CodedCard> = Vec::new();
    let mut from: Vec<CodedCard> = cards
        .iter()
        .filter(|c| c.token.is_some())
        .cloned()
        .collect();
    // Each round looks beside the last round's cards; a spot covers a few.
    for _ in 0..3 {
        let mut found = Vec::new();
        for c in &from {
            let (o, short) = (c.corners, short_side(&c.corners));
            let u = (o[1].0 - o[0].0, o[1].1 - o[0].1);
            let v = (o[3].0 - o[0].0, o[3].1 - o[0].1);
            let gap = 0.12 * short;
            let step = |a: (f32, f32)| {
                let l = a.0.hypot(a.1).max(1.0);
                (a.0 * (l + gap) / l, a.1 * (l + gap) / l)
            };
            let (su, sv) = (step(u), step(v));
            for (du, dv) in [(-1.0, 0.0), (1.0, 0.0), (0.0, -1.0), (0.0, 1.0)] {
                let shift = (du * su.0 + dv * sv.0, du * su.1 + dv * sv.1);
                let centre = (c.centre.0 + shift.0, c.centre.1 + shift.1);
                let taken =
                    cards.iter().chain(&out).chain(&found).any(|k| {
                        (k.centre.0 - centre.0).hypot(k.centre.1 - centre.1) < 0.5 * short
                    });
                if taken {
                    continue;
                }
                let corners = o.map(|p| (p.0 + shift.0, p.1 + shift.1));
                if clipped_share(frame, &corners) >= GLARE_WASHED {
                    found.push(CodedCard {
                        corners,
                        centre,
                        token: None,
                        confidence: 0.3,
                        codes: 0,
                        doubt: Some(Doubt::Glare),
                        covered: false,
                    });
                }
            }
        }
        if found.is_empty() {
            break;
        }
        out.extend(found.iter().cloned());
        from = found;
    }
    out
}

/// The share of a card's place (sampled on a grid inside its outline)
/// that is clipped; a place partly off the frame counts what is in it.
fn clipped_share(frame: &RgbImage, o: &Outline) -> f32 {
    let (w, h) = (frame.width() as f32, frame.height() as f32);
    let (mut clipped, mut n) = (0u32, 0u32);
    for i in 0..8 {
        for j in 0..11 {
            let (s, t) = ((i as f32 + 0.5) / 8.0, (j as f32 + 0.5) / 11.0);
            let top = (
                o[0].0 + (o[1].0 - o[0].0) * s,
                o[0].1 + (o[1].1 - o[0].1) * s,
            );
            let bottom = (
                o[3].0 + (o[2].0 - o[3].0) * s,
                o[3].1 + (o[2].1 - o[3].1) * s,
            );
            let (x, y) = (
                top.0 + (bottom.0 - top.0) * t,
                top.1 + (bottom.1 - top.1) * t,
            );
            if x < 0.0 || y < 0.0 || x >= w || y >= h {
                continue;
            }
            n += 1;
            let p = frame.get_pixel(x as u32, y as u32);
            if p.0.iter().all(|&v| v >= CLIPPED) {
                clipped += 1;
            }
        }
    }
    if n == 0 {
        0.0
    } else {
        clipped as f32 / n as f32
    }
}

/// The card whose centre lies within `drift` card widths of `outline`'s,
/// read from the part of `frame` around it only (tracking re-reads the
/// cells that changed this way): its token, confidence and outline.
pub fn read_at(frame: &RgbImage, outline: &Outline, drift: f32) -> Option<(Token, f32, Outline)> {
    let (cx, cy) = centre(outline);
    let short = short_side(outline);
    // The card's box and a card's width round it: room for its quiet rings
    // and for a card put down a little off.
    let reach = outline
        .iter()
        .map(|p| (p.0 - cx).abs().max((p.1 - cy).abs()))
        .fold(0.0f32, f32::max)
        + short;
    let (fw, fh) = (frame.width() as f32, frame.height() as f32);
    let x0 = (cx - reach).clamp(0.0, fw) as u32;
    let y0 = (cy - reach).clamp(0.0, fh) as u32;
    let x1 = (cx + reach).clamp(0.0, fw) as u32;
    let y1 = (cy + reach).clamp(0.0, fh) as u32;
    if x1 <= x0 + 8 || y1 <= y0 + 8 {
        return None;
    }
    let crop = image::imageops::crop_imm(frame, x0, y0, x1 - x0, y1 - y0).to_image();
    let (dx, dy) = (x0 as f32, y0 as f32);
    group(&codes::detect(&crop))
        .into_iter()
        .map(|mut c| {
            for p in c.corners.iter_mut() {
                *p = (p.0 + dx, p.1 + dy);
            }
            c.centre = (c.centre.0 + dx, c.centre.1 + dy);
            c
        })
        .find(|c| {
            let (x, y) = c.centre;
            (x - cx).hypot(y - cy) <= drift * short
        })
        .and_then(|c| Some((c.token?, c.confidence, c.corners)))
}

/// The codes' cards: codes of one card merged, each card named or doubted.
fn group(seen: &[CodeSeen]) -> Vec<CodedCard> {
    let outlines: Vec<Outline> = seen.iter().map(|c| c.card_outline(&CODE_LAYOUT)).collect();
    let mut taken = vec![false; seen.len()];
    let mut cards = Vec::new();
    for i in 0..seen.len() {
        if taken[i] {
            continue;
        }
        taken[i] = true;
        let here = centre(&outlines[i]);
        let short = short_side(&outlines[i]);
        let mut members = vec![i];
        for j in i + 1..seen.len() {
            let there = centre(&outlines[j]);
            if !taken[j] && (here.0 - there.0).hypot(here.1 - there.1) < SAME_CARD * short {
                taken[j] = true;
                members.push(j);
            }
        }
        // A code alone is a card only read perfectly.
        if let [only] = members[..]
            && seen[only].corrected > MOST_CORRECTED_ALONE
        {
            continue;
        }
        cards.push(card_of(seen, &outlines, &members));
    }
    // Left to right, top to bottom: the order a reading is listed in
    // does not depend on the detector's.
    cards.sort_by(|a, b| {
        let (pa, pb) = (a.centre, b.centre);
        (pa.1, pa.0)
            .partial_cmp(&(pb.1, pb.0))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    cards
}

fn card_of(seen: &[CodeSeen], outlines: &[Outline], members: &[usize]) -> CodedCard {
    // A code read with more cells corrected than is trusted counts only
    // where no trusted code lies on the card: beside one it is a quad of
    // the artwork the detector took for a code (a glyph and a swatch can
    // come within three cells of one), or a code misread that the other
    // names right.
    let trusted: Vec<usize> = members
        .iter()
        .copied()
        .filter(|&m| seen[m].corrected <= MOST_CORRECTED)
        .collect();
    let (members, doubt) = if trusted.is_empty() {
        let worst = members
            .iter()
            .map(|&m| seen[m].corrected)
            .max()
            .unwrap_or(0);
        (members.to_vec(), Some(Doubt::Unsure(worst)))
    } else {
        let first = codes::named_by(seen[trusted[0]].id);
        let other = trusted
            .iter()
            .map(|&m| codes::named_by(seen[m].id))
            .find(|n| *n != first);
        let doubt = match (first, other) {
            (Some(a), Some(Some(b))) => Some(Doubt::Disagree(a, b)),
            _ => None,
        };
        (trusted, doubt)
    };
    let members = &members[..];
    let named = codes::named_by(seen[members[0]].id);
    let worst = members
        .iter()
        .map(|&m| seen[m].corrected)
        .max()
        .unwrap_or(0);
    // The outline: the mean of the codes' outlines, each turned to the
    // first's order (the code turned 180° sees the card's corners turned).
    let base = outlines[members[0]];
    let mut sum = [(0.0f32, 0.0f32); 4];
    for &m in members {
        let o = best_turn(&base, &outlines[m]);
        for (s, p) in sum.iter_mut().zip(o) {
            s.0 += p.0;
            s.1 += p.1;
        }
    }
    let n = members.len() as f32;
    let corners = sum.map(|(x, y)| (x / n, y / n));
    let token = match doubt {
        None => named.map(Named::token),
        Some(_) => None,
    };
    // Sure by construction when named; a second code agreeing and no cell
    // corrected are what make it surer still.
    let confidence = match token {
        Some(_) => 0.9 + 0.05 * (n - 1.0) - 0.02 * worst as f32,
        None => 0.5,
    };
    CodedCard {
        corners,
        centre: centre(&corners),
        token,
        confidence,
        codes: members.len(),
        doubt,
        covered: false,
    }
}

/// `o`'s corners in the order (of its four turns) nearest `base`'s.
fn best_turn(base: &Outline, o: &Outline) -> Outline {
    (0..4)
        .map(|k| std::array::from_fn(|i| o[(i + k) % 4]))
        .min_by(|a: &Outline, b: &Outline| {
            let d = |q: &Outline| {
                q.iter()
                    .zip(base)
                    .map(|(p, r)| (p.0 - r.0).hypot(p.1 - r.1))
                    .sum::<f32>()
            };
            d(a).total_cmp(&d(b))
        })
        .unwrap_or(*o)
}

fn centre(o: &Outline) -> (f32, f32) {
    let (x, y) = o.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
    (x / 4.0, y / 4.0)
}

fn short_side(o: &Outline) -> f32 {
    let side = |a: (f32, f32), b: (f32, f32)| (a.0 - b.0).hypot(a.1 - b.1);
    side(o[0], o[1]).min(side(o[2], o[3])).max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::print::face;
    use arbiter_core::table::{Card, Colour, Piece};

    fn code(id: u16, corrected: usize, at: (f64, f64)) -> CodeSeen {
        CodeSeen {
            id,
            corrected,
            margin: 100.0,
            homography: [[20.0, 0.0, at.0], [0.0, 20.0, at.1], [0.0, 0.0, 1.0]],
        }
    }

    /// A code alone on its card is a card only read with no cell
    /// corrected (a quad of a cloth or another deck comes within a cell
    /// or two of a code now and then); two at one card's place may each
    /// have had two corrected.
    #[test]
    fn a_lone_code_must_read_perfectly_and_a_pair_may_be_corrected() {
        let perfect = group(&[code(3, 0, (100.0, 100.0))]);
        assert_eq!(perfect.len(), 1);
        assert!(perfect[0].token.is_some());
        assert!(group(&[code(3, 1, (100.0, 100.0))]).is_empty());
        assert!(group(&[code(3, 3, (100.0, 100.0))]).is_empty());
        let pair = group(&[code(3, 2, (100.0, 100.0)), code(3, 2, (101.0, 100.0))]);
        assert_eq!(pair.len(), 1);
        assert_eq!(pair[0].codes, 2);
        assert!(pair[0].token.is_some());
        // Both codes too far gone: the card is there, but `??`.
        let unsure = group(&[code(3, 3, (100.0, 100.0)), code(3, 3, (101.0, 100.0))]);
        assert_eq!(unsure.len(), 1);
        assert_eq!(unsure[0].token, None);
        assert_eq!(unsure[0].doubt, Some(Doubt::Unsure(3)));
        // Two cards apart stay two.
        assert_eq!(
            group(&[code(3, 0, (100.0, 100.0)), code(4, 0, (400.0, 100.0))]).len(),
            2
        );
    }

    /// Two codes on one card that name different cards make it `??`,
    /// with why.
    #[test]
    fn a_card_whose_codes_disagree_is_doubted() {
        // The top half of a white king over the bottom half of a red rook.
        let king = face(Card::new(Colour::White, Piece::King));
        let mut card = face(Card::new(Colour::Red, Piece::Rook));
        let half = king.height() / 2;
        image::imageops::replace(
            &mut card,
            &image::imageops::crop_imm(&king, 0, 0, king.width(), half).to_image(),
            0,
            0,
        );
        let small = image::imageops::resize(&card, 150, 209, image::imageops::FilterType::Triangle);
        let mut frame = RgbImage::from_pixel(320, 320, image::Rgb([40, 90, 50]));
        image::imageops::replace(&mut frame, &small, 80, 50);
        let found = cards(&frame);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].token, None);
        assert!(matches!(found[0].doubt, Some(Doubt::Disagree(_, _))));
        assert!(found[0].doubt.unwrap().to_string().contains("disagree"));
        // The players are told which two cards its codes name.
        let note = doubt_note(&found).expect("a card is ??");
        assert!(note.contains("wK") && note.contains("rR"), "{note}");
    }

    /// Why cards are `??`, said once for the frame: glare first (the
    /// lamp's spot leaves several), then codes that disagree, then codes
    /// read with cells wrong; nothing when every card is named.
    #[test]
    fn the_note_names_the_first_cause_of_doubt() {
        let card = |doubt: Option<Doubt>| CodedCard {
            corners: [(0.0, 0.0), (10.0, 0.0), (10.0, 14.0), (0.0, 14.0)],
            centre: (5.0, 7.0),
            token: doubt.is_none().then_some(Token::Down),
            confidence: 1.0,
            codes: 2,
            doubt,
            covered: false,
        };
        let wk = Named::Face(Card::new(Colour::White, Piece::King));
        assert_eq!(doubt_note(&[card(None), card(None)]), None);
        let unsure = doubt_note(&[card(None), card(Some(Doubt::Unsure(3)))]).unwrap();
        assert!(unsure.contains("3 cells wrong"), "{unsure}");
        let both = [
            card(Some(Doubt::Unsure(3))),
            card(Some(Doubt::Disagree(wk, Named::Back))),
        ];
        assert!(doubt_note(&both).unwrap().contains("different cards"));
        let glare = [both[0].clone(), both[1].clone(), card(Some(Doubt::Glare))];
        assert!(doubt_note(&glare).unwrap().contains("move the lamp"));
    }

    /// A card 150 px wide on green cloth, its bottom half painted over
    /// with `paint` (a hand's skin, glare's white): what the codes make of
    /// it.
    fn half_painted(paint: image::Rgb<u8>) -> Vec<CodedCard> {
        let card = face(Card::new(Colour::Blue, Piece::Knight));
        let small = image::imageops::resize(&card, 150, 209, image::imageops::FilterType::Triangle);
        let mut frame = RgbImage::from_pixel(320, 320, image::Rgb([40, 90, 50]));
        image::imageops::replace(&mut frame, &small, 80, 50);
        for y in 50 + 130..320 {
            for x in 60..260 {
                frame.put_pixel(x, y, paint);
            }
        }
        cards(&frame)
    }

    /// A hand over one code of a card leaves it read by the other, and
    /// says something lies over it (the frame is busy): light skin or
    /// dark. Glare that washes the code out white does not.
    #[test]
    fn a_hand_over_a_code_covers_it_and_glare_does_not() {
        for skin in [[224, 172, 140], [120, 80, 56], [60, 40, 30]] {
            let found = half_painted(image::Rgb(skin));
            assert_eq!(found.len(), 1, "{skin:?}: {found:?}");
            assert!(found[0].token.is_some(), "{skin:?}");
            assert_eq!(found[0].codes, 1, "{skin:?}");
            assert!(found[0].covered, "skin {skin:?} over a code is a hand");
        }
        // (The white below the card is `??` for glare as well.)
        let glare = half_painted(image::Rgb([255, 255, 255]));
        let read: Vec<&CodedCard> = glare.iter().filter(|c| c.token.is_some()).collect();
        assert_eq!(read.len(), 1, "{glare:?}");
        assert_eq!(read[0].codes, 1);
        assert!(!read[0].covered, "glare is no hand");
        // Nothing over the card: both codes read, nothing covered.
        let card = face(Card::new(Colour::Blue, Piece::Knight));
        let small = image::imageops::resize(&card, 150, 209, image::imageops::FilterType::Triangle);
        let mut frame = RgbImage::from_pixel(320, 320, image::Rgb([40, 90, 50]));
        image::imageops::replace(&mut frame, &small, 80, 50);
        let clear = cards(&frame);
        assert_eq!(
            (clear.len(), clear[0].codes, clear[0].covered),
            (1, 2, false)
        );
    }

    /// A card lit unevenly, its lower code in a shadow (or its upper in a
    /// lamp's spot), read by its upper code alone: the lower one's ring is
    /// darker than the read code's paper, yet the code is in sight where
    /// the read one puts it, so nothing lies over the card.
    #[test]
    fn a_code_in_shadow_but_in_sight_is_not_covered() {
        let card = face(Card::new(Colour::Blue, Piece::Knight));
        let small = image::imageops::resize(&card, 150, 209, image::imageops::FilterType::Triangle);
        let mut frame = RgbImage::from_pixel(320, 320, image::Rgb([40, 90, 50]));
        image::imageops::replace(&mut frame, &small, 80, 50);
        // A shadow over the card's lower half, deepening downwards.
        for y in 50 + 105..320 {
            let k = 0.75 - 0.35 * (y - 155) as f32 / 165.0;
            for x in 0..320 {
                let p = frame.get_pixel_mut(x, y);
                p.0 = p.0.map(|v| (f32::from(v) * k) as u8);
            }
        }
        let seen = codes::detect(&frame);
        let upper = seen
            .iter()
            .find(|s| s.project((0.0, 0.0)).1 < 155.0)
            .expect("the upper code is read");
        let alone = group(std::slice::from_ref(upper));
        assert_eq!((alone.len(), alone[0].codes), (1, 1));
        let cell = 2.0 / codes::BORDER_CELLS as f32;
        let ring_point = upper.project(CODE_LAYOUT.in_other_code((0.0, -1.0 - cell / 2.0)));
        let own_paper = luma_at(&frame, upper.project((0.0, -1.0 - cell / 2.0))).unwrap();
        assert!(
            luma_at(&frame, ring_point).unwrap() < 0.8 * own_paper,
            "the shadow darkens the other ring"
        );
        assert!(
            !covered(&frame, &alone[0], upper, &alone),
            "a shadow is no hand"
        );
    }

    /// The print is matched under light that varies across the code, and
    /// not when a tenth of its cells are wrong or its contrast is faint.
    #[test]
    fn a_print_matches_under_uneven_light_and_not_with_cells_wrong() {
        let cells = codes::code_cells(7);
        let white: Vec<bool> = cells.iter().flatten().copied().collect();
        let n = codes::CODE_CELLS;
        let lit = |i: usize, w: bool| {
            // Light falling from 220 to 120 across the code, print 80 deep.
            let light = 220.0 - 100.0 * (i % n + i / n) as f32 / (2 * n) as f32;
            if w { light } else { light - 80.0 }
        };
        let lumas: Vec<f32> = white.iter().enumerate().map(|(i, &w)| lit(i, w)).collect();
        assert!(matches_print(&lumas, &white, 100.0));
        let mut spoiled = lumas.clone();
        for (i, l) in spoiled.iter_mut().enumerate().filter(|(i, _)| i % 10 == 3) {
            *l = lit(i, !white[i]);
        }
        assert!(!matches_print(&spoiled, &white, 100.0), "8 cells wrong");
        let faint: Vec<f32> = white
            .iter()
            .map(|&w| if w { 200.0 } else { 190.0 })
            .collect();
        assert!(
            !matches_print(&faint, &white, 100.0),
            "too faint to be print"
        );
        let flat = vec![180.0f32; white.len()];
        assert!(!matches_print(&flat, &white, 100.0), "a bare hand");
    }
}
