//! Writes the image fixture sets, `fixtures/frames/<set>/NNN.jpg` with
//! `NNN.toml` (the expected observation), and the stand-in deck's faces,
//! `fixtures/decks/stand-in/`, from their seeds. Run from the repository
//! root: `cargo run --release --example make_frames`

use std::fs;
use std::path::Path;

use arbiter::deck::print::full_deck;
use arbiter::vision::fixtures::{Deck, sets};
use arbiter::vision::scene::{stand_in_card, write_set};

fn main() -> std::io::Result<()> {
    let root = Path::new("fixtures/frames");
    for set in sets() {
        let dir = root.join(set.name);
        if dir.exists() {
            fs::remove_dir_all(&dir)?;
        }
        write_set(root, set.name, &set.frames, &|c| set.deck.image(c))?;
        fs::write(dir.join("ABOUT"), format!("{}\n", set.about))?;
        if set.deck == Deck::StandIn {
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
