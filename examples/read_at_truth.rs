//! Reads every card of the varied sets at its true corners (re-rendered
//! from the sets' seeds), by deck, surface and card width: the ceiling the
//! reading sets on `accuracy`, so that a cell missed can be blamed on the
//! finder or on the reader. Cards under a hand are left out. Cards whose
//! face a glare has washed blank (nothing but clipped white left inside
//! their outline: no one could name them) are counted apart too.
//!
//! Beside the patched reader's deck model (named, and its nearest kind
//! with no test of margin: "top-1"; and one look with no search), the
//! staged reader's face model (`pipeline::faces`): its nearest kind
//! ("staged") and what it names. `CONFUSIONS=DIR` saves each card whose
//! face shows but whose nearest staged kind is wrong, rectified;
//! `MARGINS=FILE` writes each card's staged fit (right, cost, margin,
//! glare, worst block), to set the naming thresholds from.
//! `cargo run --release --example read_at_truth` (about 100 s).
use std::collections::HashMap;

use arbiter::vision::cards::{Identify, rectify};
use arbiter::vision::pipeline::faces::{CardCells, Faces, frame_white};
use arbiter::vision::pipeline::geometry::Quad;
use arbiter_testkit::fixtures::tables::{DeckModels, rendered_frames};

/// The faces of a fixture deck, for the staged reader's identifier.
fn faces_of(deck: &str) -> Faces {
    if deck == "printed" {
        return Faces::learn(&arbiter::vision::templates::printable_faces());
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/decks")
        .join(deck);
    let mut faces = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let stem = p.file_stem().unwrap().to_str().unwrap().to_string();
        let token = if stem == "back" {
            arbiter_core::table::Token::Down
        } else {
            match arbiter_core::table::Token::parse(&stem) {
                Ok(Some(t)) => t,
                _ => continue,
            }
        };
        faces.push((token, image::open(&p).unwrap().to_rgb8()));
    }
    Faces::learn(&faces)
}

fn main() {
    let mut models = DeckModels::default();
    let mut staged: HashMap<String, Faces> = HashMap::new();
    let mut margins: Vec<(u8, f32, f32, u8, f32)> = Vec::new();
    let (mut patched_time, mut staged_time, mut cards) =
        (Default::default(), Default::default(), 0u32);
    let mut by: HashMap<String, [usize; 9]> = HashMap::new();
    for (scene, fac) in rendered_frames() {
        let deck = fac.deck.clone();
        let model = models.get(&deck).unwrap();
        let white = frame_white(&scene.image);
        for t in &scene.truth {
            if t.visible < 0.99 {
                continue;
            }
            let clock = std::time::Instant::now();
            let (tok, _) = model.identify_in(&scene.image, &t.corners_px);
            patched_time += clock.elapsed();
            let top = model.top_guess_in(&scene.image, &t.corners_px);
            let look = model.nearest_in(&scene.image, &t.corners_px).map(|n| n.0);
            let faces = staged
                .entry(deck.clone())
                .or_insert_with(|| faces_of(&deck));
            let clock = std::time::Instant::now();
            let named =
                CardCells::read(&scene.image, &Quad(t.corners_px), white).map(|c| faces.name(&c));
            let new = named.map(|n| n.best.token);
            let said = named.and_then(|n| n.token);
            staged_time += clock.elapsed();
            if let Some(n) = named {
                margins.push((
                    u8::from(n.best.token == t.token),
                    n.best.cost,
                    n.margin,
                    u8::from(n.glare),
                    n.best.worst_block,
                ));
            }
            cards += 1;
            if let Ok(dir) = std::env::var("CONFUSIONS")
                && new != Some(t.token)
                && !washed_blank(&scene.image, &t.corners_px)
            {
                let n = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
                let name = format!(
                    "{dir}/{n:03}-{}-as-{}-{}-{}-{}-{:.0}px.png",
                    t.token,
                    new.map_or("none".into(), |x| x.to_string()),
                    fac.deck,
                    fac.light,
                    fac.surface,
                    fac.card_px
                );
                let card = arbiter::vision::cards::rectify(&scene.image, &t.corners_px);
                let _ = card.save(name.replace('?', "q"));
            }
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
                e[4] += usize::from(top == Some(t.token));
                e[5] += usize::from(look == Some(t.token));
                e[6] += usize::from(new == Some(t.token));
                e[7] += usize::from(said == Some(t.token));
                e[8] += usize::from(said.is_some_and(|s| s != t.token));
            }
        }
    }
    let per = |d: std::time::Duration| d.as_secs_f64() * 1e3 / f64::from(cards.max(1));
    println!(
        "per card: patched reader {:.3} ms, staged one look {:.3} ms",
        per(patched_time),
        per(staged_time)
    );
    if let Ok(path) = std::env::var("MARGINS") {
        let text: String = margins
            .iter()
            .map(|m| format!("{} {} {} {} {}\n", m.0, m.1, m.2, m.3, m.4))
            .collect();
        std::fs::write(path, text).unwrap();
    }
    let mut keys: Vec<_> = by.keys().cloned().collect();
    keys.sort();
    for k in keys {
        let e = by[&k];
        println!(
            "{k:24} {:5} cards  right {:5.1}%  wrong {:3}  unread {:5.1}%  top-1 {:5.1}%  one look {:5.1}%  staged {:5.1}%  named {:5.1}% wrong {:3}",
            e[3],
            100.0 * e[0] as f32 / e[3] as f32,
            e[1],
            100.0 * e[2] as f32 / e[3] as f32,
            100.0 * e[4] as f32 / e[3] as f32,
            100.0 * e[5] as f32 / e[3] as f32,
            100.0 * e[6] as f32 / e[3] as f32,
            100.0 * e[7] as f32 / e[3] as f32,
            e[8]
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
