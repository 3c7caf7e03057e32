//! The accuracy report over the image fixture sets: per set, cells read
//! right, confident-wrong cells (which must be 0), cells reported
//! unreadable or missed, busy frames caught, and the time to read a frame.
//! First the classic sets (`fixtures/frames/`), then the varied ones
//! (`fixtures/tables/`, each frame read with its own deck's recogniser),
//! and for those one table per factor: surface, card width, tilt, gap,
//! occluder, deck, light and lens. Run from the repository root:
//! `cargo run --release --example accuracy` (add `-- --frames` to list
//! every varied frame, worst first).
//!
//! `-- --unseen N` reads no fixture: it renders the varied sets' specs
//! again with their seeds moved on by N million (N from 1) and reports on
//! those frames alone. The committed frames are the ones every threshold
//! was measured on; unseen ones tell whether the figures hold beyond them.
//! With `--coded` as well, every frame shows the coded deck instead of its
//! set's deck (same tables, surfaces, lights, lenses, hands and card
//! widths), read by its codes alone. With `--phone` as well, one set
//! instead: a phone's 960×540 stream, cards about 50 px wide (45–55),
//! every other factor drawn as the varied sets draw it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use arbiter_testkit::accuracy::{
    FrameScore, Recognisers, Score, factor_tables, recogniser_for, run_rendered_set, run_set,
    run_varied_set,
};
use arbiter_testkit::fixtures::FixtureDeck;
use arbiter_testkit::fixtures::tables::{phone_set, table_sets_seeded};

fn dirs(of: &Path) -> Result<Vec<PathBuf>, String> {
    if !of.exists() {
        return Ok(Vec::new());
    }
    let mut sets: Vec<_> = std::fs::read_dir(of)
        .map_err(|e| format!("{}: {e}", of.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    sets.sort();
    Ok(sets)
}

/// A set's time a frame: the median and the 95th percentile (nearest
/// rank), the figures the speed target is set in.
fn timing(times: &mut [Duration]) -> String {
    times.sort();
    let median = times.get(times.len() / 2).copied().unwrap_or_default();
    let rank = (times.len() * 95).div_ceil(100).max(1) - 1;
    let p95 = times.get(rank).copied().unwrap_or_default();
    format!("median {median:.1?} p95 {p95:.1?} a frame")
}

fn main() -> Result<(), String> {
    let root = Path::new(".");
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = args.iter().position(|a| a == "--unseen") {
        let n: u64 = args
            .get(i + 1)
            .and_then(|n| n.parse().ok())
            .filter(|&n| n >= 1)
            .ok_or("--unseen takes a number from 1")?;
        return unseen(root, n);
    }
    let mut all = Score::default();
    let mut all_times: Vec<Duration> = Vec::new();
    for set in dirs(&root.join("fixtures/frames"))? {
        let r = recogniser_for(&set, root).map_err(|e| e.to_string())?;
        let (score, mut times) = run_set(&set, &r).map_err(|e| e.to_string())?;
        let t = timing(&mut times);
        let name = set.file_name().unwrap_or_default().to_string_lossy();
        println!("{name:<9} {score}  {t}");
        all.add(&score);
        all_times.extend(times);
    }
    let t = timing(&mut all_times);
    println!("{:<9} {all}  {t}", "all");

    let tables = dirs(&root.join("fixtures/tables"))?;
    if tables.is_empty() {
        return Ok(());
    }
    println!("\nvaried sets (fixtures/tables):");
    let mut recs = Recognisers::new(root);
    let mut sets = Vec::new();
    for set in tables {
        let name = set.file_name().unwrap_or_default().to_string_lossy();
        let scored = run_varied_set(&set, &mut recs).map_err(|e| e.to_string())?;
        sets.push((name.to_string(), scored));
    }
    report(sets, args.iter().any(|a| a == "--frames"));
    Ok(())
}

/// The varied sets' specs with their seeds moved on by `n` million.
fn unseen(root: &Path, n: u64) -> Result<(), String> {
    println!("varied sets' specs, seeds moved on by {n} million (frames never tuned on):");
    let mut recs = Recognisers::new(root);
    let mut sets = Vec::new();
    let coded = std::env::args().any(|a| a == "--coded");
    if coded {
        println!("every frame's cards the coded deck's, read by their codes alone:");
    }
    let drawn = if std::env::args().any(|a| a == "--phone") {
        println!("a phone's 960×540 stream, cards about 50 px wide:");
        vec![phone_set(n)]
    } else {
        table_sets_seeded(n * 1_000_000)
    };
    for mut set in drawn {
        if coded {
            for f in &mut set.frames {
                f.deck = FixtureDeck::Coded;
            }
        }
        let scored = run_rendered_set(&set, &mut recs).map_err(|e| e.to_string())?;
        sets.push((set.name.to_string(), scored));
    }
    report(sets, std::env::args().any(|a| a == "--frames"));
    Ok(())
}

/// Each set's line (its frames scored), all sets' line, the per-factor
/// tables, and with `each` every frame, worst first.
fn report(sets: Vec<(String, Vec<FrameScore>)>, each: bool) {
    let mut frames: Vec<FrameScore> = Vec::new();
    let mut all = Score::default();
    for (name, scored) in sets {
        let mut score = Score::default();
        for f in &scored {
            score.add(&f.score);
        }
        let mut times: Vec<Duration> = scored.iter().map(|f| f.time).collect();
        let t = timing(&mut times);
        println!("{name:<9} {score}  {t}");
        all.add(&score);
        frames.extend(scored);
    }
    let mut times: Vec<Duration> = frames.iter().map(|f| f.time).collect();
    let t = timing(&mut times);
    println!("{:<9} {all}  {t}", "all");
    print!("{}", factor_tables(&frames));
    if each {
        println!("\nframes, worst first:");
        let mut worst: Vec<&FrameScore> = frames.iter().collect();
        worst.sort_by_key(|f| f.score.correct as i64 - f.score.cells as i64);
        for f in worst {
            let s = &f.score;
            println!(
                "{:<9} {:<4} {:>3}/{:<3} right {:>2} wrong {:>3} ?? {:>3} missing  {} {:.0}px {} {}{}",
                f.set,
                f.name,
                s.correct,
                s.cells,
                s.confident_wrong,
                s.unreadable,
                s.missed,
                f.factors.surface,
                f.factors.card_px,
                f.factors.deck,
                f.factors.occluder,
                if s.busy_extra > 0 {
                    "  BUSY, no hand"
                } else if s.busy_frames > s.busy_called {
                    "  HAND, not caught"
                } else {
                    ""
                }
            );
            if !s.wrong_cells.is_empty() {
                println!("          wrong (read/truth): {}", s.wrong_cells.join(", "));
            }
        }
    }
}
