//! The camera's reader: one frame through six stages, in order, each its
//! own module with its own input and output types, none calling back into
//! an earlier one.
//!
//! 1. [`table_model`]: what the empty table looks like, learned from the
//!    frame, and which parts of a frame changed since the last still one;
//! 2. [`finding`]: card outlines as quadrilaterals from the image's
//!    structure (adaptive threshold, connected regions, a quad fit on the
//!    decimated frame, refined at full resolution);
//! 3. `lattice`: cells from the cards' own pitch, measured locally;
//! 4. `occupancy`: for each cell, empty or occupied;
//! 5. `identify`: only occupied cells, a rectified patch compared once
//!    against the deck;
//! 6. `reading`: the cells, their cards or `??`, and what made the frame
//!    busy.
//!
//! [`geometry`], [`plane`], [`regions`] and [`edge_fit`] (an outline put
//! on a card's edge at full resolution) are helpers the stages share; they
//! import no stage.

pub mod edge_fit;
pub mod faces;
pub mod finding;
pub mod geometry;
pub mod identify;
pub mod lattice;
pub mod learned;
pub mod learned_finder;
pub mod occupancy;
pub mod plane;
pub mod reading;
pub mod regions;
pub mod table_model;

use std::time::{Duration, Instant};

use image::RgbImage;

use identify::Deck;
use lattice::Lattice;
use occupancy::{TableColours, survey};
use plane::Plane;
use reading::Recognition;
use table_model::TableModel;

/// The decimation finding works at.
const DECIMATION: usize = 2;

/// How long each stage took on one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageTimes {
    pub table_model: Duration,
    pub finding: Duration,
    pub lattice: Duration,
    pub occupancy: Duration,
    pub identify: Duration,
    pub reading: Duration,
}

impl StageTimes {
    pub fn total(&self) -> Duration {
        self.table_model
            + self.finding
            + self.lattice
            + self.occupancy
            + self.identify
            + self.reading
    }

    pub const NAMES: [&str; 6] = [
        "table model",
        "finding",
        "lattice",
        "occupancy",
        "identify",
        "reading",
    ];

    pub fn each(&self) -> [Duration; 6] {
        [
            self.table_model,
            self.finding,
            self.lattice,
            self.occupancy,
            self.identify,
            self.reading,
        ]
    }
}

/// Every stage's output for one frame: what [`read_frame`] returns, and
/// what led to it (for the stage report and for drawing a frame's
/// reading).
#[derive(Clone, Debug)]
pub struct Trace {
    pub model: TableModel,
    pub finding: finding::Finding,
    /// The cards among the outlines found (see [`lattice::cards_of`]).
    pub cards: Vec<finding::Found>,
    pub judged: Vec<occupancy::Judged>,
    pub identified: Vec<identify::Identified>,
    pub recognition: Recognition,
    pub times: StageTimes,
}

/// Reads one frame through every stage, against `deck`.
pub fn read_frame(frame: &RgbImage, deck: &dyn Deck) -> (Recognition, StageTimes) {
    let t = trace_frame(frame, deck);
    (t.recognition, t.times)
}

/// [`read_frame`], keeping every stage's output.
pub fn trace_frame(frame: &RgbImage, deck: &dyn Deck) -> Trace {
    let mut times = StageTimes::default();
    let t = Instant::now();
    let full = Plane::luma(frame);
    let dec = Plane::luma_decimated(frame, DECIMATION);
    let model = TableModel::learn(&dec);
    times.table_model = t.elapsed();

    let t = Instant::now();
    let finding = finding::find(&full, &dec, DECIMATION, &model);
    times.finding = t.elapsed();

    let t = Instant::now();
    let nearest = |q: &geometry::Quad| deck.nearest(frame, q);
    let cards = lattice::cards_of(&finding.cards, &|q| nearest(q).map(|(_, d)| d));
    let mut lattice = Lattice::from_cards(&cards);
    times.lattice = t.elapsed();

    let t = Instant::now();
    let colours = TableColours::learn(frame, &cards);
    let judged = survey(
        frame,
        &full,
        &cards,
        &mut lattice,
        &colours,
        model.step,
        &nearest,
    );
    times.occupancy = t.elapsed();

    let t = Instant::now();
    let identified = identify::identify(frame, &judged, deck);
    times.identify = t.elapsed();

    let t = Instant::now();
    let recognition = reading::read(&finding, &identified);
    times.reading = t.elapsed();
    Trace {
        model,
        finding,
        cards,
        judged,
        identified,
        recognition,
        times,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accuracy::{Truth, score};
    use crate::lattice::tests::card_image;
    use crate::scene::{SceneParams, felt, render};
    use crate::templates::DeckModel;
    use arbiter_core::table::{Cell, Table};

    fn table(text: &str) -> Table {
        Table::parse_grid(text, Cell::new(0, 0)).unwrap()
    }

    /// Every card of a clean overhead shot of the printable deck on felt
    /// is read and put on its cell (up to the lattice's own origin and
    /// quarter-turn), and nothing else is. Turned 20° with the cards
    /// closer, no card is read wrong, but (for now) the outline of a card
    /// or two is drawn onto a neighbour's edge and reads `??`.
    #[test]
    fn a_clean_table_is_read_card_for_card() {
        let t = table("wK bQ ## rB\nuN yP wR ##\nbK ## rQ uB\n## wN bP yR\n");
        for (params, right) in [
            (
                SceneParams {
                    pitch_px: 96.0,
                    ..SceneParams::clean()
                },
                16,
            ),
            (
                SceneParams {
                    pitch_px: 80.0,
                    layout_rotation_deg: 20.0,
                    ..SceneParams::clean()
                },
                14,
            ),
        ] {
            let s = render(&t, &params, &card_image, &felt(128, 3));
            let (rec, _) = read_frame(&s.image, DeckModel::bundled());
            let sc = score(
                &Truth {
                    busy: false,
                    table: t.clone(),
                },
                &rec,
            );
            assert_eq!(sc.confident_wrong, 0, "{:?}", sc.wrong_cells);
            assert!(sc.correct >= right, "{sc}: {rec:?}");
            assert!(!rec.busy);
        }
    }

    /// A frame reads the same every time: no stage may depend on a hash
    /// map's order. (On this frame of the varied sets, a cell's shape once
    /// taken from the lattice's map changed the reading between runs.)
    #[test]
    fn a_frame_reads_the_same_every_time() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let deck =
            DeckModel::learn_dir(&root.join("fixtures/decks/stand-in")).expect("the deck learns");
        let frame = image::open(root.join("fixtures/tables/light/007.jpg"))
            .expect("the frame decodes")
            .to_rgb8();
        let first = read_frame(&frame, &deck).0;
        assert!(first.cells.len() > 10, "{first:?}");
        for _ in 0..5 {
            assert_eq!(read_frame(&frame, &deck).0, first);
        }
    }

    /// An empty table is read as no card at all.
    #[test]
    fn an_empty_table_reads_no_card() {
        let s = render(
            &Table::new(),
            &SceneParams::clean(),
            &card_image,
            &felt(128, 3),
        );
        let (rec, _) = read_frame(&s.image, DeckModel::bundled());
        assert!(rec.cells.is_empty(), "{:?}", rec.cells);
    }
}
