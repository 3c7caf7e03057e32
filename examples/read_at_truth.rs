//! Reads every card of the varied sets at its true corners (re-rendered
//! from the sets' seeds), by deck, surface and card width: the ceiling the
//! reading sets on `accuracy`, so that a cell missed can be blamed on the
//! finder or on the reader. Cards under a hand are left out. Cards whose
//! face a glare has washed blank (nothing but clipped white left inside
//! their outline: no one could name them) are counted apart too.
//! `cargo run --release --example read_at_truth` (about 100 s).
use std::collections::HashMap;

use arbiter::vision::cards::{Identify, rectify};
use arbiter_testkit::fixtures::tables::{DeckModels, rendered_frames};

fn main() {
    let mut models = DeckModels::default();
    let mut by: HashMap<String, [usize; 4]> = HashMap::new();
    for (scene, fac) in rendered_frames() {
        let deck = fac.deck.clone();
        let model = models.get(&deck).unwrap();
        for t in &scene.truth {
            if t.visible < 0.99 {
                continue;
            }
            let (tok, _) = model.identify_in(&scene.image, &t.corners_px);
            let k = match tok {
                Some(x) if x == t.token => 0,
                Some(_) => 1,
                None => 2,
            };
            for key in [
                format!("width {}", fac.width_band()),
                format!("deck {deck}"),
                format!("surface {}", fac.surface),
                format!("light {}", fac.light),
                if washed_blank(&scene.image, &t.corners_px) {
                    "face washed blank".into()
                } else {
                    "face shows".into()
                },
                "all".into(),
            ] {
                let e = by.entry(key).or_default();
                e[k] += 1;
                e[3] += 1;
            }
        }
    }
    let mut keys: Vec<_> = by.keys().cloned().collect();
    keys.sort();
    for k in keys {
        let e = by[&k];
        println!(
            "{k:24} {:5} cards  right {:5.1}%  wrong {:3}  unread {:5.1}%",
            e[3],
            100.0 * e[0] as f32 / e[3] as f32,
            e[1],
            100.0 * e[2] as f32 / e[3] as f32
        );
    }
}

/// Nothing but near-white is left inside the card's outline (its middle,
/// clear of the edge): a lamp's glare clipped its paper and its print
/// alike. The spread between its darkest and lightest few percent is a
/// few levels of noise.
fn washed_blank(frame: &image::RgbImage, corners: &[(f32, f32); 4]) -> bool {
    let card = rectify(frame, corners);
    let (w, h) = card.dimensions();
    let mut luma: Vec<u8> = card
        .enumerate_pixels()
        .filter(|(x, y, _)| (w / 10..w - w / 10).contains(x) && (h / 10..h - h / 10).contains(y))
        .map(|(_, _, p)| {
            let [r, g, b] = p.0.map(u32::from);
            ((299 * r + 587 * g + 114 * b) / 1000) as u8
        })
        .collect();
    luma.sort_unstable();
    let at = |q: f32| luma[((luma.len() - 1) as f32 * q) as usize];
    at(0.02) >= 225 && at(0.98) - at(0.02) < 20
}
