//! Card art for the learned finder's training frames (`tools/finder`):
//! cards of many random decks, each kind's face or back as a PNG, which
//! `tools/finder/compose.py` lays on tables at any size and angle.
//!
//! `cargo run --release --example card_art -- --out DIR [--decks N]
//! [--kinds K] [--seed S] [--width W]` writes `DIR/train/` (K random kinds
//! of each of N random decks, and of the printable deck) and
//! `DIR/heldout/` (every kind of the fixture sets' four learned decks,
//! which training never sees), as `<deck>-<kind>.png` W pixels wide.
//! A deck and its kinds depend only on the seed and the deck's number.
use std::path::{Path, PathBuf};

use arbiter_core::table::{Card, Colour, Piece, Token};
use arbiter_testkit::fixtures::FixtureDeck;
use arbiter_testkit::scene::RandomDeck;
use image::RgbImage;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

/// Every kind a deck can show: the back, and each colour's six pieces.
fn all_kinds(yellow: bool) -> Vec<Option<Card>> {
    let mut colours = vec![Colour::White, Colour::Black, Colour::Red, Colour::Blue];
    if yellow {
        colours.push(Colour::Yellow);
    }
    let mut kinds = vec![None];
    for c in colours {
        for p in Piece::ALL {
            kinds.push(Some(Card::new(c, p)));
        }
    }
    kinds
}

fn name(card: Option<Card>) -> String {
    card.map_or(Token::Down, Token::Up)
        .to_string()
        .replace("##", "back")
}

fn save(dir: &Path, deck: &str, card: Option<Card>, img: &RgbImage) {
    let path = dir.join(format!("{deck}-{}.png", name(card)));
    img.save(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn main() {
    let mut out: Option<PathBuf> = None;
    let (mut decks, mut kinds, mut seed, mut width) = (300usize, 6usize, 1u64, 192u32);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--out" => out = Some(PathBuf::from(value())),
            "--decks" => decks = value().parse().expect("--decks N"),
            "--kinds" => kinds = value().parse().expect("--kinds K"),
            "--seed" => seed = value().parse().expect("--seed S"),
            "--width" => width = value().parse().expect("--width W"),
            other => panic!("unknown argument {other}"),
        }
    }
    let out = out.expect("--out DIR");
    let (train, heldout) = (out.join("train"), out.join("heldout"));
    for d in [&train, &heldout] {
        std::fs::create_dir_all(d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
    }
    for k in 0..decks {
        let deck_seed = 5_000_000 + seed * 100_000 + k as u64;
        let deck = RandomDeck::new(deck_seed);
        let mut r = StdRng::seed_from_u64(deck_seed);
        let mut pool = all_kinds(true);
        pool.shuffle(&mut r);
        // The back always: face-down cards are half of a table.
        let mut chosen = vec![None];
        chosen.extend(pool.into_iter().flatten().take(kinds).map(Some));
        for card in chosen {
            let w = if r.random_bool(0.5) {
                width
            } else {
                width * 3 / 4
            };
            save(
                &train,
                &format!("random-{deck_seed}"),
                card,
                &deck.card(card, w),
            );
        }
    }
    let printed = FixtureDeck::Printed;
    for card in all_kinds(printed.has_yellow()) {
        save(&train, printed.name(), card, &printed.image_at(card, width));
    }
    for fixture in [
        FixtureDeck::StandIn,
        FixtureDeck::Letters,
        FixtureDeck::Silhouette,
        FixtureDeck::Outline,
    ] {
        for card in all_kinds(fixture.has_yellow()) {
            save(
                &heldout,
                fixture.name(),
                card,
                &fixture.image_at(card, width),
            );
        }
    }
    println!(
        "{}: card art of {decks} random decks and 5 fixture decks",
        out.display()
    );
}
