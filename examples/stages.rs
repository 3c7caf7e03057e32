//! Each stage of the camera's pipeline scored on its own against the
//! varied sets' true card outlines (re-rendered from their seeds; the
//! committed JPEGs are what is read): finding's recall (a true card whose
//! found outline is within an eighth of a card's width at every corner)
//! and phantoms (outlines found where no card lies), per factor, with each
//! stage's time. `cargo run --release --example stages [-- SET]`.
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use arbiter_testkit::fixtures::tables::{factors, render_frame, table_sets};
use arbiter_vision::pipeline::finding::find;
use arbiter_vision::pipeline::geometry::{Quad, dist};
use arbiter_vision::pipeline::lattice::Lattice;
use arbiter_vision::pipeline::occupancy::{TableColours, survey};
use arbiter_vision::pipeline::plane::Plane;
use arbiter_vision::pipeline::table_model::TableModel;

#[derive(Default)]
struct Tally {
    frames: usize,
    cards: usize,
    found: usize,
    phantoms: usize,
    occupied: usize,
    occ_phantoms: usize,
}

fn main() {
    let only: Option<String> = std::env::args().nth(1);
    let verbose = std::env::var("SHOW").is_ok();
    let mut by: BTreeMap<String, Tally> = BTreeMap::new();
    let mut times: Vec<(Duration, Duration, Duration)> = Vec::new();
    for set in table_sets() {
        if only.as_deref().is_some_and(|o| o != set.name) {
            continue;
        }
        for (n, f) in set.frames.iter().enumerate() {
            let scene = render_frame(f);
            let fac = factors(f, &scene);
            let path = Path::new("fixtures/tables")
                .join(set.name)
                .join(format!("{n:03}.jpg"));
            let img = image::open(&path).expect("fixture image").to_rgb8();
            let t0 = Instant::now();
            let full = Plane::luma(&img);
            let dec = Plane::luma_decimated(&img, 2);
            let model = TableModel::learn(&dec);
            let t1 = Instant::now();
            let finding = find(&full, &dec, 2, &model);
            let mut lattice = Lattice::from_cards(&finding.cards);
            let table = TableColours::learn(&img, &finding.cards);
            let judged = survey(
                &img,
                &full,
                &finding.cards,
                &mut lattice,
                &table,
                model.step,
            );
            let t2 = Instant::now();
            times.push((t1 - t0, t2 - t1, t2 - t0));
            let occ_quads: Vec<Quad> = judged.iter().map(|j| j.quad).collect();
            let truth: Vec<(Quad, f32, bool)> = scene
                .truth
                .iter()
                .map(|t| {
                    (
                        Quad(t.corners_px),
                        dist(t.corners_px[0], t.corners_px[1]),
                        t.visible >= 0.99,
                    )
                })
                .collect();
            let (mut cards, mut found, mut occupied) = (0, 0, 0);
            for (q, w, visible) in &truth {
                if !visible {
                    continue;
                }
                cards += 1;
                if finding
                    .cards
                    .iter()
                    .any(|c| c.quad.corner_distance(q) < 0.125 * w)
                {
                    found += 1;
                }
                if occ_quads.iter().any(|c| c.corner_distance(q) < 0.125 * w) {
                    occupied += 1;
                }
            }
            let phantoms = finding
                .cards
                .iter()
                .filter(|c| {
                    !truth
                        .iter()
                        .any(|(q, w, _)| dist(q.centre(), c.quad.centre()) < 0.4 * w)
                })
                .count();
            let occ_phantoms = occ_quads
                .iter()
                .filter(|c| {
                    !truth
                        .iter()
                        .any(|(q, w, _)| dist(q.centre(), c.centre()) < 0.4 * w)
                })
                .count();
            if let Ok(dir) = std::env::var("DUMP") {
                let qs: Vec<_> = occ_quads.iter().map(|c| c.0).collect();
                let _ = std::fs::write(
                    format!("{dir}/{}-{n:03}.json", set.name),
                    serde_json::to_string(&qs).unwrap(),
                );
                let fs: Vec<_> = finding.cards.iter().map(|c| c.quad.0).collect();
                let _ = std::fs::write(
                    format!("{dir}/{}-{n:03}-find.json", set.name),
                    serde_json::to_string(&fs).unwrap(),
                );
            }
            if verbose {
                println!(
                    "{}/{n:03} {:>3}/{:<3} phantoms {phantoms} occupied {occupied} phantoms {occ_phantoms} texture {}",
                    set.name, found, cards, model.texture
                );
            }
            for key in [
                "all".to_string(),
                format!("surface {}", fac.surface),
                format!("width {}", fac.width_band()),
                format!("light {}", fac.light),
                format!("deck {}", fac.deck),
                format!("gap {}", fac.gap_band()),
                format!("lens {}", fac.lens),
            ] {
                let t = by.entry(key).or_default();
                t.frames += 1;
                t.cards += cards;
                t.found += found;
                t.phantoms += phantoms;
                t.occupied += occupied;
                t.occ_phantoms += occ_phantoms;
            }
        }
    }
    println!("finding: true outlines found (within 1/8 card width at each corner), phantoms");
    for (k, t) in &by {
        println!(
            "{k:24} {:>4} frames {:>5} cards {:>6.1}% found {:>4} phantoms | {:>6.1}% occupied {:>4} phantoms",
            t.frames,
            t.cards,
            100.0 * t.found as f64 / t.cards.max(1) as f64,
            t.phantoms,
            100.0 * t.occupied as f64 / t.cards.max(1) as f64,
            t.occ_phantoms,
        );
    }
    let pct = |mut v: Vec<Duration>, q: usize| {
        v.sort();
        v[(v.len() * q / 100).min(v.len() - 1)]
    };
    for (name, pick) in [
        ("planes + table model", 0usize),
        ("finding, lattice, occupancy", 1),
        ("total", 2),
    ] {
        let v: Vec<Duration> = times.iter().map(|t| [t.0, t.1, t.2][pick]).collect();
        println!(
            "{name:22} median {:>7.2?} p95 {:>7.2?}",
            pct(v.clone(), 50),
            pct(v, 95)
        );
    }
}
