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
//! - `--recording`: the recorded demo game, `fixtures/recordings/demo/`:
//!   the bundled demo's opening (placements, a card out of order, a capture
//!   whose FLIP is forgotten, each mended) filmed at 10 frames a second,
//!   hands coming and going, with `game.toml`, the script it plays; the
//!   cards are the printable deck's, read by their codes.
//! - `--unseen UNSEEN DIR [--coded]`: no fixture; the frames of
//!   `accuracy --unseen UNSEEN` (with `--coded`, in the coded deck) as
//!   `DIR/<set>-NNN.{jpg,toml}`: photos to time other readers on.
//! - `--preview DIR [SET...]`: no fixture; the first frames of the varied
//!   sets as PNG in DIR, with each card's true corners marked (red: top
//!   left of the artwork, yellow: the others), to check truth by eye.

use std::fs;
use std::path::Path;

use arbiter::deck::print::full_deck;
use arbiter::script::Script;
use arbiter_testkit::fixtures::tables::{
    frame_files, render_frame, table_sets, table_sets_seeded, write_table_set,
};
use arbiter_testkit::fixtures::{FixtureDeck, sets};
use arbiter_testkit::record::{Filming, film};
use arbiter_testkit::scene::{ArtDeck, SceneParams, felt, render, stand_in_card, write_set};
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
    if args.iter().any(|a| a == "--recording") {
        return recording();
    }
    if let Some(i) = args.iter().position(|a| a == "--keep") {
        return keep(&args[i + 1..]);
    }
    if let Some(i) = args.iter().position(|a| a == "--unseen") {
        return unseen(&named(i + 1), args.iter().any(|a| a == "--coded"));
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

/// How many of the demo's steps the recording films: up to the mending
/// of the forgotten FLIP.
const RECORDED_STEPS: usize = 14;

fn recording() -> std::io::Result<()> {
    let demo_path = Path::new("fixtures/scenarios/enprise/demo.toml");
    let demo = fs::read_to_string(demo_path)?;
    // The script is the demo's text up to its step RECORDED_STEPS + 1, so
    // its comments and expectations are the demo's own.
    let cut = demo
        .match_indices("[[step]]")
        .nth(RECORDED_STEPS)
        .map_or(demo.len(), |(i, _)| i);
    // The next step's comment, if any, goes with it.
    // Without the demo's own opening comment, which speaks of the whole
    // game.
    let body = demo.find("\ngame").map_or(0, |i| i + 1);
    let mut head = demo[body..cut].trim_end();
    while let Some((before, last)) = head.rsplit_once('\n')
        && last.starts_with('#')
    {
        head = before.trim_end();
    }
    let text = format!(
        "# The recorded demo game: the opening of the bundled demo, filmed by a\n\
         # camera over green felt at 10 frames a second, hands coming and going,\n\
         # the printable deck's codes on every card.\n\
         # Two players place cards, Black lays one out of Battleplan order and\n\
         # mends it, and Black's bishop captures but forgets the FLIP, then\n\
         # mends that. `arbiter play --input frames:fixtures/recordings/demo`\n\
         # referees it; made by `cargo run --release --example make_frames --\n\
         # --recording`.\n\
         {head}\n"
    );
    let script = Script::parse("game.toml", &text).map_err(std::io::Error::other)?;
    // Five still frames a change at 10 a second span the 300 ms settle with
    // a frame to spare; three with a hand show the player at work.
    let how = Filming {
        still: 5,
        hand: 3,
        scene: SceneParams {
            width: 960,
            height: 540,
            noise_sigma: 1.0,
            jpeg_quality: Some(75),
            ..Filming::default().scene
        },
    };
    let frames = film(&script, &how);
    let dir = Path::new("fixtures/recordings/demo");
    if dir.exists() {
        fs::remove_dir_all(dir)?;
    }
    fs::create_dir_all(dir)?;
    for (n, (table, params)) in frames.iter().enumerate() {
        let cloth = felt(256, params.seed);
        let scene = render(table, params, &|c| FixtureDeck::Coded.image(c), &cloth);
        let jpeg = scene.jpeg.expect("filmed as JPEG");
        fs::write(dir.join(format!("{n:03}.jpg")), jpeg)?;
    }
    fs::write(dir.join("game.toml"), text)?;
    println!("{}: {} frames", dir.display(), frames.len());
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

fn unseen(args: &[String], coded: bool) -> std::io::Result<()> {
    let usage = || std::io::Error::other("usage: make_frames --unseen UNSEEN DIR [--coded]");
    let [n, dir, ..] = args else {
        return Err(usage());
    };
    let n: u64 = n.parse().map_err(|_| usage())?;
    let dir = Path::new(dir);
    fs::create_dir_all(dir)?;
    let mut count = 0;
    for set in table_sets_seeded(n * 1_000_000) {
        for (i, f) in set.frames.iter().enumerate() {
            let mut f = f.clone();
            if coded {
                f.deck = FixtureDeck::Coded;
            }
            let (jpeg, text) = frame_files(&f)?;
            let name = format!("{}-{i:03}", set.name);
            fs::write(dir.join(format!("{name}.jpg")), jpeg)?;
            fs::write(dir.join(format!("{name}.toml")), text)?;
            count += 1;
        }
    }
    println!("{count} frames in {}", dir.display());
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
