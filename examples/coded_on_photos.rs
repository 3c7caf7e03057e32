//! The coded deck on kinds of table never tuned on: the tables of real
//! photographs. Each photo's largest card-free region (outside every
//! labelled card's box) becomes the table under a held-out table of the
//! varied sets' specs, in the coded deck, at the photo's own scale (a
//! card as wide as the photo's cards); the recogniser reads it and the
//! report gives the same per-factor tables as `accuracy`. Nothing of the
//! photos is kept: they are read where they lie.
//!
//! `cargo run --release --example coded_on_photos -- LABELS.json [--per N] [--show DIR]`
//! (the labels of `../shared/real-photos/pinochle/`: `{"IMAGE": [{"box":
//! [x0, y0, x1, y1]}, ...]}`, images beside the file; `--per`: tables a
//! photo, 2 by default; `--show`: the first frames as PNG, to look at).
use std::path::{Path, PathBuf};

use arbiter::vision::recognise::Recogniser;
use arbiter_testkit::accuracy::{FrameScore, Score, Truth, factor_tables, score};
use arbiter_testkit::fixtures::FixtureDeck;
use arbiter_testkit::fixtures::tables::{Factors, render_frame_on, table_sets_seeded, truth_text};
use image::RgbImage;

/// The largest axis-aligned rectangle of `img` that meets no box (each
/// grown by a margin), found on a grid of `step` px: `(x, y, w, h)`.
fn free_region(img: &RgbImage, boxes: &[[f64; 4]], step: u32) -> Option<(u32, u32, u32, u32)> {
    let (cols, rows) = (img.width() / step, img.height() / step);
    let margin = 12.0;
    let taken = |c: u32, r: u32| {
        let (x0, y0) = (f64::from(c * step), f64::from(r * step));
        let (x1, y1) = (x0 + f64::from(step), y0 + f64::from(step));
        boxes.iter().any(|b| {
            x1 > b[0] - margin && x0 < b[2] + margin && y1 > b[1] - margin && y0 < b[3] + margin
        })
    };
    // Largest rectangle under a histogram, row by row.
    let mut heights = vec![0u32; cols as usize];
    let mut best: Option<(u32, (u32, u32, u32, u32))> = None;
    for r in 0..rows {
        for c in 0..cols {
            let h = &mut heights[c as usize];
            *h = if taken(c, r) { 0 } else { *h + 1 };
        }
        for c0 in 0..cols as usize {
            let mut low = u32::MAX;
            for (c1, &height) in heights.iter().enumerate().skip(c0) {
                low = low.min(height);
                if low == 0 {
                    break;
                }
                let area = low * (c1 - c0 + 1) as u32;
                if best.is_none_or(|b| area > b.0) {
                    let rect = (c0 as u32, r + 1 - low, (c1 - c0 + 1) as u32, low);
                    best = Some((area, rect));
                }
            }
        }
    }
    best.map(|(_, (c, r, w, h))| (c * step, r * step, w * step, h * step))
}

/// `crop` mirrored into a 2×2 tile, so that tiling the plane shows no seam.
fn seamless(crop: &RgbImage) -> RgbImage {
    let (w, h) = crop.dimensions();
    let mut out = RgbImage::new(2 * w, 2 * h);
    for y in 0..2 * h {
        for x in 0..2 * w {
            let sx = if x < w { x } else { 2 * w - 1 - x };
            let sy = if y < h { y } else { 2 * h - 1 - y };
            out.put_pixel(x, y, *crop.get_pixel(sx, sy));
        }
    }
    out
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: coded_on_photos LABELS.json [--per N] [--show DIR]";
    let labels_path = PathBuf::from(args.first().ok_or(usage)?);
    let option = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let per: usize = match option("--per") {
        Some(n) => n.parse().map_err(|_| format!("--per {n}: not a number"))?,
        None => 2,
    };
    let show = option("--show").map(PathBuf::from);
    let text = std::fs::read_to_string(&labels_path)
        .map_err(|e| format!("{}: {e}", labels_path.display()))?;
    let labels: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", labels_path.display()))?;
    let root = labels_path.parent().unwrap_or(Path::new("."));

    // Held-out tables: the varied sets' specs, seeds moved on by 7 million.
    let frames: Vec<_> = table_sets_seeded(7_000_000)
        .into_iter()
        .flat_map(|s| s.frames)
        .collect();
    let recogniser = Recogniser::coded();
    let mut scored: Vec<FrameScore> = Vec::new();
    let (mut photos, mut skipped) = (0, 0);
    for (image, cards) in &labels {
        let path = root.join(image);
        let photo = image::open(&path)
            .map_err(|e| format!("{}: {e}", path.display()))?
            .to_rgb8();
        let boxes: Vec<[f64; 4]> = cards
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| {
                let b = c.get("box")?.as_array()?;
                let v: Vec<f64> = b.iter().filter_map(|x| x.as_f64()).collect();
                (v.len() == 4).then(|| [v[0], v[1], v[2], v[3]])
            })
            .collect();
        let mut widths: Vec<f64> = boxes
            .iter()
            .map(|b| (b[2] - b[0]).min(b[3] - b[1]))
            .collect();
        widths.sort_by(f64::total_cmp);
        let card_w = widths.get(widths.len() / 2).copied().unwrap_or(100.0);
        let Some((x, y, w, h)) = free_region(&photo, &boxes, 8).filter(|r| r.2 >= 64 && r.3 >= 64)
        else {
            skipped += 1;
            continue;
        };
        photos += 1;
        let crop = image::imageops::crop_imm(&photo, x, y, w, h).to_image();
        for k in 0..per {
            let mut f = frames[(photos * per + k) % frames.len()].clone();
            f.deck = FixtureDeck::Coded;
            f.params.look.surface = None;
            // The photo's scale: its card as wide as the plane's.
            let scale = (f64::from(f.params.pitch_px) / card_w).clamp(0.05, 8.0);
            let (tw, th) = (
                ((f64::from(w) * scale) as u32).max(16),
                ((f64::from(h) * scale) as u32).max(16),
            );
            let texture = seamless(&image::imageops::resize(
                &crop,
                tw,
                th,
                image::imageops::FilterType::Triangle,
            ));
            let scene = render_frame_on(&f, &texture);
            let name = format!("{}#{k}", image.rsplit('/').next().unwrap_or(image));
            let truth_file = truth_text(&f, &scene);
            let truth = Truth::parse(&name, &truth_file).map_err(|e| e.to_string())?;
            let mut factors = Factors::parse(&truth_file).unwrap_or_default();
            factors.surface = "photo".into();
            let start = std::time::Instant::now();
            let rec = recogniser.recognise(&scene.image);
            let time = start.elapsed();
            if let Some(dir) = &show
                && scored.len() < 12
            {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                let out = dir.join(format!("{}.png", name.replace('#', "-")));
                scene
                    .image
                    .save(&out)
                    .map_err(|e| format!("{}: {e}", out.display()))?;
            }
            scored.push(FrameScore {
                set: "photos".into(),
                name,
                score: score(&truth, &rec),
                factors,
                time,
            });
        }
    }
    let mut all = Score::default();
    for f in &scored {
        all.add(&f.score);
    }
    println!(
        "{photos} photos' tables ({skipped} left no card-free region of 64 px), {per} held-out tables each, coded deck:"
    );
    println!("all       {all}");
    print!("{}", factor_tables(&scored));
    let mut worst: Vec<&FrameScore> = scored
        .iter()
        .filter(|f| f.score.correct < f.score.cells || f.score.confident_wrong > 0)
        .collect();
    worst.sort_by_key(|f| f.score.correct as i64 - f.score.cells as i64);
    println!("\nframes not read whole, worst first:");
    for f in worst.iter().take(20) {
        let s = &f.score;
        println!(
            "{:<16} {:>3}/{:<3} right {:>2} wrong {:>3} ?? {:>3} missing  {:.0}px {} {}",
            f.name,
            s.correct,
            s.cells,
            s.confident_wrong,
            s.unreadable,
            s.missed,
            f.factors.card_px,
            f.factors.occluder,
            f.factors.light
        );
        if !s.wrong_cells.is_empty() {
            println!("          wrong (read/truth): {}", s.wrong_cells.join(", "));
        }
    }
    Ok(())
}
