//! The image fixture sets (`fixtures/frames/<set>/`): what each set shows
//! and how it is rendered, so that the committed frames can be made again
//! from their seeds (`cargo run --release --example make_frames`) and the
//! tests can render more of the same.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use image::RgbImage;
use image::imageops::FilterType;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::deck::print::{DECK_COLOURS, ENOCHIAN_COLOURS, back, face};
use crate::table::{Card, Cell, Piece, Table, Token};
use crate::vision::scene::{HandParams, SceneParams, stand_in_card};

/// Which card faces a set is rendered with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deck {
    /// The bundled printable deck (`arbiter deck export`).
    Printed,
    /// A second design with no corner code, recognised from templates
    /// learned from its faces (`fixtures/decks/stand-in/`).
    StandIn,
}

impl Deck {
    /// The card image for the renderer; `None` is the back. Images are
    /// shrunk once to a size that suits frames up to 1280×720.
    pub fn image(self, card: Option<Card>) -> RgbImage {
        type Cache = Mutex<HashMap<(u8, Option<Card>), RgbImage>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
        let key = (self as u8, card);
        if let Some(img) = cache.lock().map(|c| c.get(&key).cloned()).ok().flatten() {
            return img;
        }
        let img = match self {
            Deck::Printed => {
                let full = match card {
                    Some(c) => face(c),
                    None => back(),
                };
                image::imageops::resize(&full, 248, 346, FilterType::Triangle)
            }
            Deck::StandIn => stand_in_card(card, 248),
        };
        if let Ok(mut c) = cache.lock() {
            c.insert(key, img.clone());
        }
        img
    }
}

/// One fixture set: frames to render and the deck they use.
pub struct Set {
    pub name: &'static str,
    pub about: &'static str,
    pub deck: Deck,
    pub frames: Vec<(Table, SceneParams)>,
}

/// A loose En Prise-like layout of `n` cards grown from one cell: mostly
/// edge neighbours, now and then a cell one further out (a gap), with
/// faces of every colour and some backs.
pub fn random_layout(seed: u64, n: usize) -> Table {
    let mut r = StdRng::seed_from_u64(seed ^ 0x1A7_0017);
    let mut table = Table::new();
    let mut cells = vec![Cell::new(0, 0)];
    table.set(Cell::new(0, 0), Some(random_token(&mut r)));
    while table.len() < n {
        let from = cells[r.random_range(0..cells.len())];
        let (dc, dr) = [(1, 0), (-1, 0), (0, 1), (0, -1)][r.random_range(0..4)];
        let step = if r.random_bool(0.15) { 2 } else { 1 };
        let c = Cell::new(from.col + dc * step, from.row + dr * step);
        // Keep the layout within a frame's reach.
        if (c.col.abs() > 4) || (c.row.abs() > 2) || table.get(c).is_some() {
            continue;
        }
        table.set(c, Some(random_token(&mut r)));
        cells.push(c);
    }
    table
}

fn random_token(r: &mut StdRng) -> Token {
    if r.random_bool(0.3) {
        return Token::Down;
    }
    // En Prise's four colours: these sets were made before the deck had
    // Yellow, and their seeds must keep making the same frames.
    let colour = DECK_COLOURS[r.random_range(0..DECK_COLOURS.len())];
    let piece = Piece::ALL[r.random_range(0..Piece::ALL.len())];
    Token::Up(Card { colour, piece })
}

/// A strip of an Enochian board, five files by three ranks, about two
/// thirds full of the four armies' cards (Yellow's among them), with one
/// or two throne pairs — a king and a partner of its army — on the outer
/// rank or file, where the renderer pushes the partner off the board.
pub fn enochian_layout(seed: u64) -> Table {
    let mut r = StdRng::seed_from_u64(seed ^ 0xE40C_4140);
    let mut table = Table::new();
    let card = |r: &mut StdRng, piece: Option<Piece>| {
        let colour = ENOCHIAN_COLOURS[r.random_range(0..ENOCHIAN_COLOURS.len())];
        let piece = piece.unwrap_or_else(|| Piece::ALL[r.random_range(1..Piece::ALL.len())]);
        Card { colour, piece }
    };
    for row in 0..3 {
        for col in 0..5 {
            if r.random_bool(0.65) {
                table.set(Cell::new(col, row), Some(Token::Up(card(&mut r, None))));
            }
        }
    }
    // The bottom rank's middle files and the left file's middle rank: the
    // renderer pushes their partners down and left, off the strip.
    let thrones = [
        Cell::new(1, 2),
        Cell::new(2, 2),
        Cell::new(3, 2),
        Cell::new(0, 1),
    ];
    let n = r.random_range(1..=2);
    let first = r.random_range(0..thrones.len());
    for k in 0..n {
        let cell = thrones[(first + 2 * k) % thrones.len()];
        let king = card(&mut r, Some(Piece::King));
        let partner = Card {
            piece: Piece::ALL[r.random_range(1..Piece::ALL.len())],
            ..king
        };
        table.set(cell, Some(Token::pair(king, partner)));
    }
    table
}

fn base(width: u32, height: u32, pitch: f32, seed: u64) -> SceneParams {
    SceneParams {
        width,
        height,
        pitch_px: pitch,
        // Committed frames are JPEG, as a webcam sends them; a PNG of
        // textured felt is ten times the size.
        jpeg_quality: Some(92),
        seed,
        ..SceneParams::clean()
    }
}

/// The committed sets.
pub fn sets() -> Vec<Set> {
    let mut out = Vec::new();
    let frames = |n: u64, f: &dyn Fn(u64) -> (Table, SceneParams)| (0..n).map(f).collect();
    out.push(Set {
        name: "clean",
        about: "overhead, even light, straight grid",
        deck: Deck::Printed,
        frames: frames(4, &|i| {
            let t = random_layout(100 + i, 8 + 3 * i as usize);
            (t, base(1280, 720, 78.0, 100 + i))
        }),
    });
    out.push(Set {
        name: "turned",
        about: "any layout rotation; cards upright, upside down or turned a quarter, skewed ±10°",
        deck: Deck::Printed,
        frames: frames(6, &|i| {
            let t = random_layout(200 + i, 8 + 2 * i as usize);
            let p = SceneParams {
                layout_rotation_deg: 61.0 * i as f32,
                per_card_skew_deg: 10.0,
                quarter_turns: true,
                gap_jitter_px: 4.0,
                ..base(960, 540, 50.0, 200 + i)
            };
            (t, p)
        }),
    });
    out.push(Set {
        name: "tilted",
        about: "camera 15–30° off vertical, no calibration",
        deck: Deck::Printed,
        frames: frames(4, &|i| {
            let t = random_layout(300 + i, 10 + 2 * i as usize);
            let p = SceneParams {
                tilt_deg: 15.0 + 5.0 * i as f32,
                layout_rotation_deg: -20.0 + 13.0 * i as f32,
                per_card_skew_deg: 5.0,
                ..base(960, 540, 52.0, 300 + i)
            };
            (t, p)
        }),
    });
    out.push(Set {
        name: "light",
        about: "uneven light, a shadow, blur, noise and JPEG",
        deck: Deck::Printed,
        frames: frames(4, &|i| {
            let t = random_layout(400 + i, 12);
            let p = SceneParams {
                layout_rotation_deg: 10.0 * i as f32,
                tilt_deg: 10.0,
                light_gradient: 0.5,
                shadow: 0.4,
                blur_sigma: 1.2,
                noise_sigma: 6.0,
                jpeg_quality: Some(70),
                ..base(960, 540, 54.0, 400 + i)
            };
            (t, p)
        }),
    });
    out.push(Set {
        name: "hands",
        about: "a hand over the cards: busy, and never a wrong card",
        deck: Deck::Printed,
        frames: frames(4, &|i| {
            let t = random_layout(500 + i, 12);
            let p = SceneParams {
                hand: Some(HandParams {
                    reach: 0.3 + 0.1 * i as f32,
                    from_deg: Some(90.0 * i as f32 + 20.0),
                    size: 1.0,
                }),
                ..base(960, 540, 54.0, 500 + i)
            };
            (t, p)
        }),
    });
    out.push(Set {
        name: "random",
        about: "anything between clean and tough, drawn from seeds",
        deck: Deck::Printed,
        frames: frames(8, &|i| {
            let t = random_layout(600 + i, 6 + i as usize);
            let r = SceneParams::random(600 + i);
            let p = SceneParams {
                width: 960,
                height: 540,
                pitch_px: 46.0,
                jpeg_quality: r.jpeg_quality.or(Some(92)),
                ..r
            };
            (t, p)
        }),
    });
    out.push(Set {
        name: "enochian",
        about: "Enochian armies, Yellow among them, and throne pairs: the partner under its king, pushed half a card off the board",
        deck: Deck::Printed,
        frames: frames(8, &|i| {
            let t = enochian_layout(800 + i);
            let p = SceneParams {
                layout_rotation_deg: 45.0 * i as f32 - 20.0,
                per_card_skew_deg: 3.0,
                tilt_deg: 4.0 * (i % 4) as f32,
                light_gradient: 0.1 * (i % 3) as f32,
                noise_sigma: 2.0,
                ..base(960, 540, 50.0, 800 + i)
            };
            (t, p)
        }),
    });
    out.push(Set {
        name: "stand-in",
        about: "a second deck design, learned from its faces in fixtures/decks/stand-in",
        deck: Deck::StandIn,
        frames: frames(6, &|i| {
            let t = random_layout(700 + i, 8 + i as usize);
            let p = SceneParams {
                layout_rotation_deg: 30.0 * i as f32,
                per_card_skew_deg: 6.0,
                quarter_turns: i % 2 == 1,
                tilt_deg: 5.0 * i as f32,
                light_gradient: 0.3,
                noise_sigma: 3.0,
                jpeg_quality: Some(85),
                ..base(960, 540, 50.0, 700 + i)
            };
            (t, p)
        }),
    });
    out
}
