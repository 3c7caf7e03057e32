//! How often a card's codes are read, against the card's width in the
//! frame, for codes of several sizes: the measurement that chose the
//! printable deck's code cell (`print::CODE_CELL`). Run from the
//! repository root:
//!
//! `cargo run --release --example code_size [-- CELL...]`
//!
//! For each code cell (print pixels at 300 dpi; default 44 50 56 62), each
//! card width in frame pixels and each factor (a clean shot; blur; JPEG at
//! 60 with noise; tilt, turn and skew; a lamp's glare; a hand over part of
//! the table), tables of the coded deck are rendered by the scene renderer
//! and read by the detector alone. A card is *named* when a code of its own
//! lies on it, read with at most `MOST_CORRECTED` cells corrected; *wrong*
//! when a code of another card's lies on it. Under a hand, only the cards
//! it covers in part (a tenth to a half) count: whether the code left shows;
//! under glare, only the cards whose print it does not wash out.
//! Percentages of the cards counted; a count under 20 is shown as a ratio.

use arbiter::table::{Card, Cell, Table, Token};
use arbiter::vision::codes::{self, MOST_CORRECTED};
use arbiter::vision::print::{self, back_with, face_with, layout_for};
use arbiter_testkit::scene::{GLARE_BLANK, Glare, HandParams, SceneParams, felt, render};

const WIDTHS: [f32; 8] = [30.0, 36.0, 42.0, 50.0, 60.0, 80.0, 120.0, 200.0];
const SEEDS: u64 = 2;

fn factors(width: f32) -> Vec<(&'static str, SceneParams)> {
    let base = SceneParams {
        pitch_px: width,
        ..SceneParams::clean()
    };
    let mut glare = base.clone();
    glare.look.glare = Some(Glare {
        at: (0.5, 0.5),
        radius: 0.3,
        strength: 1.0,
    });
    vec![
        ("clean", base.clone()),
        (
            "blur 1.0",
            SceneParams {
                blur_sigma: 1.0,
                ..base.clone()
            },
        ),
        (
            "blur 1.5",
            SceneParams {
                blur_sigma: 1.5,
                ..base.clone()
            },
        ),
        (
            "jpeg 60",
            SceneParams {
                jpeg_quality: Some(60),
                noise_sigma: 4.0,
                ..base.clone()
            },
        ),
        (
            "tilt 30",
            SceneParams {
                tilt_deg: 30.0,
                layout_rotation_deg: 17.0,
                per_card_skew_deg: 8.0,
                ..base.clone()
            },
        ),
        ("glare", glare),
        (
            "hand",
            SceneParams {
                hand: Some(HandParams {
                    reach: 0.45,
                    from_deg: None,
                    size: 1.0,
                }),
                ..base
            },
        ),
    ]
}

/// A table as large as the frame holds at this card width (up to 4 × 8).
fn table(width: f32, seed: u64) -> Table {
    let cols = ((1100.0 / (1.15 * width)) as i32).clamp(1, 8);
    let rows = ((620.0 / (1.55 * width)) as i32).clamp(1, 4);
    let deck = print::full_deck();
    let mut t = Table::new();
    for r in 0..rows {
        for c in 0..cols {
            let i = (r * cols + c) as u64 * 7 + seed * 13;
            let token = if i % 5 == 4 {
                Token::Down
            } else {
                Token::Up(deck[(i as usize) % deck.len()])
            };
            t.set(Cell::new(c, r), Some(token));
        }
    }
    t
}

/// Whether `p` lies inside the convex quadrilateral `q`.
fn inside(p: (f32, f32), q: &[(f32, f32); 4]) -> bool {
    let side = |a: (f32, f32), b: (f32, f32)| (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0);
    let s: Vec<f32> = (0..4).map(|i| side(q[i], q[(i + 1) % 4])).collect();
    s.iter().all(|&v| v >= 0.0) || s.iter().all(|&v| v <= 0.0)
}

#[derive(Default, Clone, Copy)]
struct Tally {
    cards: u32,
    named: u32,
    wrong: u32,
}

fn main() {
    let cells: Vec<f32> = {
        let args: Vec<f32> = std::env::args()
            .skip(1)
            .filter_map(|a| a.parse().ok())
            .collect();
        if args.is_empty() {
            vec![44.0, 50.0, 56.0, 62.0]
        } else {
            args
        }
    };
    let texture = felt(128, 3);
    for &cell in &cells {
        let layout = layout_for(cell);
        let art = |c: Option<Card>| match c {
            Some(card) => face_with(card, &layout),
            None => back_with(&layout),
        };
        println!(
            "\ncode cell {cell} px at print size ({:.1} mm, {:.2} of the card's width)",
            cell / 300.0 * 25.4,
            cell / print::CARD_W as f32
        );
        print!("{:<10}", "width px");
        for w in WIDTHS {
            print!("{w:>8}");
        }
        println!();
        print!("{:<10}", "cell px");
        for w in WIDTHS {
            print!("{:>8.1}", w * cell / print::CARD_W as f32);
        }
        println!();
        for (name, _) in factors(50.0) {
            print!("{name:<10}");
            let mut wrong_any = 0;
            for w in WIDTHS {
                let mut tally = Tally::default();
                for seed in 0..SEEDS {
                    let (_, params) = factors(w)
                        .into_iter()
                        .find(|(n, _)| *n == name)
                        .expect("the factor is listed");
                    let params = SceneParams { seed, ..params };
                    let scene = render(&table(w, seed), &params, &art, &texture);
                    let seen = codes::detect(&scene.image);
                    for truth in &scene.truth {
                        if name == "hand" {
                            let covered = 1.0 - truth.visible;
                            if !(0.1..=0.5).contains(&covered) {
                                continue;
                            }
                        } else if truth.visible < 0.99 || truth.glare_clipped >= GLARE_BLANK {
                            // Covered, or its print washed out (a reader is
                            // right about it only with `??` for glare).
                            continue;
                        }
                        tally.cards += 1;
                        let on_it: Vec<_> = seen
                            .iter()
                            .filter(|c| inside(c.project((0.0, 0.0)), &truth.corners_px))
                            .collect();
                        let named = codes::named_by;
                        let mine = |c: &&codes::CodeSeen| {
                            named(c.id).map(|n| n.token()) == Some(truth.token)
                        };
                        if on_it.iter().any(|c| !mine(c)) {
                            tally.wrong += 1;
                            if std::env::var_os("CODE_SIZE_WHY").is_some() {
                                for c in &on_it {
                                    eprintln!(
                                        "{name} w {w} seed {seed}: {:?} at {:?} shows code {} ({} corrected, margin {:.0})",
                                        truth.token, truth.cell, c.id, c.corrected, c.margin
                                    );
                                }
                            }
                        } else if on_it
                            .iter()
                            .any(|c| mine(c) && c.corrected <= MOST_CORRECTED)
                        {
                            tally.named += 1;
                        }
                    }
                }
                wrong_any += tally.wrong;
                if tally.cards == 0 {
                    print!("{:>8}", "-");
                } else if tally.cards < 20 {
                    print!("{:>8}", format!("{}/{}", tally.named, tally.cards));
                } else {
                    print!(
                        "{:>7.1}%",
                        100.0 * f64::from(tally.named) / f64::from(tally.cards)
                    );
                }
            }
            println!("   wrong {wrong_any}");
        }
    }
}
