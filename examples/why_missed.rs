//! Why the cards of the varied sets are not read: each card's fate at the
//! finder, by surface, gap and card width. A card is *read* (right or
//! wrong), *outlined* (an outline was found on it but not read: the reader
//! or the outline is to blame, and `corner px` says how far the outline's
//! corners lie from the card's), or *not found*; for the cards not read,
//! `truth-readable` says how many read right at their true corners (so the
//! finder, not the reader, is to blame). Cards under a hand are left out.
//! `cargo run --release --example why_missed` (about 60 s).
use std::collections::BTreeMap;

use arbiter::vision::cards::{Detected, Identify};
use arbiter::vision::finder::find;
use arbiter_testkit::fixtures::tables::{DeckModels, rendered_frames};

#[derive(Default)]
struct Tally {
    cards: usize,
    right: usize,
    wrong: usize,
    outlined: usize,
    outlined_readable: usize,
    corner_err: Vec<f32>,
    not_found: usize,
    not_found_readable: usize,
}

fn dist(a: (f32, f32), b: (f32, f32)) -> f32 {
    (a.0 - b.0).hypot(a.1 - b.1)
}

/// The mean distance between two outlines' corners, under the best of
/// the four ways round (an outline's first corner is any of the card's).
fn corner_error(a: &[(f32, f32); 4], b: &[(f32, f32); 4]) -> f32 {
    (0..4)
        .flat_map(|k| {
            [false, true].map(move |rev| {
                (0..4)
                    .map(|i| {
                        let j = if rev { (k + 4 - i) % 4 } else { (k + i) % 4 };
                        dist(a[i], b[j])
                    })
                    .sum::<f32>()
                    / 4.0
            })
        })
        .fold(f32::INFINITY, f32::min)
}

fn main() {
    let mut models = DeckModels::default();
    let mut by: BTreeMap<String, Tally> = BTreeMap::new();
    for (scene, fac) in rendered_frames() {
        let deck = fac.deck.clone();
        let model = models.get(&deck).unwrap();
        let found: Vec<Detected> = find(&scene.image, model).cards;
        for t in &scene.truth {
            if t.visible < 0.99 {
                continue;
            }
            let short = dist(t.corners_px[0], t.corners_px[1]);
            let det = found
                .iter()
                .filter(|d| dist(d.centre, t.centre_px) < 0.3 * short)
                .min_by(|a, b| dist(a.centre, t.centre_px).total_cmp(&dist(b.centre, t.centre_px)));
            let readable = || model.identify_in(&scene.image, &t.corners_px).0 == Some(t.token);
            for key in [
                "all".to_string(),
                format!("surface {}", fac.surface),
                format!("gap {}", fac.gap_band()),
                format!("width {}", fac.width_band()),
                format!("deck {deck}"),
                format!("light {}", fac.light),
            ] {
                let e = by.entry(key).or_default();
                e.cards += 1;
                match det {
                    Some(d) if d.token == Some(t.token) => e.right += 1,
                    Some(d) if d.token.is_some() => e.wrong += 1,
                    Some(d) => {
                        e.outlined += 1;
                        e.outlined_readable += usize::from(readable());
                        e.corner_err.push(corner_error(&d.corners, &t.corners_px));
                    }
                    None => {
                        e.not_found += 1;
                        e.not_found_readable += usize::from(readable());
                    }
                }
            }
        }
    }
    println!(
        "{:24} {:>6} {:>7} {:>6} {:>9} {:>9} {:>10} {:>10} {:>10}",
        "",
        "cards",
        "right",
        "wrong",
        "outlined",
        "(truth ok)",
        "corner px",
        "not found",
        "(truth ok)"
    );
    for (k, e) in &by {
        let mut errs = e.corner_err.clone();
        errs.sort_by(f32::total_cmp);
        let median = errs.get(errs.len() / 2).copied().unwrap_or(0.0);
        let pct = |n: usize| 100.0 * n as f32 / e.cards.max(1) as f32;
        println!(
            "{k:24} {:6} {:6.1}% {:6} {:8.1}% {:9.1}% {:10.1} {:9.1}% {:9.1}%",
            e.cards,
            pct(e.right),
            e.wrong,
            pct(e.outlined),
            pct(e.outlined_readable),
            median,
            pct(e.not_found),
            pct(e.not_found_readable),
        );
    }
}
