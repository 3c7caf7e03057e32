//! Reads every card of the varied sets at its true corners (re-rendered
//! from the sets' seeds), by deck, surface and card width: the ceiling the
//! reading sets on `accuracy`, so that a cell missed can be blamed on the
//! finder or on the reader. Cards under a hand are left out. Glare-blank
//! cards (the renderer's truth: a lamp washed out at least half of their
//! print, `scene::GLARE_BLANK`) are counted apart too.
//!
//! The learned identifier (`pipeline::learned`) reads each card at its
//! true outline and at one moved as a finder leaves it (each corner up to
//! 4% of the card's width off, drawn from the card's number): right, wrong,
//! and a glare-blank card right only as `??`. `LEARNED=FILE` writes each
//! card's nearest kind (right or not), likeness and margin, at truth (0)
//! and moved (1), with its deck and width, to set the naming thresholds
//! from.
//!
//! The patched reader's deck model names a card as the product does:
//! its templates, seconded by the learned identifier where they find a
//! kind nearest but not clearly; "templates alone" is the same model
//! without the second reader (`DeckModel::templates_alone`).
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

use arbiter::vision::cards::Identify;
use arbiter::vision::pipeline::faces::{CardCells, Faces, frame_white};
use arbiter::vision::pipeline::geometry::Quad;
use arbiter::vision::pipeline::learned::{LearnedDeck, Network, Patch};
use arbiter_testkit::fixtures::reference_faces;
use arbiter_testkit::fixtures::tables::{DeckModels, rendered_frames};
use arbiter_testkit::scene::GLARE_BLANK;

/// The faces of a fixture deck, for the staged reader's identifier.
fn faces_of(deck: &str) -> Faces {
    Faces::learn(&reference_faces(deck))
}

/// The card's outline with each corner moved up to `off` of its width, in
/// a direction and by an amount drawn from `seed`: as a finder leaves it.
fn shifted(q: &[(f32, f32); 4], off: f32, seed: u64) -> [(f32, f32); 4] {
    use rand::{Rng, SeedableRng};
    let mut r = rand::rngs::StdRng::seed_from_u64(seed);
    let w = (q[1].0 - q[0].0).hypot(q[1].1 - q[0].1);
    q.map(|p| {
        let a: f32 = r.random_range(0.0..std::f32::consts::TAU);
        let d = off * w * r.random_range(0.0f32..1.0).sqrt();
        (p.0 + d * a.cos(), p.1 + d * a.sin())
    })
}

/// The learned identifier's verdict on a card: right, wrong, or not named
/// (a glare-blank card is right only as `??`), and what it saw: whether
/// the nearest kind was right, its likeness and its margin (for
/// `LEARNED=FILE`, to set the naming thresholds from).
fn learned_verdict(
    net: &Network,
    deck: &LearnedDeck,
    frame: &image::RgbImage,
    q: &[(f32, f32); 4],
    truth: arbiter_core::table::Token,
    blank: bool,
) -> (usize, Option<(bool, f32, f32)>) {
    let Some(patch) = Patch::from_frame(frame, &Quad(*q)) else {
        return (2, None);
    };
    let n = deck.name(net, &patch);
    let seen = (n.nearest == truth, n.likeness, n.margin);
    let verdict = match (n.token, blank) {
        (None, true) => 0,
        (Some(t), false) if t == truth => 0,
        (Some(_), _) => 1,
        (None, _) => 2,
    };
    // The nearest kind right, whatever the margin: what a better rule
    // for naming could reach.
    (verdict + if n.nearest == truth { 0 } else { 3 }, Some(seen))
}

fn main() {
    let mut models = DeckModels::default();
    let mut templates_alone = HashMap::new();
    let mut staged: HashMap<String, Faces> = HashMap::new();
    let mut margins: Vec<(u8, f32, f32, u8, f32)> = Vec::new();
    let (mut patched_time, mut staged_time, mut cards) =
        (Default::default(), Default::default(), 0u32);
    let mut by: HashMap<String, [usize; 19]> = HashMap::new();
    let net = Network::embedded().expect("the embedded identifier");
    let mut learned: HashMap<String, LearnedDeck> = HashMap::new();
    let mut learned_time = std::time::Duration::default();
    let mut learned_seen: Vec<String> = Vec::new();
    let mut card_no = 0u64;
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
            let alone = templates_alone
                .entry(deck.clone())
                .or_insert_with(|| model.templates_alone())
                .identify_in(&scene.image, &t.corners_px)
                .0;
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
                && t.print_washed < GLARE_BLANK
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
            let ld = learned
                .entry(deck.clone())
                .or_insert_with(|| LearnedDeck::from_faces(net, &reference_faces(&deck)));
            let blank = t.print_washed >= GLARE_BLANK;
            let clock = std::time::Instant::now();
            let (at_truth, seen) =
                learned_verdict(net, ld, &scene.image, &t.corners_px, t.token, blank);
            learned_time += clock.elapsed();
            card_no += 1;
            let moved = shifted(&t.corners_px, 0.04, card_no);
            let (at_shift, seen_moved) =
                learned_verdict(net, ld, &scene.image, &moved, t.token, blank);
            if !blank {
                for (off, s) in [(0, seen), (1, seen_moved)] {
                    if let Some((right, likeness, margin)) = s {
                        learned_seen.push(format!(
                            "{} {likeness:.4} {margin:.4} {off} {deck} {}\n",
                            u8::from(right),
                            fac.width_band()
                        ));
                    }
                }
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
                if blank {
                    "glare-blank".into()
                } else {
                    "print shows".into()
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
                e[9 + at_truth % 3] += 1;
                e[12 + at_shift % 3] += 1;
                e[15] += usize::from(at_truth < 3);
                e[16] += usize::from(at_shift < 3);
                e[17] += usize::from(alone == Some(t.token));
                e[18] += usize::from(alone.is_some_and(|a| a != t.token));
            }
        }
    }
    let per = |d: std::time::Duration| d.as_secs_f64() * 1e3 / f64::from(cards.max(1));
    println!(
        "per card: patched reader {:.3} ms, staged one look {:.3} ms, learned {:.3} ms",
        per(patched_time),
        per(staged_time),
        per(learned_time)
    );
    if let Ok(path) = std::env::var("MARGINS") {
        let text: String = margins
            .iter()
            .map(|m| format!("{} {} {} {} {}\n", m.0, m.1, m.2, m.3, m.4))
            .collect();
        std::fs::write(path, text).unwrap();
    }
    if let Ok(path) = std::env::var("LEARNED") {
        std::fs::write(path, learned_seen.concat()).unwrap();
    }
    let mut keys: Vec<_> = by.keys().cloned().collect();
    keys.sort();
    for k in keys {
        let e = by[&k];
        println!(
            "{k:24} {:5} cards  right {:5.1}%  wrong {:3}  templates alone {:5.1}% wrong {:3}  unread {:5.1}%  top-1 {:5.1}%  one look {:5.1}%  staged {:5.1}%  named {:5.1}% wrong {:3}  learned {:6.2}% wrong {:3} nearest {:6.2}%  at 4% off {:6.2}% wrong {:3} nearest {:6.2}%",
            e[3],
            100.0 * e[0] as f32 / e[3] as f32,
            e[1],
            100.0 * e[17] as f32 / e[3] as f32,
            e[18],
            100.0 * e[2] as f32 / e[3] as f32,
            100.0 * e[4] as f32 / e[3] as f32,
            100.0 * e[5] as f32 / e[3] as f32,
            100.0 * e[6] as f32 / e[3] as f32,
            100.0 * e[7] as f32 / e[3] as f32,
            e[8],
            100.0 * e[9] as f32 / e[3] as f32,
            e[10],
            100.0 * e[15] as f32 / e[3] as f32,
            100.0 * e[12] as f32 / e[3] as f32,
            e[13],
            100.0 * e[16] as f32 / e[3] as f32
        );
    }
}
