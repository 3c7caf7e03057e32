//! The coded deck's codes the detector finds in photos, and the cards they
//! make: for looking at what the camera reads on a table, and for checking
//! that photos of other decks hold no code of ours (a phantom would be a
//! card named where none lies). Run from the repository root:
//!
//! `cargo run --release --example codes_in -- IMAGE...`
//!
//! Prints one line per image (codes found, with their corrected cells;
//! the cards named, `??` with why) and a total.

use arbiter::vision::coded;
use arbiter::vision::codes::{self, named_by};

fn main() {
    let (mut images, mut all_codes, mut named, mut doubted) = (0, 0, 0, 0);
    for path in std::env::args().skip(1) {
        let frame = match image::open(&path) {
            Ok(img) => img.to_rgb8(),
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        images += 1;
        let seen = codes::detect(&frame);
        let cards = coded::cards(&frame);
        all_codes += seen.len();
        let mut line = format!("{path}: {} codes", seen.len());
        for c in &seen {
            let name = named_by(c.id).map_or("-".to_string(), |n| n.token().to_string());
            line += &format!(" [{name} {} corrected]", c.corrected);
        }
        for c in &cards {
            match (c.token, c.doubt) {
                (Some(t), _) => {
                    named += 1;
                    line += &format!(" {t}");
                }
                (None, Some(why)) => {
                    doubted += 1;
                    line += &format!(" ?? ({why})");
                }
                (None, None) => doubted += 1,
            }
        }
        println!("{line}");
    }
    println!("{images} images: {all_codes} codes, {named} cards named, {doubted} ??");
}
