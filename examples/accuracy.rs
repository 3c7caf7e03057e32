//! The accuracy report over the image fixture sets (`fixtures/frames/`):
//! per set, cells read right, confident-wrong cells (which must be 0),
//! cells reported unreadable or missed, busy frames caught, and the time to
//! read a frame. Run from the repository root:
//! `cargo run --release --example accuracy`

use std::path::Path;
use std::time::Duration;

use arbiter::vision::accuracy::{Score, recogniser_for, run_set};

fn main() -> Result<(), String> {
    let root = Path::new(".");
    let frames = root.join("fixtures/frames");
    let mut sets: Vec<_> = std::fs::read_dir(&frames)
        .map_err(|e| format!("{}: {e}", frames.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    sets.sort();
    let mut all = Score::default();
    let mut all_times: Vec<Duration> = Vec::new();
    for set in sets {
        let r = recogniser_for(&set, root)?;
        let (score, mut times) = run_set(&set, &r)?;
        times.sort();
        let median = times.get(times.len() / 2).copied().unwrap_or_default();
        let name = set.file_name().unwrap_or_default().to_string_lossy();
        println!("{name:<9} {score}  median {median:.1?}/frame");
        all.add(&score);
        all_times.extend(times);
    }
    all_times.sort();
    let median = all_times
        .get(all_times.len() / 2)
        .copied()
        .unwrap_or_default();
    println!("{:<9} {all}  median {median:.1?}/frame", "all");
    Ok(())
}
