//! Draws what the card finder sees in a frame: each detection's outline
//! (green when read, orange when seen but not read) over the frame, written
//! as a PNG beside the given path. A debugging aid for new tables:
//! `cargo run --release --example show_detections -- [--deck FILE] IMAGE... `

use std::path::PathBuf;

use arbiter::vision::cards::{Identify, rectify};
use arbiter::vision::finder::detect_with;
use arbiter::vision::templates::DeckModel;
use image::Rgb;

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut deck: Option<DeckModel> = None;
    let mut images = Vec::new();
    while let Some(a) = args.next() {
        if a == "--deck" {
            let path = args.next().ok_or("--deck needs a file")?;
            deck = Some(DeckModel::load(&PathBuf::from(&path)).map_err(|e| e.to_string())?);
        } else {
            images.push(PathBuf::from(a));
        }
    }
    let model: &dyn Identify = match deck.as_ref() {
        Some(d) => d,
        // The printed deck as `recognise` reads it by default.
        None => DeckModel::bundled(),
    };
    for path in images {
        let mut frame = image::open(&path)
            .map_err(|e| format!("{}: {e}", path.display()))?
            .to_rgb8();
        let dets = detect_with(&frame, model);
        let stem = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        for (k, d) in dets.iter().enumerate() {
            if std::env::var_os("SHOW_UNREAD").is_some() && d.token.is_none() {
                let card = rectify(&frame, &d.corners);
                let (t, c) = model.identify(&card);
                let out = std::env::temp_dir().join(format!("unread-{stem}-{k}-{c:.2}.png"));
                let _ = card.save(out);
                eprintln!(
                    "unread {stem} #{k} at ({:.0},{:.0}): {t:?} {c:.2}",
                    d.centre.0, d.centre.1
                );
            }
        }
        for d in &dets {
            let colour = if d.token.is_some() {
                Rgb([0, 255, 0])
            } else {
                Rgb([255, 140, 0])
            };
            for i in 0..4 {
                let (a, b) = (d.corners[i], d.corners[(i + 1) % 4]);
                let n = (a.0 - b.0).hypot(a.1 - b.1).ceil() as usize + 1;
                for k in 0..=n {
                    let t = k as f32 / n as f32;
                    let (x, y) = (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t);
                    if x >= 0.0
                        && y >= 0.0
                        && (x as u32) < frame.width()
                        && (y as u32) < frame.height()
                    {
                        frame.put_pixel(x as u32, y as u32, colour);
                    }
                }
            }
        }
        let out = path.with_extension("detections.png");
        let out = std::env::temp_dir().join(out.file_name().unwrap_or_default());
        frame
            .save(&out)
            .map_err(|e| format!("{}: {e}", out.display()))?;
        let read = dets.iter().filter(|d| d.token.is_some()).count();
        println!(
            "{}: {} found, {read} read -> {}",
            path.display(),
            dets.len(),
            out.display()
        );
    }
    Ok(())
}
