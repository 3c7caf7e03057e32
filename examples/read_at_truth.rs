//! Reads every card of the varied sets at its true corners (re-rendered
//! from the sets' seeds), by deck, surface and card width: the ceiling the
//! reading sets on `accuracy`, so that a cell missed can be blamed on the
//! finder or on the reader. Cards under a hand are left out.
//! `cargo run --release --example read_at_truth` (about 100 s).
use std::collections::HashMap;

use arbiter::vision::cards::Identify;
use arbiter::vision::fixtures::tables::{DeckModels, rendered_frames};

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
