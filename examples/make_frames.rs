//! Writes the image fixture sets from their seeds. Run from the repository
//! root: `cargo run --release --example make_frames [-- OPTIONS]`
//!
//! - no option: everything below.
//! - `--frames`: the classic sets, `fixtures/frames/<set>/NNN.jpg` with
//!   `NNN.toml` (the expected observation), and the stand-in deck's faces,
//!   `fixtures/decks/stand-in/`.
//! - `--tables [SET...]`: the varied sets, `fixtures/tables/<set>/` (all,
//!   or the named ones), and the faces of the decks of other artwork,
//!   `fixtures/decks/<letters|silhouette|outline>/`.
//! - `--keep UNSEEN SET INDEX`: one frame of `accuracy --unseen UNSEEN`
//!   (as it names it) kept as a regression fixture,
//!   `fixtures/regressions/u<UNSEEN>-<SET>-<INDEX>.{jpg,toml}`: a frame
//!   found read wrong stays read by the tests once mended.
//! - `--preview DIR [SET...]`: no fixture; the first frames of the varied
//!   sets as PNG in DIR, with each card's true corners marked (red: top
//!   left of the artwork, yellow: the others), to check truth by eye.

use std::fs;
use std::path::Path;

use arbiter::deck::print::full_deck;
use arbiter_testkit::fixtures::tables::{
    frame_files, render_frame, table_sets, table_sets_seeded, write_table_set,
};
use arbiter_testkit::fixtures::{FixtureDeck, sets};
use arbiter_testkit::scene::{ArtDeck, stand_in_card, write_set};
use image::Rgb;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let named = |from: usize| -> Vec<String> {
        args[from..]
            .iter()
            .filter(|a| !a.starts_with("--"))
            .cloned()
            .collect()
    };
    if let Some(i) = args.iter().position(|a| a == "--preview") {
        let dir = args
            .get(i + 1)
            .map(String::as_str)
            .unwrap_or("/tmp/preview");
        return preview(Path::new(dir), &named(i + 2));
    }
    if let Some(i) = args.iter().position(|a| a == "--keep") {
        return keep(&args[i + 1..]);
    }
    let all = args.is_empty();
    if all || args.iter().any(|a| a == "--frames") {
        frames()?;
    }
    if let Some(i) = args.iter().position(|a| a == "--tables") {
        tables(&named(i + 1))?;
    } else if all {
        tables(&[])?;
    }
    Ok(())
}

fn frames() -> std::io::Result<()> {
    let root = Path::new("fixtures/frames");
    for set in sets() {
        let dir = root.join(set.name);
        if dir.exists() {
            fs::remove_dir_all(&dir)?;
        }
        write_set(root, set.name, &set.frames, &|c| set.deck.image(c))?;
        fs::write(dir.join("ABOUT"), format!("{}\n", set.about))?;
        if set.deck == FixtureDeck::StandIn {
            fs::write(dir.join("DECK"), "fixtures/decks/stand-in\n")?;
        }
        println!("{}: {} frames", set.name, set.frames.len());
    }
    // One photograph per card kind, as `arbiter deck learn` wants them.
    let faces = Path::new("fixtures/decks/stand-in");
    fs::create_dir_all(faces)?;
    let mut kinds: Vec<_> = full_deck().into_iter().collect();
    kinds.sort();
    kinds.dedup();
    for card in kinds {
        stand_in_card(Some(card), 126)
            .save(faces.join(format!("{card}.png")))
            .map_err(std::io::Error::other)?;
    }
    stand_in_card(None, 126)
        .save(faces.join("back.png"))
        .map_err(std::io::Error::other)?;
    Ok(())
}

fn tables(only: &[String]) -> std::io::Result<()> {
    for deck in ArtDeck::ALL {
        let dir = Path::new("fixtures/decks").join(deck.name());
        fs::create_dir_all(&dir)?;
        for (card, name) in ArtDeck::kinds() {
            deck.card(card, 150)
                .save(dir.join(format!("{name}.png")))
                .map_err(std::io::Error::other)?;
        }
    }
    let root = Path::new("fixtures/tables");
    let (mut frames, mut cells) = (0, 0);
    for set in table_sets() {
        if !only.is_empty() && !only.iter().any(|n| n == set.name) {
            continue;
        }
        let (f, c) = write_table_set(root, &set)?;
        println!("{}: {f} frames, {c} cells", set.name);
        frames += f;
        cells += c;
    }
    println!("all: {frames} frames, {cells} cells");
    Ok(())
}

fn keep(args: &[String]) -> std::io::Result<()> {
    let usage = || std::io::Error::other("usage: make_frames --keep UNSEEN SET INDEX");
    let [unseen, set, index, ..] = args else {
        return Err(usage());
    };
    let (unseen, index): (u64, usize) = (
        unseen.parse().map_err(|_| usage())?,
        index.parse().map_err(|_| usage())?,
    );
    let sets = table_sets_seeded(unseen * 1_000_000);
    let frame = sets
        .iter()
        .find(|s| s.name == set)
        .and_then(|s| s.frames.get(index))
        .ok_or_else(|| std::io::Error::other(format!("{set} has no frame {index}")))?;
    let (jpeg, text) = frame_files(frame)?;
    let dir = Path::new("fixtures/regressions");
    fs::create_dir_all(dir)?;
    let name = format!("u{unseen}-{set}-{index:03}");
    fs::write(dir.join(format!("{name}.jpg")), jpeg)?;
    fs::write(dir.join(format!("{name}.toml")), text)?;
    println!("{}", dir.join(name).display());
    Ok(())
}

fn preview(dir: &Path, only: &[String]) -> std::io::Result<()> {
    fs::create_dir_all(dir)?;
    let per_set = 4;
    for set in table_sets() {
        if !only.is_empty() && !only.iter().any(|n| n == set.name) {
            continue;
        }
        for (n, f) in set
            .frames
            .iter()
            .take(if only.is_empty() { per_set } else { 1000 })
            .enumerate()
        {
            let scene = render_frame(f);
            let mut img = scene.image.clone();
            for t in &scene.truth {
                for (k, &(x, y)) in t.corners_px.iter().enumerate() {
                    let c = if k == 0 {
                        Rgb([255, 0, 0])
                    } else {
                        Rgb([255, 230, 0])
                    };
                    for dy in -2..=2 {
                        for dx in -2..=2 {
                            let (px, py) = (x.round() as i32 + dx, y.round() as i32 + dy);
                            if px >= 0
                                && py >= 0
                                && (px as u32) < img.width()
                                && (py as u32) < img.height()
                            {
                                img.put_pixel(px as u32, py as u32, c);
                            }
                        }
                    }
                }
            }
            let name = format!("{}-{n:03}.png", set.name);
            img.save(dir.join(&name)).map_err(std::io::Error::other)?;
            println!(
                "{name}: {:?} {:?} {:?} {:?} busy={} cells={}",
                f.deck,
                f.light,
                f.lens,
                f.occluder,
                scene.busy,
                f.table.len()
            );
        }
    }
    Ok(())
}
