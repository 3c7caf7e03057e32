//! The learned identifier: names a card's outline as one kind of the deck
//! in play, a back, or `??` with a reason.
//!
//! A small convolutional network (trained by `tools/train-identifier` on
//! the project's own renders of many random decks) turns a card's patch
//! — the outline straightened to [`PATCH_W`]×[`PATCH_H`] with a margin of
//! the table about it — into an embedding, and says whether the patch is a
//! card at all and whether a lamp washed its print out. A deck is the
//! embeddings of its reference faces (one image per kind, as `deck learn`
//! takes them), so any deck is read without training: the card is the kind
//! whose reference lies nearest, named when the network is sure by the
//! margins measured on held-out renders ([`Thresholds`]).
//!
//! The network is embedded in the binary (`models/identifier.onnx`, with
//! its figures in `models/identifier.toml`) and runs with tract, a pure
//! Rust inference crate: nothing is downloaded, and no Python runs.

use std::sync::OnceLock;

use image::RgbImage;
use tract_onnx::prelude::*;

use arbiter_core::table::{Card, Colour, Piece, Token};

use super::geometry::{Homography, Quad};

/// A patch's width and height in pixels.
pub const PATCH_W: usize = 32;
pub const PATCH_H: usize = 48;
/// The length of an embedding.
pub const EMBEDDING: usize = 64;
/// Where the card's outline lies in its patch: 28 px wide, centred, the
/// rest the margin (a finder's outline may be a tenth of a card off).
const CARD_LEFT: f32 = 2.0;
const CARD_RIGHT: f32 = 30.0;
const CARD_TOP: f32 = 24.0 - 14.0 * CARD_ASPECT;
const CARD_BOTTOM: f32 = 24.0 + 14.0 * CARD_ASPECT;
/// The grey a reference face's margin is filled with: no table.
const MARGIN_GREY: u8 = 128;
/// A card's height over its width (88 mm × 63 mm).
const CARD_ASPECT: f32 = 88.0 / 63.0;

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
    /// footprint, so that a large card is averaged, not aliased. `None`
    /// for a degenerate outline.
    pub fn from_frame(frame: &RgbImage, quad: &Quad) -> Option<Patch> {
        let h = Homography::square_to(quad)?;
        let (fw, fh) = (frame.width() as usize, frame.height() as usize);
        if fw < 2 || fh < 2 {
            return None;
        }
        let footprint = quad.width() / (CARD_RIGHT - CARD_LEFT);
        let n = footprint.ceil().clamp(1.0, 5.0) as usize;
        let (sw, sh) = (CARD_RIGHT - CARD_LEFT, CARD_BOTTOM - CARD_TOP);
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
                        let su = u as f32 + (i as f32 + 0.5) / n as f32;
                        let sv = v as f32 + (j as f32 + 0.5) / n as f32;
                        let s = ((su - CARD_LEFT) / sw, (sv - CARD_TOP) / sh);
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
    /// edge) as a patch: the face where a card's outline lies, the margin
    /// [`MARGIN_GREY`].
    pub fn from_face(face: &RgbImage) -> Patch {
        let (w, h) = face.dimensions();
        let quad = Quad([
            (0.0, 0.0),
            (w as f32, 0.0),
            (w as f32, h as f32),
            (0.0, h as f32),
        ]);
        let mut inner =
            Patch::from_frame(face, &quad).unwrap_or(Patch(vec![0; PATCH_W * PATCH_H * 3]));
        for v in 0..PATCH_H {
            for u in 0..PATCH_W {
                let (x, y) = (u as f32 + 0.5, v as f32 + 0.5);
                if !(CARD_LEFT..=CARD_RIGHT).contains(&x) || !(CARD_TOP..=CARD_BOTTOM).contains(&y)
                {
                    let i = 3 * (v * PATCH_W + u);
                    inner.0[i..i + 3].fill(MARGIN_GREY);
                }
            }
        }
        inner
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

    /// The patch as an image, to look at.
    pub fn image(&self) -> RgbImage {
        RgbImage::from_raw(PATCH_W as u32, PATCH_H as u32, self.0.clone())
            .unwrap_or_else(|| RgbImage::new(PATCH_W as u32, PATCH_H as u32))
    }
}

/// What the network sees in one patch.
#[derive(Clone, Debug, PartialEq)]
pub struct Seen {
    /// Unit length.
    pub embedding: [f32; EMBEDDING],
    /// Probabilities that the patch is a card with its print showing, not a
    /// card at all (a bare table, a gap, a neighbour's half), or a card
    /// whose print a lamp washed out.
    pub card: f32,
    pub not_card: f32,
    pub glare: f32,
}

/// The naming rule's margins, measured on held-out renders so that none
/// is named wrong (`models/identifier.toml`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// The softmax's scale on cosine similarities, as trained.
    pub scale: f32,
    /// The least probability the nearest kind must have among the deck's.
    pub named: f32,
    /// Above this the patch is not a card; above `glare` its print is
    /// washed out.
    pub not_card: f32,
    pub glare: f32,
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
        scale: get("scale")?,
        named: get("named")?,
        not_card: get("not_card")?,
        glare: get("glare")?,
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

    /// What the network sees in `patch`.
    pub fn see(&self, patch: &Patch) -> Seen {
        let input =
            tract_ndarray::Array4::from_shape_fn((1, 3, PATCH_H, PATCH_W), |(_, c, y, x)| {
                f32::from(patch.0[3 * (y * PATCH_W + x) + c]) / 255.0
            });
        let mut seen = Seen {
            embedding: [0.0; EMBEDDING],
            card: 0.0,
            not_card: 1.0,
            glare: 0.0,
        };
        // The plan was built for exactly this input's shape, so it runs;
        // a failure leaves the patch "not a card", never a guess.
        let Ok(out) = self.plan.run(tvec!(Tensor::from(input).into())) else {
            return seen;
        };
        let values = |t: Option<&TValue>| -> Option<Vec<f32>> {
            let view = t?.to_plain_array_view::<f32>().ok()?;
            Some(view.iter().copied().collect())
        };
        if let (Some(e), Some(k)) = (values(out.first()), values(out.get(1)))
            && e.len() == EMBEDDING
            && k.len() == 3
        {
            seen.embedding.copy_from_slice(&e);
            let m = k.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
            let ex: Vec<f32> = k.iter().map(|v| (v - m).exp()).collect();
            let sum: f32 = ex.iter().sum();
            seen.card = ex[0] / sum;
            seen.not_card = ex[1] / sum;
            seen.glare = ex[2] / sum;
        }
        seen
    }
}

/// Why a card was not named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unnamed {
    /// A lamp washed its print out.
    Glare,
    /// The outline holds no card.
    NotACard,
    /// A card, but no kind of the deck clearly nearest.
    Unsure,
}

/// A card's outline named against a deck.
#[derive(Clone, Debug, PartialEq)]
pub struct Naming {
    /// The kind, when named.
    pub token: Option<Token>,
    /// The nearest kind whatever the margin, and its probability among the
    /// deck's kinds.
    pub nearest: Token,
    pub confidence: f32,
    /// Why not named.
    pub why: Option<Unnamed>,
    pub seen: Seen,
}

/// A deck as the identifier knows it: its kinds' reference embeddings.
#[derive(Clone, Debug)]
pub struct LearnedDeck {
    kinds: Vec<(Token, [f32; EMBEDDING])>,
}

impl LearnedDeck {
    /// The deck whose reference faces are `faces` (one image per kind, a
    /// back as [`Token::Down`]).
    pub fn from_faces(net: &Network, faces: &[(Token, RgbImage)]) -> LearnedDeck {
        LearnedDeck {
            kinds: faces
                .iter()
                .map(|(t, img)| (*t, net.see(&Patch::from_face(img)).embedding))
                .collect(),
        }
    }

    /// Its kinds.
    pub fn tokens(&self) -> impl Iterator<Item = Token> + '_ {
        self.kinds.iter().map(|k| k.0)
    }

    /// Names the card in `patch`.
    pub fn name(&self, net: &Network, patch: &Patch) -> Naming {
        self.judge(net, net.see(patch))
    }

    /// Names what the network saw.
    pub fn judge(&self, net: &Network, seen: Seen) -> Naming {
        let t = net.thresholds;
        let sims: Vec<f32> = self
            .kinds
            .iter()
            .map(|(_, e)| e.iter().zip(&seen.embedding).map(|(a, b)| a * b).sum())
            .collect();
        let m = sims.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        let ex: Vec<f32> = sims.iter().map(|s| ((s - m) * t.scale).exp()).collect();
        let sum: f32 = ex.iter().sum::<f32>().max(1e-12);
        let (best, p) = ex
            .iter()
            .enumerate()
            .map(|(i, e)| (i, e / sum))
            .fold((0, 0.0f32), |a, b| if b.1 > a.1 { b } else { a });
        let nearest = self.kinds.get(best).map_or(Token::Unreadable, |k| k.0);
        let why = if seen.glare >= t.glare {
            Some(Unnamed::Glare)
        } else if seen.not_card >= t.not_card {
            Some(Unnamed::NotACard)
        } else if p < t.named {
            Some(Unnamed::Unsure)
        } else {
            None
        };
        Naming {
            token: why.is_none().then_some(nearest),
            nearest,
            confidence: p,
            why,
            seen,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_of_a_straight_card_puts_the_card_inside_its_margin() {
        // A white card on black, 56 px wide, upright.
        let mut frame = RgbImage::new(200, 200);
        let (x0, y0, w, h) = (50.0f32, 40.0f32, 56.0f32, 56.0 * CARD_ASPECT);
        for (x, y, p) in frame.enumerate_pixels_mut() {
            let inside = (x as f32 + 0.5) > x0
                && (x as f32 + 0.5) < x0 + w
                && (y as f32 + 0.5) > y0
                && (y as f32 + 0.5) < y0 + h;
            *p = image::Rgb(if inside { [255; 3] } else { [0; 3] });
        }
        let quad = Quad([(x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h)]);
        let patch = Patch::from_frame(&frame, &quad).unwrap();
        let at = |u: usize, v: usize| patch.0[3 * (v * PATCH_W + u)];
        assert_eq!(at(16, 24), 255, "the middle is the card");
        assert_eq!(at(0, 24), 0, "the side margin is the table");
        assert_eq!(at(16, 1), 0, "the top margin is the table");
        assert_eq!(at(3, 6), 255, "just inside the corner is the card");
        assert_eq!(patch.turned().turned(), patch);
    }
}
