//! A camera calibration: the lattice of one well-laid-out frame, kept so
//! that later frames use the same cells.
//!
//! Without a calibration every frame fits its own lattice ([`lattice::fit`]),
//! so the cells are only known up to a quarter turn and a shift, and a
//! steep camera leaves too little of each card's shape to measure. A
//! calibration fixes the homography once, on a whole layout: its cells stay
//! put from frame to frame (they may go negative as the board grows), and
//! cameras steeper than 30° work.
//!
//! The file is TOML, written by [`Calibration::to_toml`] with comments so
//! that a person can read and check it.

use std::io;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::cards::Detected;
use crate::lattice::{self, Lattice, PLACE_TOLERANCE, Placement};
use arbiter_core::toml_text::{self, LineIndex, TomlError};

/// Fewest cards, in at least two rows and two columns, to calibrate on.
pub const MIN_CARDS: usize = 4;
/// Median distance from the lattice points, in cells, beyond which the
/// cards no longer sit on the calibration's lattice.
pub const STALE_RESIDUAL: f32 = 0.2;
/// Relative change of the median card width beyond which the camera has
/// moved nearer or farther.
pub const STALE_SIZE: f32 = 0.25;

const ADVICE: &str = "lay out at least 4 cards in 2 rows and 2 columns";

#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// Frame width and height it was made for.
    pub image_size: (u32, u32),
    pub lattice: Lattice,
    /// Median card width (the short side) in pixels at calibration.
    pub card_px: f32,
    /// Where it came from (a file, a device), for people.
    pub source: String,
}

/// A problem with a calibration file, located: `FILE:LINE: message`, or
/// `FILE: message` when it has no single line.
pub type CalibrationError = TomlError;

/// Why a calibration no longer fits what the camera shows.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the calibration no longer fits: {reason}")]
pub struct Stale {
    pub reason: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    source: Spanned<String>,
    image_size: Spanned<[u32; 2]>,
    card_px: Spanned<f32>,
    cell_to_image: Spanned<[[f64; 3]; 3]>,
}

/// Why a frame gives no calibration: what the players should lay out
/// differently.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FitError {
    #[error("the frame is {0}x{1}: nothing to calibrate on")]
    EmptyFrame(u32, u32),
    #[error("no card seen: {ADVICE}")]
    NoCard,
    #[error("only {0} card{s} seen: {ADVICE}", s = if *.0 == 1 { "" } else { "s" })]
    TooFew(usize),
    #[error("only {on_grid} of {seen} cards sit on a grid: {ADVICE}")]
    OffGrid { on_grid: usize, seen: usize },
    #[error("the {0} cards lie in one line, which leaves the other direction unknown: {ADVICE}")]
    OneLine(usize),
    #[error(
        "the cards do not sit on a clear grid (centres {0:.2} cells off, in the median): straighten them"
    )]
    Crooked(f32),
}

impl Calibration {
    /// From one frame's detections (a table laid out on the felt).
    pub fn from_detections(
        dets: &[Detected],
        image_size: (u32, u32),
        source: &str,
    ) -> Result<Calibration, FitError> {
        if image_size.0 == 0 || image_size.1 == 0 {
            return Err(FitError::EmptyFrame(image_size.0, image_size.1));
        }
        let Some(placement) = lattice::fit(dets) else {
            return Err(FitError::NoCard);
        };
        let n = placement.cells.len();
        if n < MIN_CARDS {
            return Err(if dets.len() == n {
                FitError::TooFew(n)
            } else {
                FitError::OffGrid {
                    on_grid: n,
                    seen: dets.len(),
                }
            });
        }
        if collinear(&placement) {
            return Err(FitError::OneLine(n));
        }
        if placement.residual > STALE_RESIDUAL / 2.0 {
            return Err(FitError::Crooked(placement.residual));
        }
        let mut widths: Vec<f32> = placement
            .cells
            .iter()
            .map(|(_, i)| card_width(&dets[*i]))
            .collect();
        widths.sort_by(f32::total_cmp);
        Ok(Calibration {
            image_size,
            lattice: placement.lattice,
            card_px: widths[widths.len() / 2],
            source: source.to_string(),
        })
    }

    /// Places a frame's detections on the calibration's cells.
    pub fn place(&self, dets: &[Detected]) -> Placement {
        lattice::place(&self.lattice, dets)
    }

    /// Commented, human-readable TOML; [`Calibration::parse`] reads it
    /// back exactly.
    pub fn to_toml(&self) -> String {
        let h = &self.lattice.cell_to_image;
        let row = |r: [f64; 3]| format!("  [{:?}, {:?}, {:?}],", r[0], r[1], r[2]);
        let corner = |c: (f64, f64)| {
            let p = self.lattice.to_image(c);
            format!("({:.0}, {:.0})", p.0, p.1)
        };
        let source = toml::Value::from(self.source.as_str()).to_string();
        format!(
            "# Arbiter camera calibration: where the table's cells lie in the frame.\n\
             # Recalibrate when the camera, its zoom or the table moves.\n\
             \n\
             # Where it was made.\n\
             source = {source}\n\
             \n\
             # Frame width and height, pixels.\n\
             image_size = [{}, {}]\n\
             \n\
             # Median card width (the short side) at calibration, pixels.\n\
             card_px = {:?}\n\
             \n\
             # Homography from a cell (col, row) to a frame pixel (x, y):\n\
             # [x*w, y*w, w] = cell_to_image * [col, row, 1]. Cell centres are at\n\
             # whole numbers; columns grow to the right, rows downward.\n\
             # Cell (0, 0) is at pixel {}, cell (1, 0) at {}, cell (0, 1) at {}.\n\
             cell_to_image = [\n{}\n{}\n{}\n]\n",
            self.image_size.0,
            self.image_size.1,
            self.card_px,
            corner((0.0, 0.0)),
            corner((1.0, 0.0)),
            corner((0.0, 1.0)),
            row(h[0]),
            row(h[1]),
            row(h[2]),
        )
    }

    pub fn parse(file: &str, text: &str) -> Result<Calibration, CalibrationError> {
        let raw: Raw = toml_text::parse(file, text)?;
        let lines = LineIndex::new(text);
        let err = |line: usize, message: String| CalibrationError::new(file, line, message);
        let line_of = |span: std::ops::Range<usize>| lines.line_of(span.start);

        let [w, h] = *raw.image_size.get_ref();
        if w == 0 || h == 0 {
            return Err(err(
                line_of(raw.image_size.span()),
                format!("image_size [{w}, {h}] must be positive"),
            ));
        }
        let card_px = *raw.card_px.get_ref();
        if !(card_px.is_finite() && card_px > 0.0) {
            return Err(err(
                line_of(raw.card_px.span()),
                format!("card_px {card_px} must be a positive number of pixels"),
            ));
        }
        let m = *raw.cell_to_image.get_ref();
        let matrix_line = line_of(raw.cell_to_image.span());
        if m.iter().flatten().any(|v| !v.is_finite()) {
            return Err(err(
                matrix_line,
                "cell_to_image holds a non-finite number".into(),
            ));
        }
        if lattice::invert(&m).is_none() {
            return Err(err(
                matrix_line,
                "cell_to_image is singular: it does not map cells onto a plane".into(),
            ));
        }
        let lat = Lattice { cell_to_image: m };
        let centre = ((w - 1) as f32 / 2.0, (h - 1) as f32 / 2.0);
        if lat.to_cell(centre).is_none() {
            return Err(err(
                matrix_line,
                "cell_to_image puts the table behind the camera at the frame centre".into(),
            ));
        }
        Ok(Calibration {
            image_size: (w, h),
            lattice: lat,
            card_px,
            source: raw.source.into_inner(),
        })
    }

    pub fn load(path: &Path) -> Result<Calibration, CalibrationError> {
        let text = toml_text::read(path, "calibration")?;
        Calibration::parse(&path.display().to_string(), &text)
    }

    pub fn save(&self, path: &Path) -> io::Result<()> {
        std::fs::write(path, self.to_toml())
    }

    /// Whether this calibration still fits what the frame shows.
    pub fn check(&self, dets: &[Detected], image_size: (u32, u32)) -> Result<(), Stale> {
        if image_size != self.image_size {
            return Err(Stale {
                reason: format!(
                    "the frame is {}x{}, the calibration was made for {}x{}",
                    image_size.0, image_size.1, self.image_size.0, self.image_size.1
                ),
            });
        }
        // Every card-sized detection counts, not only those placed: after
        // the camera moves, many cards sit on no cell at all.
        let mut widths: Vec<f32> = dets.iter().map(card_width).collect();
        widths.sort_by(f32::total_cmp);
        let Some(&width) = widths.get(widths.len() / 2) else {
            return Ok(());
        };
        let cards: Vec<&Detected> = dets
            .iter()
            .filter(|d| (0.6..1.6).contains(&(card_width(d) / width)))
            .collect();
        let ratio = width / self.card_px;
        if cards.len() >= 2 && (ratio - 1.0).abs() > STALE_SIZE {
            return Err(Stale {
                reason: format!(
                    "cards look {:.0}% {} than at calibration (camera moved or zoomed)",
                    (ratio - 1.0).abs() * 100.0,
                    if ratio > 1.0 { "bigger" } else { "smaller" }
                ),
            });
        }
        let mut off: Vec<f64> = cards
            .iter()
            .map(|d| {
                self.lattice
                    .to_cell(d.centre)
                    .map_or(0.5, |(c, r)| (c - c.round()).hypot(r - r.round()))
            })
            .collect();
        off.sort_by(f64::total_cmp);
        if off.len() >= 3 {
            let median = off[off.len() / 2] as f32;
            if median > STALE_RESIDUAL {
                return Err(Stale {
                    reason: format!(
                        "cards no longer sit on the lattice ({median:.2} cells off in the median, \
                         {} of {} farther than {PLACE_TOLERANCE}): the camera or the table moved",
                        off.iter().filter(|&&o| o >= PLACE_TOLERANCE).count(),
                        off.len()
                    ),
                });
            }
        }
        Ok(())
    }
}

/// The mean of a card's two short sides, pixels.
fn card_width(d: &Detected) -> f32 {
    let c = &d.corners;
    let len = |a: (f32, f32), b: (f32, f32)| (a.0 - b.0).hypot(a.1 - b.1);
    (len(c[0], c[1]) + len(c[2], c[3])) / 2.0
}

/// Whether all placed cells lie on one straight line of the grid (a row, a
/// column or a diagonal).
fn collinear(p: &Placement) -> bool {
    let cells: Vec<(i64, i64)> = p
        .cells
        .iter()
        .map(|(c, _)| (i64::from(c.col), i64::from(c.row)))
        .collect();
    let Some(&a) = cells.first() else {
        return true;
    };
    let Some(&b) = cells.iter().find(|&&c| c != a) else {
        return true;
    };
    cells
        .iter()
        .all(|c| (b.0 - a.0) * (c.1 - a.1) == (b.1 - a.1) * (c.0 - a.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finder::detect;
    use crate::lattice::tests::{Synthetic, base, card_image, cloth, score, score_matched, table};
    use crate::scene::{Scene, SceneParams, render};
    use arbiter_core::table::Cell;

    /// A steep camera over a 960×540 frame.
    fn steep(seed: u64) -> SceneParams {
        SceneParams {
            width: 960,
            height: 540,
            pitch_px: 48.0,
            layout_rotation_deg: 14.0,
            tilt_deg: 50.0,
            per_card_skew_deg: 3.0,
            gap_jitter_px: 2.0,
            seed,
            ..SceneParams::clean()
        }
    }

    // Both layouts span 4 columns and 3 rows, so the renderer centres them
    // alike and a cell lies in the same place on the felt in both.
    const LAYOUT: &str = "rK uQ ## wB\nbP yN rR bK\nuN ## wR yQ\n";
    const LATER: &str = "wK .. bQ rB\n.. uN .. ##\nyP wR .. bR\n";

    fn frame(text: &str, p: &SceneParams) -> (Scene, Vec<Detected>) {
        let scene = render(&table(text), p, &card_image, cloth());
        let dets = detect(&scene.image);
        (scene, dets)
    }

    fn calibrated(p: &SceneParams) -> Calibration {
        let (_, dets) = frame(LAYOUT, p);
        Calibration::from_detections(&dets, (p.width, p.height), "test").unwrap()
    }

    #[test]
    fn a_steep_camera_reads_with_a_calibration() {
        let p = steep(1);
        let (scene, dets) = frame(LAYOUT, &p);
        let cal = Calibration::from_detections(&dets, (p.width, p.height), "steep").unwrap();
        let first = score(&scene, &dets, &cal.place(&dets));
        assert!(first.wrong.is_empty(), "{:?}", first.wrong);

        let mut later = p.clone();
        later.per_card_skew_deg = 6.0;
        later.gap_jitter_px = 3.0;
        let (scene, dets) = frame(LATER, &later);
        let placement = cal.place(&dets);
        let s = score(&scene, &dets, &placement);
        println!(
            "tilt 50 calibrated: {}/{} detected cards on their cells ({} true cards); \
             calibration frame {}/{}",
            s.right,
            s.detected,
            scene.truth.len(),
            first.right,
            first.detected
        );
        assert!(s.wrong.is_empty(), "{:?}", s.wrong);
        assert!(s.detected >= 4, "too few cards detected to judge");
        // The calibration's cells, not a fresh orientation: the same turn
        // and shift from the truth as in the calibration frame.
        assert_eq!((s.turns, s.shift), (first.turns, first.shift));
        assert_eq!(cal.check(&dets, (p.width, p.height)), Ok(()));
    }

    #[test]
    fn steep_synthetic_layouts_with_a_calibration() {
        let full: Vec<Cell> = (0..4)
            .flat_map(|r| (0..6).map(move |c| Cell::new(c, r)))
            .collect();
        let (mut right, mut cards, mut alone) = (0, 0, 0);
        for seed in 0..20u64 {
            let syn = Synthetic {
                tilt_deg: 45.0 + seed as f64 % 4.0 * 5.0,
                rotation_deg: seed as f64 * 37.0,
                skew_deg: 4.0,
                jitter_px: 2.0,
                ..Synthetic::new(seed)
            };
            let cal =
                Calibration::from_detections(&syn.detections(&full), (960, 540), "syn").unwrap();
            // Later: a sparser table on the same cells.
            let later: Vec<Cell> = full
                .iter()
                .copied()
                .filter(|c| (c.col + c.row) % 3 != 0)
                .collect();
            let dets = Synthetic {
                seed: seed + 1000,
                ..syn.clone()
            }
            .detections(&later);
            let matched: Vec<(usize, Cell)> = later.iter().copied().enumerate().collect();
            let s = score_matched(&matched, &cal.place(&dets));
            assert!(s.wrong.is_empty(), "seed {seed}: {:?}", s.wrong);
            right += s.right;
            // For the record: the same frames without the calibration.
            if let Some(own) = lattice::fit(&dets) {
                alone += score_matched(&matched, &own).right;
            }
            cards += later.len();
        }
        println!(
            "tilt 45-60 synthetic: calibrated {right}/{cards} cards; uncalibrated {alone}/{cards}"
        );
    }

    #[test]
    fn toml_round_trip_and_files() {
        let mut p = base();
        p.seed = 3;
        p.layout_rotation_deg = 8.0;
        p.tilt_deg = 20.0;
        let cal = calibrated(&p);
        let text = cal.to_toml();
        assert!(text.contains("# "), "{text}");
        println!("{text}");
        assert_eq!(Calibration::parse("c.toml", &text), Ok(cal.clone()));
        let dir = std::env::temp_dir().join(format!("arbiter-cal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("camera.toml");
        cal.save(&path).unwrap();
        assert_eq!(Calibration::load(&path), Ok(cal));
        let missing = Calibration::load(&dir.join("none.toml")).unwrap_err();
        assert_eq!(missing.line, 0);
        assert!(missing.to_string().contains("cannot read"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn malformed_files_name_the_line() {
        let good = "source = \"x\"\nimage_size = [640, 360]\ncard_px = 40.0\n\
                    cell_to_image = [\n  [50.0, 0.0, 100.0],\n  [0.0, 70.0, 80.0],\n  [0.0, 0.0, 1.0],\n]\n";
        assert!(Calibration::parse("c.toml", good).is_ok());
        let cases = [
            (
                good.replace("card_px = 40.0", "card_px = 40.0\nzoom = 2"),
                4,
                "zoom",
            ),
            (
                good.replace("card_px = 40.0", "card_px = \"big\""),
                3,
                "invalid type",
            ),
            (
                good.replace("card_px = 40.0", "card_px = -4.0"),
                3,
                "positive",
            ),
            (good.replace("[640, 360]", "[640, 0]"), 2, "positive"),
            (
                good.replace("[0.0, 70.0, 80.0]", "[0.0, 0.0, 0.0]"),
                4,
                "singular",
            ),
            (good.replace("[0.0, 70.0, 80.0]", "[0.0, 70.0]"), 6, ""),
            (good.replace("card_px = 40.0\n", ""), 0, "card_px"),
        ];
        for (text, line, word) in cases {
            let e = Calibration::parse("cam.toml", &text).unwrap_err();
            if line > 0 {
                assert_eq!(e.line, line, "{e}");
                assert!(
                    e.to_string().starts_with(&format!("cam.toml:{line}: ")),
                    "{e}"
                );
            }
            assert!(e.message.contains(word), "{e}");
        }
    }

    #[test]
    fn too_few_cards_or_one_line_is_refused() {
        assert_eq!(
            Calibration::from_detections(&[], (640, 360), "x").unwrap_err(),
            FitError::NoCard
        );
        let one = Synthetic::new(1).detections(&[Cell::new(0, 0)]);
        let e = Calibration::from_detections(&one, (960, 540), "x").unwrap_err();
        assert_eq!(e, FitError::TooFew(1));
        assert_eq!(
            e.to_string(),
            "only 1 card seen: lay out at least 4 cards in 2 rows and 2 columns"
        );
        let row: Vec<Cell> = (0..5).map(|c| Cell::new(c, 0)).collect();
        let e = Calibration::from_detections(&Synthetic::new(2).detections(&row), (960, 540), "x")
            .unwrap_err();
        assert_eq!(e, FitError::OneLine(5));
        assert!(e.to_string().contains("one line"), "{e}");
    }

    #[test]
    fn check_notices_a_moved_camera_or_table() {
        let p = steep(5);
        let cal = calibrated(&p);
        // Same camera, other cards: still good.
        let (_, dets) = frame(LATER, &p);
        assert_eq!(cal.check(&dets, (p.width, p.height)), Ok(()));
        // Another frame size.
        let e = cal.check(&dets, (640, 360)).unwrap_err();
        assert!(e.reason.contains("960x540"), "{e}");
        // The camera tilted less.
        let mut tilted = p.clone();
        tilted.tilt_deg = 30.0;
        let (_, dets) = frame(LATER, &tilted);
        let e = cal.check(&dets, (p.width, p.height)).unwrap_err();
        println!("tilt 50 -> 30: {e}");
        // The table turned.
        let mut turned = p.clone();
        turned.layout_rotation_deg += 20.0;
        let (_, dets) = frame(LATER, &turned);
        let e = cal.check(&dets, (p.width, p.height)).unwrap_err();
        println!("layout turned 20°: {e}");
        assert!(e.reason.contains("lattice"), "{e}");
    }
}
