//! The staged reader's report: each stage scored on its own against the
//! varied sets' true card outlines (re-rendered from their seeds; the
//! committed JPEGs are what is read), per factor, and each stage's time.
//!
//! - finding: true cards whose found outline is within an eighth of a
//!   card's width at every corner; phantoms (outlines where no card lies);
//! - lattice and occupancy: the same for the cells judged occupied;
//! - reading: cells named right (the accuracy report has the full score).
//!
//! `cargo run --release --example stages [-- SET]`; `DUMP=DIR` writes each
//! frame's outlines as JSON for drawing.
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use arbiter_testkit::fixtures::tables::{DeckModels, factors, render_frame, table_sets};
use arbiter_vision::cards::rectify;
use arbiter_vision::pipeline::geometry::{Quad, dist};
use arbiter_vision::pipeline::{StageTimes, trace_frame};

#[derive(Default)]
struct Tally {
    frames: usize,
    cards: usize,
    found: usize,
    phantoms: usize,
    occupied: usize,
    occ_phantoms: usize,
    named: usize,
    /// Cards read as another kind where they lie.
    misnamed: usize,
}

fn main() {
    let only: Option<String> = std::env::args().nth(1);
    let verbose = std::env::var("SHOW").is_ok();
    let mut by: BTreeMap<String, Tally> = BTreeMap::new();
    let mut times: Vec<StageTimes> = Vec::new();
    let mut decks = DeckModels::default();
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
            let deck = decks.get(&fac.deck).expect("fixture deck");
            let t = trace_frame(&img, deck);
            times.push(t.times);
            let within = |q: &Quad, truth: &Quad, w: f32| q.corner_distance(truth) < 0.125 * w;
            let mut tally = Tally {
                frames: 1,
                ..Tally::default()
            };
            for c in scene.truth.iter().filter(|c| c.visible >= 0.99) {
                let truth = Quad(c.corners_px);
                let w = dist(c.corners_px[0], c.corners_px[1]);
                tally.cards += 1;
                tally.found +=
                    usize::from(t.finding.cards.iter().any(|f| within(&f.quad, &truth, w)));
                tally.occupied += usize::from(t.judged.iter().any(|j| within(&j.quad, &truth, w)));
                tally.named += usize::from(t.identified.iter().any(|i| {
                    i.token == Some(c.token) && dist(i.quad.centre(), truth.centre()) < 0.3 * w
                }));
                for i in t.identified.iter().filter(|i| {
                    i.token.is_some_and(|x| x != c.token)
                        && dist(i.quad.centre(), truth.centre()) < 0.3 * w
                }) {
                    tally.misnamed += 1;
                    if let Ok(dir) = std::env::var("DUMP_WRONG") {
                        let err = i.quad.corner_distance(&truth) / w;
                        let name = format!(
                            "{dir}/{}-{n:03}-{}-as-{}-off{:.2}",
                            set.name,
                            c.token,
                            i.token.map_or("none".into(), |x| x.to_string()),
                            err
                        )
                        .replace('#', "b");
                        let _ = rectify(&img, &i.quad.0).save(format!("{name}-read.png"));
                        let _ = rectify(&img, &c.corners_px).save(format!("{name}-true.png"));
                    }
                }
            }
            let phantom = |q: &Quad| {
                !scene.truth.iter().any(|c| {
                    dist(Quad(c.corners_px).centre(), q.centre())
                        < 0.4 * dist(c.corners_px[0], c.corners_px[1])
                })
            };
            tally.phantoms = t.finding.cards.iter().filter(|f| phantom(&f.quad)).count();
            tally.occ_phantoms = t.judged.iter().filter(|j| phantom(&j.quad)).count();
            if let Ok(dir) = std::env::var("DUMP") {
                let occ: Vec<_> = t.judged.iter().map(|j| j.quad.0).collect();
                let found: Vec<_> = t.finding.cards.iter().map(|c| c.quad.0).collect();
                let name = format!("{dir}/{}-{n:03}", set.name);
                let _ = std::fs::write(
                    format!("{name}.json"),
                    serde_json::to_string(&occ).unwrap_or_default(),
                );
                let _ = std::fs::write(
                    format!("{name}-find.json"),
                    serde_json::to_string(&found).unwrap_or_default(),
                );
            }
            if verbose {
                println!(
                    "{}/{n:03} cards {:>3}  found {:>3} ({} phantoms)  occupied {:>3} ({} phantoms)  named {:>3}",
                    set.name,
                    tally.cards,
                    tally.found,
                    tally.phantoms,
                    tally.occupied,
                    tally.occ_phantoms,
                    tally.named
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
                let e = by.entry(key).or_default();
                e.frames += tally.frames;
                e.cards += tally.cards;
                e.found += tally.found;
                e.phantoms += tally.phantoms;
                e.occupied += tally.occupied;
                e.occ_phantoms += tally.occ_phantoms;
                e.named += tally.named;
                e.misnamed += tally.misnamed;
            }
        }
    }
    println!(
        "per factor: true cards; found by the finder, occupied cells, named, each with phantoms"
    );
    let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
    for (k, t) in &by {
        println!(
            "{k:24} {:>4} frames {:>5} cards  found {:>5.1}% ({:>4} phantoms)  occupied {:>5.1}% ({:>4} phantoms)  named {:>5.1}% (misnamed {:>3})",
            t.frames,
            t.cards,
            pct(t.found, t.cards),
            t.phantoms,
            pct(t.occupied, t.cards),
            t.occ_phantoms,
            pct(t.named, t.cards),
            t.misnamed,
        );
    }
    let quantile = |mut v: Vec<Duration>, q: usize| {
        v.sort();
        v.get((v.len() * q / 100).min(v.len().saturating_sub(1)))
            .copied()
            .unwrap_or_default()
    };
    println!("\nstage times over {} frames (one core):", times.len());
    let totals: Vec<Duration> = times.iter().map(StageTimes::total).collect();
    let whole: Duration = totals.iter().sum();
    for (i, name) in StageTimes::NAMES.iter().enumerate() {
        let v: Vec<Duration> = times.iter().map(|t| t.each()[i]).collect();
        let share = v.iter().sum::<Duration>().as_secs_f64() / whole.as_secs_f64().max(1e-9);
        println!(
            "{name:12} median {:>8.2?} p95 {:>8.2?}  {:>4.1}% of the time",
            quantile(v.clone(), 50),
            quantile(v, 95),
            100.0 * share
        );
    }
    println!(
        "{:12} median {:>8.2?} p95 {:>8.2?}",
        "whole read",
        quantile(totals.clone(), 50),
        quantile(totals, 95)
    );
}
