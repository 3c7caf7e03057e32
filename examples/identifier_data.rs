//! The learned identifier's data: card patches cut from rendered tables,
//! with their truth, for `tools/train-identifier` (which runs this).
//!
//! `cargo run --release --example identifier_data -- --out DIR --split
//! train|val|heldout --frames N --seed S` renders N small tables and
//! writes, in DIR/SPLIT/:
//!
//! - `x.npy` (u8, N×96×64×3): patches as `Patch::from_frame` cuts them,
//!   at the true outline or one moved as a finder leaves it (each corner up
//!   to a tenth of a card's width off), and card-sized outlines that hold no
//!   card (bare table, gaps, halves of neighbours);
//! - `y.npy` (i16): the kind's index in `learned::kinds()` (0 the back),
//!   -1 not a card, -2 a card whose print a lamp washed out (glare-blank);
//! - `kind.npy` (i16): every card's kind whatever the glare (-1 not a
//!   card), what a glare-blank card is named right as;
//! - `deck.npy` (i32): the deck each patch's frame was drawn with;
//! - `meta.npy` (f32, N×8): card width px, print washed, face clipped, how
//!   far the outline is off (card widths), surface family, light family,
//!   blur sigma, JPEG quality;
//! - `refs.npy` (u8, D×31×96×64×3) and `refmask.npy` (u8, D×31): each
//!   deck's reference faces as `Patch::from_face` cuts them, as `deck learn`
//!   would;
//! - `photo_refs.npy` (u8, D'×31×96×64×3; D' the first `--photo-decks`
//!   decks, all by default): the same faces as a player
//!   teaches them, one phone photo a card (`teaching_photo`): the card
//!   alone on a table of the split's families, under a room's light,
//!   blurred, JPEG-compressed, straightened at an outline up to 2% off;
//! - `decks.txt`, `families.txt`: the decks' and families' names.
//!
//! `--refs-only` writes only the references (for frames made before).
//! `--first N` makes frames N.. of a larger run (a frame and its deck
//! depend only on the seed and the frame's number, so a run made in parts
//! is the run made at once: train.py's `--more-train` takes the later
//! parts). `--png DIR --png-count N` also writes N of the patches, spread
//! over the split, as `DIR/<deck>/NNN-<truth>.png` for the tests.
//!
//! `--textures DIR` (tools/real-photos/textures.py's card-free regions of
//! real photos, kept under target/) lays three train and val frames and
//! teaching photos in ten on a real table; without it the run is what it
//! was before.
//!
//! The splits: `train` and `val` draw random decks (disjoint seeds) and
//! the printable deck, on the training families of surfaces and light;
//! `heldout` draws only what training never sees: wood and linen tables,
//! warm lamps, the fixture sets' four learned decks and random decks of
//! yet other seeds.
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use arbiter::vision::pipeline::geometry::Quad;
use arbiter::vision::pipeline::learned::{PATCH_H, PATCH_W, Patch, kinds};
use arbiter_core::table::{Card, Cell, Colour, Piece, Table, Token};
use arbiter_testkit::fixtures::FixtureDeck;
use arbiter_testkit::scene::{
    GLARE_BLANK, Glare, HandParams, Look, OccluderLook, RandomDeck, SKIN_TONES, SceneParams,
    Sleeve, Surface, SurfaceKind, TextureFamily, render, texture,
};
use image::codecs::jpeg::JpegEncoder;
use image::{ImageFormat, RgbImage};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Split {
    Train,
    Val,
    Heldout,
}

/// A deck as the generator draws it.
#[derive(Clone, Debug)]
enum DeckArt {
    Random(Box<RandomDeck>),
    Fixture(FixtureDeck),
}

impl DeckArt {
    fn name(&self) -> String {
        match self {
            DeckArt::Random(d) => format!("random-{}", d.seed),
            DeckArt::Fixture(f) => f.name().to_string(),
        }
    }

    /// The card's art `width` wide, drawn once per deck and width.
    fn card(&self, card: Option<Card>, width: u32) -> RgbImage {
        type Cache = std::sync::Mutex<HashMap<(String, Option<Card>, u32), RgbImage>>;
        static CACHE: std::sync::OnceLock<Cache> = std::sync::OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        let key = (self.name(), card, width);
        if let Some(img) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return img;
        }
        let img = match self {
            DeckArt::Random(d) => d.card(card, width),
            DeckArt::Fixture(f) => f.image_at(card, width),
        };
        if let Ok(mut c) = cache.lock() {
            c.insert(key, img.clone());
        }
        img
    }

    /// The reference faces `deck learn` would be given, in the order of
    /// `kinds()`; `None` for a kind the deck has no face for.
    fn references(&self) -> Vec<Option<RgbImage>> {
        let faces = arbiter_testkit::fixtures::reference_faces(&self.name());
        kinds()
            .into_iter()
            .map(|t| faces.iter().find(|f| f.0 == t).map(|f| f.1.clone()))
            .collect()
    }

    fn has_yellow(&self) -> bool {
        match self {
            DeckArt::Random(_) => true,
            DeckArt::Fixture(f) => f.has_yellow(),
        }
    }
}

/// The families a frame is drawn from, by name: surfaces, then lights.
const SURFACES: [&str; 19] = [
    "plain",
    "noise",
    "plaid",
    "stripes",
    "grain",
    "tiles",
    "dots",
    "mixture",
    "felt",
    "white",
    "cream",
    "grey-slate",
    "black-slate",
    "gingham",
    "cloth-stripes",
    "light-wood",
    "dark-wood",
    "linen",
    // Real tables (`--textures`), in train and val only.
    "real",
];
/// The training families of surfaces, and the held-out ones.
const TRAIN_SURFACES: std::ops::Range<usize> = 0..15;
const HELD_SURFACES: std::ops::Range<usize> = 15..18;
/// The share of train and val frames (and teaching photos) on a real
/// table, when `--textures` gives some.
const REAL_SHARE: f64 = 0.3;

/// Real tables' card-free regions (`--textures DIR`, written by
/// tools/real-photos/textures.py), each with the width in its pixels of a
/// card lying on it.
static REAL_TABLES: std::sync::OnceLock<Vec<(RgbImage, f32)>> = std::sync::OnceLock::new();

fn load_real_tables(dir: &Path) -> Vec<(RgbImage, f32)> {
    let index = dir.join("textures.json");
    let text = std::fs::read_to_string(&index).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (made by tools/real-photos/textures.py)",
            index.display()
        )
    });
    let entries: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", index.display()));
    entries
        .iter()
        .map(|(name, v)| {
            let width = v["card_width"]
                .as_f64()
                .unwrap_or_else(|| panic!("{}: {name} has no card_width", index.display()));
            let path = dir.join(name);
            let img = image::open(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
                .to_rgb8();
            (img, width as f32)
        })
        .collect()
}

/// Whether this frame's table is a real one: only when `--textures` gave
/// some (so that a run without them draws what it drew before).
fn on_real_table(split: Split, r: &mut StdRng) -> bool {
    split != Split::Heldout
        && REAL_TABLES.get().is_some_and(|t| !t.is_empty())
        && r.random_bool(REAL_SHARE)
}

/// A real table at `card_px` to a card: one of the textures scaled so its
/// cards would be `card_px` wide, turned a random quarter, and mirrored
/// into a 2×2 tile, whose wrap (the renderer tiles the plane) has no seam.
fn real_table(card_px: f32, r: &mut StdRng) -> RgbImage {
    let tables = REAL_TABLES.get().map(Vec::as_slice).unwrap_or_default();
    let Some((img, card_w)) =
        (!tables.is_empty()).then(|| &tables[r.random_range(0..tables.len())])
    else {
        return RgbImage::from_pixel(4, 4, image::Rgb([70, 72, 74]));
    };
    let side = ((img.width() as f32 * card_px / card_w).round() as u32).clamp(8, 2048);
    let mut t = image::imageops::resize(img, side, side, image::imageops::FilterType::Triangle);
    for _ in 0..r.random_range(0..4) {
        t = image::imageops::rotate90(&t);
    }
    let mut tile = RgbImage::new(2 * side, 2 * side);
    let flipped_h = image::imageops::flip_horizontal(&t);
    image::imageops::replace(&mut tile, &t, 0, 0);
    image::imageops::replace(&mut tile, &flipped_h, side as i64, 0);
    image::imageops::replace(
        &mut tile,
        &image::imageops::flip_vertical(&t),
        0,
        side as i64,
    );
    image::imageops::replace(
        &mut tile,
        &image::imageops::flip_vertical(&flipped_h),
        side as i64,
        side as i64,
    );
    tile
}
const LIGHTS: [&str; 9] = [
    "even",
    "gradient",
    "glare",
    "cool",
    "mild-warm",
    "dim",
    "bright",
    "tint",
    "warm",
];

fn index(of: &[&str], name: &str) -> f32 {
    of.iter().position(|n| *n == name).unwrap_or(0) as f32
}

struct Sample {
    patch: Vec<u8>,
    label: i16,
    /// The card's kind whatever the glare (-1 not a card): what a
    /// glare-blank card would have to be named.
    kind: i16,
    deck: i32,
    meta: [f32; 8],
}

fn pick<T: Copy>(r: &mut StdRng, of: &[T]) -> T {
    of[r.random_range(0..of.len())]
}

/// A card-sized outline moved as a finder might leave it: each corner up to
/// `off` of the card's width, the whole a little shifted and scaled.
fn perturbed(q: &[(f32, f32); 4], off: f32, r: &mut StdRng) -> [(f32, f32); 4] {
    let w =
        ((q[1].0 - q[0].0).hypot(q[1].1 - q[0].1) + (q[2].0 - q[3].0).hypot(q[2].1 - q[3].1)) / 2.0;
    let c = (
        q.iter().map(|p| p.0).sum::<f32>() / 4.0,
        q.iter().map(|p| p.1).sum::<f32>() / 4.0,
    );
    let k = 1.0 + r.random_range(-off..=off) * 0.5;
    let shift = (
        r.random_range(-off..=off) * 0.5 * w,
        r.random_range(-off..=off) * 0.5 * w,
    );
    q.map(|p| {
        let j = (
            r.random_range(-off..=off) * 0.5 * w,
            r.random_range(-off..=off) * 0.5 * w,
        );
        (
            c.0 + (p.0 - c.0) * k + shift.0 + j.0,
            c.1 + (p.1 - c.1) * k + shift.1 + j.1,
        )
    })
}

fn max_off(a: &[(f32, f32); 4], b: &[(f32, f32); 4]) -> f32 {
    let w = (a[1].0 - a[0].0).hypot(a[1].1 - a[0].1).max(1.0);
    a.iter()
        .zip(b)
        .map(|(p, q)| (p.0 - q.0).hypot(p.1 - q.1))
        .fold(0.0, f32::max)
        / w
}

fn inside(q: &[(f32, f32); 4], w: u32, h: u32) -> bool {
    q.iter()
        .all(|p| p.0 >= 1.0 && p.1 >= 1.0 && p.0 <= w as f32 - 2.0 && p.1 <= h as f32 - 2.0)
}

/// A card in a plastic sleeve: a glossy veil over it and a clear rim.
fn sleeved(img: RgbImage, r: &mut StdRng) -> RgbImage {
    let veil = r.random_range(0.03..0.12);
    let rim = r.random_range(0.02..0.05);
    let (w, h) = img.dimensions();
    let edge = (rim * w as f32).max(1.0);
    let tint: [f32; 3] = [0; 3].map(|_| r.random_range(150.0..255.0));
    RgbImage::from_fn(w, h, |x, y| {
        let p = img.get_pixel(x, y).0.map(f32::from);
        let d = (x as f32)
            .min(y as f32)
            .min((w - 1 - x) as f32)
            .min((h - 1 - y) as f32);
        let t = if d < edge { 0.5 } else { veil };
        image::Rgb(std::array::from_fn(|k| {
            (p[k] * (1.0 - t) + tint[k] * t).round() as u8
        }))
    })
}

/// The table of the family `surface_name` for cards `card_px` wide: a
/// procedural texture (returned), or one of the renderer's cloths and
/// woods (set in `look`, a placeholder returned).
fn table_surface(surface_name: &str, card_px: f32, look: &mut Look, r: &mut StdRng) -> RgbImage {
    match surface_name {
        "plain" | "noise" | "plaid" | "stripes" | "grain" | "tiles" | "dots" | "mixture" => {
            let fam = TextureFamily::ALL[index(&SURFACES, surface_name) as usize];
            texture(fam, card_px, 384, r.random())
        }
        "real" => real_table(card_px, r),
        name => {
            let kind = match name {
                "felt" => SurfaceKind::Felt,
                "white" => SurfaceKind::White,
                "cream" => SurfaceKind::Cream,
                "grey-slate" => SurfaceKind::GreySlate,
                "black-slate" => SurfaceKind::BlackSlate,
                "gingham" => SurfaceKind::Gingham,
                "cloth-stripes" => SurfaceKind::Stripes,
                "light-wood" => SurfaceKind::LightWood,
                "dark-wood" => SurfaceKind::DarkWood,
                _ => SurfaceKind::Linen,
            };
            look.surface = Some(Surface::random(kind, card_px, r.random()));
            RgbImage::new(4, 4)
        }
    }
}

/// One frame's samples.
fn frame(split: Split, seed: u64, deck: &DeckArt, deck_id: i32) -> Vec<Sample> {
    let mut r = StdRng::seed_from_u64(seed);
    // The layout.
    // Card width in the frame: small and middling most often; large cards
    // in small layouts, so that a frame stays small.
    let card_px = (r.random_range(38f32.ln()..300f32.ln())).exp();
    let most = if card_px > 150.0 { 2 } else { 3 };
    let (cols, rows) = (r.random_range(1..=most), r.random_range(2..=most.max(2)));
    let mut table = Table::default();
    let mut colours = vec![Colour::White, Colour::Black, Colour::Red, Colour::Blue];
    if deck.has_yellow() {
        colours.push(Colour::Yellow);
    }
    for row in 0..rows {
        for col in 0..cols {
            if r.random_bool(0.15) {
                continue;
            }
            let token = if r.random_bool(0.22) {
                Token::Down
            } else {
                Token::Up(Card::new(pick(&mut r, &colours), pick(&mut r, &Piece::ALL)))
            };
            table.set(Cell::new(col, row), Some(token));
        }
    }
    if table.cells().is_empty() {
        table.set(Cell::new(0, 0), Some(Token::Down));
    }
    let gap = if r.random_bool(0.25) {
        0.0
    } else {
        r.random_range(0.02..0.5)
    };
    // The frame holds the layout's middle; cards it cuts are left out.
    let span = (cols.max(rows) as f32 + 0.3) * card_px * 1.4 * (1.0 + gap);
    let side = span.clamp(128.0, 720.0) as u32;
    let (width, height) = if r.random_bool(0.5) {
        (side, (side as f32 * r.random_range(0.6..1.0)) as u32)
    } else {
        (side, side)
    };

    // Surface.
    let surface_name = match split {
        Split::Heldout => pick(&mut r, &SURFACES[HELD_SURFACES]),
        _ if on_real_table(split, &mut r) => "real",
        _ => pick(&mut r, &SURFACES[TRAIN_SURFACES]),
    };
    let mut look = Look {
        gap_fraction: Some(gap),
        half_turns: true,
        card_relief: r.random_range(0.3..1.0),
        ..Look::default()
    };
    let tex = table_surface(surface_name, card_px, &mut look, &mut r);

    // Light.
    let light = match split {
        Split::Heldout if r.random_bool(0.5) => "warm",
        // Glare twice as often as the others: its washed-out cards are
        // what the network must learn to leave unnamed.
        _ if r.random_bool(0.12) => "glare",
        _ => pick(&mut r, &LIGHTS[..8]),
    };
    let mut p = SceneParams {
        width,
        height,
        pitch_px: card_px,
        layout_rotation_deg: r.random_range(0.0..360.0),
        per_card_skew_deg: r.random_range(0.0..8.0),
        quarter_turns: r.random_bool(0.15),
        gap_jitter_px: if gap > 0.0 {
            card_px * r.random_range(0.0..0.04)
        } else {
            0.0
        },
        tilt_deg: r.random_range(0.0..35.0),
        light_gradient: r.random_range(0.0..0.15),
        blur_sigma: r.random_range(0.0..1.2),
        noise_sigma: r.random_range(0.5..4.0),
        seed: r.random(),
        ..SceneParams::clean()
    };
    let mut tint = [1.0f32; 3];
    match light {
        "gradient" => {
            p.light_gradient = r.random_range(0.3..0.6);
            p.shadow = r.random_range(0.2..0.5);
            look.vignette = r.random_range(0.1..0.4);
        }
        "glare" => {
            look.glare = Some(Glare {
                at: (r.random_range(0.1..0.9), r.random_range(0.1..0.9)),
                radius: r.random_range(0.08..0.35),
                strength: r.random_range(0.3..1.6),
            })
        }
        "cool" => {
            look.white_balance = -r.random_range(0.3..1.0);
            look.exposure = Some(r.random_range(0.9..1.1));
        }
        "mild-warm" => {
            look.white_balance = r.random_range(0.0..0.35);
            look.exposure = Some(r.random_range(0.85..1.05));
        }
        "warm" => {
            look.white_balance = r.random_range(0.5..1.0);
            look.exposure = Some(r.random_range(0.85..1.0));
            p.light_gradient = r.random_range(0.1..0.3);
        }
        "dim" => {
            look.exposure = Some(r.random_range(0.4..0.7));
            p.noise_sigma = r.random_range(4.0..10.0);
            p.blur_sigma = r.random_range(0.5..1.6);
            p.light_gradient = r.random_range(0.1..0.4);
        }
        "bright" => look.exposure = Some(r.random_range(1.05..1.3)),
        "tint" => {
            let m = r.random_range(-0.8f32..0.8);
            tint = [1.0 - 0.1 * m, 1.0 + 0.15 * m, 1.0 - 0.1 * m];
        }
        _ => {}
    }
    // Lens.
    if r.random_bool(0.4) {
        look.barrel_k1 = r.random_range(0.02..0.2);
    }
    // A hand now and then: the cards it touches are left out.
    if r.random_bool(0.2) {
        p.hand = Some(HandParams {
            reach: r.random_range(0.0..0.8),
            from_deg: Some(r.random_range(0.0..360.0)),
            size: r.random_range(0.85..1.2),
        });
        look.occluder = Some(OccluderLook {
            skin: pick(&mut r, &SKIN_TONES),
            sleeve: r.random_bool(0.4).then(|| Sleeve {
                colour: [0; 3].map(|_| r.random_range(15..235u8)),
                cuff: r.random_range(0.7..2.5),
                glove: r.random_bool(0.2),
            }),
        });
    }
    p.look = look;
    let jpeg = r.random_range(50..=95u8);
    let sleeves = r.random_bool(0.15);
    let art_width = if card_px > 120.0 { 256 } else { 160 };
    let mut cache: HashMap<Option<Card>, RgbImage> = HashMap::new();
    let mut sleeve_rng = StdRng::seed_from_u64(seed ^ 0x51EE);
    for t in table.cells() {
        let faces: Vec<Option<Card>> = match t.1 {
            Token::Up(c) => vec![Some(c)],
            _ => vec![None],
        };
        for f in faces {
            cache.entry(f).or_insert_with(|| {
                let img = deck.card(f, art_width);
                if sleeves {
                    sleeved(img, &mut sleeve_rng)
                } else {
                    img
                }
            });
        }
    }
    let scene = render(
        &table,
        &p,
        &|c| {
            cache
                .get(&c)
                .cloned()
                .unwrap_or_else(|| deck.card(c, art_width))
        },
        &tex,
    );
    // The tint and the JPEG the camera adds.
    let mut img = scene.image.clone();
    if tint != [1.0; 3] {
        for px in img.pixels_mut() {
            px.0 = std::array::from_fn(|k| {
                (f32::from(px.0[k]) * tint[k]).round().clamp(0.0, 255.0) as u8
            });
        }
    }
    let mut bytes = Vec::new();
    if img
        .write_with_encoder(JpegEncoder::new_with_quality(&mut bytes, jpeg))
        .is_ok()
        && let Ok(decoded) = image::load_from_memory_with_format(&bytes, ImageFormat::Jpeg)
    {
        img = decoded.to_rgb8();
    }

    let all = kinds();
    let mut out = Vec::new();
    let meta = |card_w: f32, washed: f32, clipped: f32, off: f32| {
        [
            card_w,
            washed,
            clipped,
            off,
            index(&SURFACES, surface_name),
            index(&LIGHTS, light),
            p.blur_sigma,
            f32::from(jpeg),
        ]
    };
    let mut push = |q: &[(f32, f32); 4], label: i16, kind: i16, m: [f32; 8], r: &mut StdRng| {
        if !inside(q, width, height) {
            return;
        }
        // Either way up, as a finder's outline comes.
        let q = if r.random_bool(0.5) {
            [q[2], q[3], q[0], q[1]]
        } else {
            *q
        };
        if let Some(patch) = Patch::from_frame(&img, &Quad(q)) {
            out.push(Sample {
                patch: patch.0,
                label,
                kind,
                deck: deck_id,
                meta: m,
            });
        }
    };
    let centres: Vec<(f32, f32)> = scene.truth.iter().map(|t| t.centre_px).collect();
    let mut card_w = card_px;
    for t in &scene.truth {
        if t.visible < 0.99 || matches!(t.token, Token::Pair(..)) {
            continue;
        }
        let q = t.corners_px;
        card_w = (q[1].0 - q[0].0).hypot(q[1].1 - q[0].1);
        let kind = all
            .iter()
            .position(|k| *k == t.token)
            .map_or(-1, |i| i as i16);
        let label = if t.print_washed >= GLARE_BLANK {
            -2
        } else {
            kind
        };
        let m = meta(card_w, t.print_washed, t.glare_clipped, 0.0);
        push(&q, label, kind, m, &mut r);
        for _ in 0..3 {
            let off = r.random_range(0.0..0.1);
            let moved = perturbed(&q, off, &mut r);
            let m = meta(card_w, t.print_washed, t.glare_clipped, max_off(&q, &moved));
            push(&moved, label, kind, m, &mut r);
        }
    }
    // Outlines that hold no card: card-sized, anywhere, far from every
    // card's centre (between 0.15 and 0.4 of a width off is neither).
    for _ in 0..6 {
        let c = (
            r.random_range(0.0..width as f32),
            r.random_range(0.0..height as f32),
        );
        let near = centres
            .iter()
            .map(|k| (k.0 - c.0).hypot(k.1 - c.1))
            .fold(f32::INFINITY, f32::min);
        if near < 0.45 * card_w {
            continue;
        }
        let w = card_w * r.random_range(0.8..1.2);
        let h = w * 88.0 / 63.0;
        let a: f32 = r.random_range(0.0..std::f32::consts::TAU);
        let (s, co) = a.sin_cos();
        let corner = |dx: f32, dy: f32| (c.0 + dx * co - dy * s, c.1 + dx * s + dy * co);
        let q = [
            corner(-w / 2.0, -h / 2.0),
            corner(w / 2.0, -h / 2.0),
            corner(w / 2.0, h / 2.0),
            corner(-w / 2.0, h / 2.0),
        ];
        push(&q, -1, -1, meta(card_w, 0.0, 0.0, 1.0), &mut r);
    }
    out
}

/// `count` patches, spread over the split, as PNGs for the tests:
/// `ROOT/<deck>/NNN-<truth>.png`, the truth a token, `not-a-card` or
/// `glare-blank`.
fn write_pngs(root: &Path, count: usize, samples: &[Sample], decks: &[DeckArt]) {
    let all = kinds();
    let step = (samples.len() / count.max(1)).max(1);
    for (n, s) in samples.iter().step_by(step).take(count).enumerate() {
        let dir = root.join(decks[s.deck as usize].name());
        std::fs::create_dir_all(&dir).expect("the PNG folder");
        let truth = match s.label {
            -1 => "not-a-card".to_string(),
            -2 => "glare-blank".to_string(),
            k => match all[k as usize] {
                Token::Down => "back".to_string(),
                t => t.to_string(),
            },
        };
        let img = Patch(s.patch.clone()).image();
        img.save(dir.join(format!("{n:03}-{truth}.png")))
            .expect("a PNG");
    }
}

/// The reference face of `card` as a player teaches it (`deck learn
/// --faces`, one phone photo a card): the card alone, 180–320 px wide, on
/// a table of the split's families, under an ordinary room's light (no
/// lamp's glare, nor a dim room: a player takes the photo again), a
/// little blurred, JPEG-compressed, and straightened at its outline moved
/// up to 2% of its width (the finder of `deck learn`).
fn teaching_photo(split: Split, seed: u64, deck: &DeckArt, card: Option<Card>) -> Vec<u8> {
    let mut r = StdRng::seed_from_u64(seed);
    let card_px = r.random_range(180.0f32..320.0);
    let width = (card_px * r.random_range(1.4f32..1.9)) as u32;
    let height = (card_px * 1.4 * r.random_range(1.25f32..1.6)) as u32;
    let surface_name = match split {
        Split::Heldout => pick(&mut r, &SURFACES[HELD_SURFACES]),
        _ if on_real_table(split, &mut r) => "real",
        _ => pick(&mut r, &SURFACES[TRAIN_SURFACES]),
    };
    let mut look = Look::default();
    let tex = table_surface(surface_name, card_px, &mut look, &mut r);
    look.white_balance = match split {
        Split::Heldout => r.random_range(-0.3..1.0),
        _ => r.random_range(-0.6..0.35),
    };
    look.exposure = Some(r.random_range(0.8..1.15));
    look.vignette = r.random_range(0.0..0.3);
    look.card_relief = r.random_range(0.3..1.0);
    look.half_turns = true;
    let p = SceneParams {
        width,
        height,
        pitch_px: card_px,
        layout_rotation_deg: r.random_range(-12.0..12.0),
        tilt_deg: r.random_range(0.0..20.0),
        light_gradient: r.random_range(0.0..0.3),
        shadow: r.random_range(0.0..0.3),
        blur_sigma: r.random_range(0.0..1.5),
        noise_sigma: r.random_range(0.5..4.0),
        seed: r.random(),
        look,
        ..SceneParams::clean()
    };
    let token = card.map_or(Token::Down, Token::Up);
    let mut table = Table::default();
    table.set(Cell::new(0, 0), Some(token));
    let art = deck.card(card, 256);
    let scene = render(&table, &p, &|_| art.clone(), &tex);
    let mut img = scene.image;
    let mut bytes = Vec::new();
    if img
        .write_with_encoder(JpegEncoder::new_with_quality(
            &mut bytes,
            r.random_range(70..=95u8),
        ))
        .is_ok()
        && let Ok(decoded) = image::load_from_memory_with_format(&bytes, ImageFormat::Jpeg)
    {
        img = decoded.to_rgb8();
    }
    let patch = scene.truth.first().and_then(|t| {
        let q = perturbed(&t.corners_px, 0.02, &mut r);
        // The way up the card was drawn, as `deck learn` straightens it.
        Patch::from_frame(&img, &Quad(q))
    });
    patch.map_or_else(|| Patch::from_face(&art).0, |p| p.0)
}

/// `make(0..n)` on `threads` workers, job `j` on worker `j % threads`,
/// the results in the jobs' order (so a run's output does not depend on
/// how many cores made it).
fn in_parallel<T: Send>(n: usize, threads: usize, make: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let make = &make;
    let mut done: Vec<(usize, T)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|w| {
                s.spawn(move || {
                    (w..n)
                        .step_by(threads)
                        .map(|j| (j, make(j)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|h| h.join().expect("a worker"))
            .collect()
    });
    done.sort_by_key(|d| d.0);
    done.into_iter().map(|d| d.1).collect()
}

fn npy(path: &Path, dtype: &str, shape: &[usize], bytes: &[u8]) -> std::io::Result<()> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape_text = if dims.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    };
    let mut header =
        format!("{{'descr': '{dtype}', 'fortran_order': False, 'shape': {shape_text}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    f.write_all(b"\x93NUMPY\x01\x00")?;
    f.write_all(&(header.len() as u16).to_le_bytes())?;
    f.write_all(header.as_bytes())?;
    f.write_all(bytes)?;
    f.flush()
}

fn main() {
    let mut out = PathBuf::from("target/identifier-data");
    let mut split = Split::Train;
    let mut frames = 1000usize;
    // The first frame's number: frames FIRST.. of a larger run, for making
    // a run in parts (a frame and its deck depend only on the seed and the
    // frame's number).
    let mut first = 0usize;
    let mut seed = 1u64;
    let mut png: Option<(PathBuf, usize)> = None;
    // Only the references (`photo_refs.npy` among them), for a run whose
    // frames were made before.
    let mut refs_only = false;
    // Teaching photos for the first N decks only (each is a render).
    let mut photo_decks = usize::MAX;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--out" => out = PathBuf::from(value()),
            "--frames" => frames = value().parse().expect("--frames N"),
            "--first" => first = value().parse().expect("--first N"),
            "--seed" => seed = value().parse().expect("--seed S"),
            "--png" => png = Some((PathBuf::from(value()), 0)),
            "--refs-only" => refs_only = true,
            "--photo-decks" => photo_decks = value().parse().expect("--photo-decks N"),
            "--textures" => {
                let tables = load_real_tables(Path::new(&value()));
                eprintln!("{} real tables", tables.len());
                let _ = REAL_TABLES.set(tables);
            }
            "--png-count" => {
                let n = value().parse().expect("--png-count N");
                png = png.map(|(d, _)| (d, n));
            }
            "--split" => {
                split = match value().as_str() {
                    "train" => Split::Train,
                    "val" => Split::Val,
                    "heldout" => Split::Heldout,
                    s => panic!("--split train|val|heldout, not {s}"),
                }
            }
            _ => panic!("unknown argument {a}"),
        }
    }
    let name = format!("{split:?}").to_lowercase();
    let dir = out.join(&name);
    std::fs::create_dir_all(&dir).expect("the output folder");

    // The decks: a new one every few frames.
    let per_deck = 8;
    let n_decks = (first + frames).div_ceil(per_deck);
    let base = match split {
        Split::Train => 1_000_000,
        Split::Val => 2_000_000,
        Split::Heldout => 3_000_000,
    } + seed * 100_000;
    let decks: Vec<DeckArt> = (0..n_decks)
        .map(|k| {
            let mut r = StdRng::seed_from_u64(base + k as u64);
            match split {
                Split::Heldout if r.random_bool(0.6) => DeckArt::Fixture(pick(
                    &mut r,
                    &[
                        FixtureDeck::StandIn,
                        FixtureDeck::Letters,
                        FixtureDeck::Silhouette,
                        FixtureDeck::Outline,
                    ],
                )),
                Split::Train | Split::Val if r.random_bool(0.12) => {
                    DeckArt::Fixture(FixtureDeck::Printed)
                }
                _ => DeckArt::Random(Box::new(RandomDeck::new(base + k as u64))),
            }
        })
        .collect();

    let clock = std::time::Instant::now();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let made = first..first + if refs_only { 0 } else { frames };
    let samples: Vec<Sample> = in_parallel(made.len(), threads, |j| {
        let i = first + j;
        let d = i / per_deck;
        frame(
            split,
            base ^ (i as u64).wrapping_mul(0x9E37_79B9),
            &decks[d],
            d as i32,
        )
    })
    .into_iter()
    .flatten()
    .collect();
    let n = samples.len();
    let px = PATCH_W * PATCH_H * 3;
    let mut x = Vec::with_capacity(n * px);
    let (mut y, mut kind, mut deck, mut meta) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for s in &samples {
        x.extend_from_slice(&s.patch);
        y.extend_from_slice(&s.label.to_le_bytes());
        kind.extend_from_slice(&s.kind.to_le_bytes());
        deck.extend_from_slice(&s.deck.to_le_bytes());
        for m in s.meta {
            meta.extend_from_slice(&m.to_le_bytes());
        }
    }
    if !refs_only {
        npy(&dir.join("x.npy"), "|u1", &[n, PATCH_H, PATCH_W, 3], &x).expect("x.npy");
        npy(&dir.join("y.npy"), "<i2", &[n], &y).expect("y.npy");
        npy(&dir.join("kind.npy"), "<i2", &[n], &kind).expect("kind.npy");
        npy(&dir.join("deck.npy"), "<i4", &[n], &deck).expect("deck.npy");
        npy(&dir.join("meta.npy"), "<f4", &[n, 8], &meta).expect("meta.npy");
    }
    // The references.
    let nk = kinds().len();
    let (mut refs, mut mask) = (Vec::with_capacity(decks.len() * nk * px), Vec::new());
    for d in &decks {
        for face in d.references() {
            match face {
                Some(img) => {
                    refs.extend_from_slice(&Patch::from_face(&img).0);
                    mask.push(1u8);
                }
                None => {
                    refs.extend(std::iter::repeat_n(0u8, px));
                    mask.push(0);
                }
            }
        }
    }
    npy(
        &dir.join("refs.npy"),
        "|u1",
        &[decks.len(), nk, PATCH_H, PATCH_W, 3],
        &refs,
    )
    .expect("refs.npy");
    npy(&dir.join("refmask.npy"), "|u1", &[decks.len(), nk], &mask).expect("refmask.npy");
    // The references as players teach them: one photo a card, rendered
    // apart from the frames (a seed of their own), in parallel.
    let photo_seed = base ^ 0x7EAC_4000_0000;
    let kinds_all = kinds();
    let photo_decks = decks.len().min(photo_decks);
    let jobs: Vec<(usize, usize)> = (0..photo_decks)
        .flat_map(|d| (0..nk).map(move |k| (d, k)))
        .collect();
    let photo_refs: Vec<u8> = in_parallel(jobs.len(), threads, |i| {
        let (d, k) = jobs[i];
        let card = match kinds_all[k] {
            Token::Up(c) => Some(c),
            _ => None,
        };
        if mask[i] == 1 {
            teaching_photo(split, photo_seed ^ i as u64, &decks[d], card)
        } else {
            vec![0u8; px]
        }
    })
    .concat();
    npy(
        &dir.join("photo_refs.npy"),
        "|u1",
        &[photo_decks, nk, PATCH_H, PATCH_W, 3],
        &photo_refs,
    )
    .expect("photo_refs.npy");
    let names: String = decks.iter().map(|d| d.name() + "\n").collect();
    std::fs::write(dir.join("decks.txt"), names).expect("decks.txt");
    std::fs::write(
        dir.join("families.txt"),
        format!(
            "surfaces: {}\nlights: {}\n",
            SURFACES.join(" "),
            LIGHTS.join(" ")
        ),
    )
    .expect("families.txt");
    if let Some((root, count)) = &png {
        write_pngs(root, *count, &samples, &decks);
    }
    let labels = |l: i16| samples.iter().filter(|s| s.label == l).count();
    eprintln!(
        "{name}: {n} patches from {frames} frames and {} decks in {:.0} s ({} not a card, {} glare-blank)",
        decks.len(),
        clock.elapsed().as_secs_f64(),
        labels(-1),
        labels(-2)
    );
}
