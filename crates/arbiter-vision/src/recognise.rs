//! A frame to a reading of the table: cards found, placed on cells, read.

use image::RgbImage;

use crate::calibration::{Calibration, MIN_CARDS, Stale};
use crate::cards::Detected;
use crate::finder::find;
use crate::lattice;
use crate::pipeline::learned_finder::LearnedFinder;
use crate::templates::DeckModel;
use arbiter_core::table::{Cell, Token};

pub use crate::pipeline::reading::{Reading, Recognition};

/// How to read frames: which deck, and the camera's calibration if any.
pub struct Recogniser {
    deck: Faces,
    /// For [`Faces::Printed`]: a frame showed a card of the coded deck, so
    /// every frame from then on is read by its codes.
    coded_seen: std::sync::atomic::AtomicBool,
    calibration: Option<Calibration>,
    /// A live read set its calibration aside as no longer fitting, and
    /// fits a new one from the first frame that allows it.
    recalibrating: bool,
    reader: Reader,
}

/// Which reader turns a frame into cells: the staged pipeline
/// ([`crate::pipeline`]) is being built beside the patched one it will
/// replace, and is chosen only where asked for until it reads as well.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reader {
    /// `finder::find` and the lattice it grows.
    #[default]
    Patched,
    /// [`crate::pipeline::read_frame`].
    Staged,
}

impl Reader {
    /// `ARBITER_READER=staged` chooses the staged reader (for the accuracy
    /// report and benchmarks while both exist); `templates`, the patched
    /// reader with a learned deck's templates alone, no second reader
    /// (`accuracy::recogniser_for`).
    pub fn from_env() -> Reader {
        match std::env::var("ARBITER_READER").as_deref() {
            Ok("staged") => Reader::Staged,
            _ => Reader::Patched,
        }
    }
}

/// The deck read: the printable coded deck (by its codes alone), or a
/// deck read by its learned faces: the deck printed before the codes
/// (bundled), or a file's.
pub enum Faces {
    /// The printable deck, read by its fiducial codes ([`crate::coded`]).
    Coded,
    /// The printable deck as printed now (coded) or before the codes: a
    /// frame is read by its codes once any frame has shown a card by both
    /// its codes (a quad of something else may pass for one code, never
    /// for two agreeing on one card), else as the deck printed before.
    /// What `--deck` names when it is not given.
    Printed,
    /// The deck printed before the codes ([`crate::print::classic`]), its
    /// faces learned and bundled.
    Bundled,
    Learned(Box<DeckModel>),
}

impl Faces {
    fn model(&self) -> &DeckModel {
        match self {
            // The coded deck's faces are never compared; a model is only
            // asked for by the hand-made reader's paths, which the coded
            // deck does not take.
            Faces::Coded | Faces::Printed | Faces::Bundled => DeckModel::bundled(),
            Faces::Learned(m) => m,
        }
    }
}

impl Recogniser {
    pub fn new(deck: Faces, calibration: Option<Calibration>) -> Self {
        Recogniser {
            deck,
            coded_seen: std::sync::atomic::AtomicBool::new(false),
            calibration,
            recalibrating: false,
            reader: Reader::default(),
        }
    }

    /// The same, read by `reader`.
    pub fn with_reader(mut self, reader: Reader) -> Self {
        self.reader = reader;
        self
    }

    /// The deck printed before the codes, no calibration.
    pub fn bundled() -> Self {
        Recogniser::new(Faces::Bundled, None)
    }

    /// The printable coded deck, no calibration.
    pub fn coded() -> Self {
        Recogniser::new(Faces::Coded, None)
    }

    /// Whether this deck is read by its codes (for [`Faces::Printed`]:
    /// since a frame showed it coded).
    pub fn is_coded(&self) -> bool {
        use std::sync::atomic::Ordering;
        match self.deck {
            Faces::Coded => true,
            Faces::Printed => self.coded_seen.load(Ordering::Relaxed),
            Faces::Bundled | Faces::Learned(_) => false,
        }
    }

    /// The cards of `frame`, found and read as this deck is, and for the
    /// coded deck why cards are `??` ([`crate::coded::doubt_note`]).
    fn find(&self, frame: &RgbImage) -> (crate::finder::Finding, Option<String>) {
        use std::sync::atomic::Ordering;
        match self.deck {
            Faces::Coded => coded_finding(crate::coded::cards(frame)),
            Faces::Printed => {
                let cards = crate::coded::cards(frame);
                let shown = cards.iter().any(|c| c.codes == 2 && c.doubt.is_none());
                if shown {
                    self.coded_seen.store(true, Ordering::Relaxed);
                }
                if self.coded_seen.load(Ordering::Relaxed) {
                    coded_finding(cards)
                } else {
                    (find(frame, self.deck.model()), None)
                }
            }
            Faces::Bundled | Faces::Learned(_) => (find(frame, self.deck.model()), None),
        }
    }

    pub fn calibration(&self) -> Option<&Calibration> {
        self.calibration.as_ref()
    }

    /// Reads one frame. With a calibration that no longer fits the frame
    /// the cells come from the cards alone, and the reading's `note` says
    /// why.
    pub fn recognise(&self, frame: &RgbImage) -> Recognition {
        match self.reader {
            _ if matches!(self.deck, Faces::Coded | Faces::Printed) => {
                let (finding, why) = self.find(frame);
                let (mut recognition, _) = self.place(&finding.cards, frame.dimensions());
                recognition.busy = finding.hand;
                recognition.note = why.or(recognition.note);
                recognition
            }
            Reader::Patched => {
                let finding = find(frame, self.deck.model());
                let (mut recognition, _) = self.place(&finding.cards, frame.dimensions());
                recognition.busy = finding.hand;
                recognition
            }
            Reader::Staged => crate::pipeline::read_frame(frame, self.deck.model()).0,
        }
    }

    /// One image read on its own (`arbiter recognise`): a calibration
    /// that no longer fits it is refused, with why, rather than used to
    /// name cells it does not name. A photo is read more thoroughly than a
    /// running camera's frame: a learned deck's cards are also sought by
    /// the learned finder ([`learned_finder_cards`]), and faces named off
    /// the layout's lattice are listed too ([`off_the_lattice`]).
    pub fn recognise_checked(&self, frame: &RgbImage) -> Result<Recognition, Stale> {
        let (mut finding, why) = self.find(frame);
        if let Faces::Learned(model) = &self.deck {
            learned_finder_cards(frame, model, &mut finding);
        }
        if let Some(cal) = &self.calibration {
            cal.check(&finding.cards, frame.dimensions())?;
        }
        let (mut recognition, _, unplaced) =
            self.place_counting(&finding.cards, frame.dimensions());
        let off = off_the_lattice(&mut recognition, &finding.cards, &unplaced);
        recognition.busy = finding.hand;
        recognition.note = why.or(recognition.note).or(off);
        Ok(recognition)
    }

    /// A frame of a running camera, and the outline each cell's card was
    /// read at (none for a cell two cards were placed on). A calibration
    /// that no longer fits (the camera was moved or zoomed) is set aside,
    /// and a new one is fitted from the first still frame whose cards
    /// allow it, so cells keep their names from then on; the reading's
    /// `note` says each of the two, once.
    pub(crate) fn recognise_placed(&mut self, frame: &RgbImage) -> (Recognition, Vec<Placed>) {
        let (finding, why) = self.find(frame);
        let size = frame.dimensions();
        let mut note = None;
        if !finding.hand {
            if let Some(cal) = &self.calibration
                && let Err(stale) = cal.check(&finding.cards, size)
            {
                note = Some(format!(
                    "the calibration made from {} no longer fits: {}; set aside: the camera \
                     recalibrates itself once {MIN_CARDS} cards lie in 2 rows and 2 columns \
                     (cells come from the cards alone until then)",
                    cal.source, stale.reason
                ));
                self.calibration = None;
                self.recalibrating = true;
            }
            if self.recalibrating
                && let Ok(cal) = Calibration::from_detections(&finding.cards, size, "a frame")
            {
                note = Some(format!(
                    "recalibrated from this frame's {} cards, a card {:.0} px wide \
                     (`arbiter calibrate` saves a calibration for the next game)",
                    finding.cards.len(),
                    cal.card_px
                ));
                self.calibration = Some(cal);
                self.recalibrating = false;
            }
        }
        let (mut recognition, placed) = self.place(&finding.cards, size);
        recognition.busy = finding.hand;
        recognition.note = note.or(why).or(recognition.note);
        (recognition, placed)
    }

    /// The cells of cards found in a frame of `size`: on the calibration's
    /// lattice while it fits them, else on the one they make (see
    /// [`lattice`]). Not busy.
    pub(crate) fn place(&self, dets: &[Detected], size: (u32, u32)) -> (Recognition, Vec<Placed>) {
        let (recognition, placed, _) = self.place_counting(dets, size);
        (recognition, placed)
    }

    /// [`Recogniser::place`], and the detections placed on no cell.
    fn place_counting(
        &self,
        dets: &[Detected],
        size: (u32, u32),
    ) -> (Recognition, Vec<Placed>, Vec<usize>) {
        let (placement, stale) = match &self.calibration {
            Some(cal) if dets.is_empty() => (None, cal.check(dets, size).err()),
            Some(cal) => match cal.check(dets, size) {
                Ok(()) => (Some(lattice::place(&cal.lattice, dets)), None),
                Err(stale) => (lattice::fit_read(dets), Some(stale)),
            },
            None => (lattice::fit_read(dets), None),
        };
        let mut cells: Vec<Reading> = Vec::new();
        let mut placed: Vec<Placed> = Vec::new();
        let unplaced = match &placement {
            Some(p) => p.unplaced.clone(),
            None => (0..dets.len()).collect(),
        };
        if let Some(p) = placement {
            for &(cell, i) in &p.cells {
                let d = &dets[i];
                let (token, confidence) = match d.token {
                    Some(t) => (t, d.confidence),
                    None => (Token::Unreadable, d.confidence),
                };
                match cells.iter_mut().find(|r| r.cell == cell) {
                    // Two cards on one cell: neither is trusted.
                    Some(r) => {
                        r.token = Token::Unreadable;
                        r.confidence = r.confidence.min(confidence);
                        placed.retain(|p| p.cell != cell);
                    }
                    None => {
                        cells.push(Reading {
                            cell,
                            token,
                            confidence,
                        });
                        placed.push(Placed {
                            cell,
                            corners: d.corners,
                        });
                    }
                }
            }
        }
        cells.sort_by_key(|r| (r.cell.row, r.cell.col));
        let note = stale.map(|s| {
            format!("{s}; cells come from the cards alone until `arbiter calibrate` is run again")
        });
        let busy = false;
        (Recognition { busy, cells, note }, placed, unplaced)
    }

    pub(crate) fn model(&self) -> &DeckModel {
        self.deck.model()
    }
}

/// The coded deck's cards as the finder's: the lattice and tracking take
/// them as they take any reader's. A frame is busy when a card read by one
/// code has its other code's white ring darkened by something that is no
/// card ([`crate::coded::covered`]): on held-out renders that caught 105
/// of 193 frames with a hand over a card, and called none of 316 hand-free
/// frames busy. (Calling every card that shows one code busy had caught
/// 27 of 69 and called 5 of 101 hand-free frames busy: glare washes out a
/// code, and a throne's partner hides one under its king.) A hand that
/// hides a card whole and touches no other is seen by its motion
/// ([`crate::frames`]).
fn coded_finding(cards: Vec<crate::coded::CodedCard>) -> (crate::finder::Finding, Option<String>) {
    let hand = cards.iter().any(|c| c.covered);
    let why = crate::coded::doubt_note(&cards);
    let finding = crate::finder::Finding {
        cards: cards
            .into_iter()
            .map(|c| Detected {
                corners: c.corners,
                centre: c.centre,
                token: c.token,
                confidence: c.confidence,
            })
            .collect(),
        hand,
    };
    (finding, why)
}

/// The least confidence of a face named off the lattice: the readers'
/// own for a read to be built on (the grown outline's `GROWN_SURE` in
/// `grow`); a bare name (0.5 up) is corroborated by the layout on it.
/// (On the real Pinochle photos, the one card named wrong off the
/// lattice was named at 0.52, the 15 right ones from 0.53 up: 13 are
/// kept.)
const OFF_LATTICE_SURE: f32 = 0.65;

/// Cards a photo shows that its lattice does not hold (scattered at other
/// angles, or apart from the layout) are still cards the camera named: a
/// photo read on its own lists every face it names, those off the lattice
/// on cells of their own two rows below the layout's last, left to right
/// as they lie, and says so. Only faces named surely
/// ([`OFF_LATTICE_SURE`]): an unnamed outline off the lattice is more
/// often no card at all, and a card there has no neighbours to say it is
/// a card's size and place. (A running camera keeps to the
/// lattice: there a card off it is a card misplaced, which the referee
/// judges by its cells.)
fn off_the_lattice(
    recognition: &mut Recognition,
    dets: &[Detected],
    unplaced: &[usize],
) -> Option<String> {
    let mut off: Vec<&Detected> = unplaced
        .iter()
        .map(|&i| &dets[i])
        .filter(|d| matches!(d.token, Some(Token::Up(_))) && d.confidence >= OFF_LATTICE_SURE)
        .collect();
    if off.is_empty() {
        return None;
    }
    off.sort_by(|a, b| a.centre.0.total_cmp(&b.centre.0));
    let laid_out = !recognition.cells.is_empty();
    let row = recognition
        .cells
        .iter()
        .map(|r| r.cell.row)
        .max()
        .map_or(0, |r| r + 2);
    let col0 = recognition
        .cells
        .iter()
        .map(|r| r.cell.col)
        .min()
        .unwrap_or(0);
    for (k, d) in off.iter().enumerate() {
        recognition.cells.push(Reading {
            cell: Cell::new(col0 + k as i32, row),
            token: d.token.unwrap_or(Token::Unreadable),
            confidence: d.confidence,
        });
    }
    let (cards, their) = match off.len() {
        1 => ("1 card".to_string(), "its cell is"),
        n => (format!("{n} cards"), "their cells are"),
    };
    Some(if laid_out {
        format!(
            "{cards} named off the layout's lattice, listed on row {row} ({their} not the \
             board's)"
        )
    } else {
        format!("{cards} named on no lattice, listed on row {row} ({their} not the board's)")
    })
}

/// Where a cell's card lay in the frame it was read from.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Placed {
    pub cell: Cell,
    /// Its outline, portrait order (see [`crate::cards::Detected`]).
    pub corners: [(f32, f32); 4],
}

/// The learned finder's cards where the hand-made finder found none: each
/// outline put on the card's edge ([`LearnedFinder::fitted_cards`]), read
/// by the deck, and added when the deck names a face (an outline no face
/// fits, or the back, is more often a rug's pattern or a tile than a card
/// the other finder missed). On the real Pinochle photos it names 1
/// webcam and 2 phone cards more, none wrong; on its own it outlines all
/// 48 webcam cards but its outlines are read worse than the hand-made
/// finder's, which tries several per card (12 of 48 and 38 of 221 named).
/// Only for a photo read on its own: on a running camera it names 1 cell
/// more of the varied sets' 3,517 and takes the median frame from 0.48 s
/// to 0.87 s (every outline it adds is read).
fn learned_finder_cards(frame: &RgbImage, model: &DeckModel, finding: &mut crate::finder::Finding) {
    use crate::cards::Identify;
    use crate::pipeline::geometry::Quad;
    let Ok(outlines) = LearnedFinder::embedded().fitted_cards(frame) else {
        return;
    };
    for q in outlines {
        let taken = finding.cards.iter().any(|d| {
            let dq = Quad(d.corners);
            dq.contains(q.centre()) || q.contains(d.centre)
        });
        if taken {
            continue;
        }
        let ((token, confidence), at) = model.identify_placed_in(frame, &q.0, true);
        if matches!(token, Some(Token::Up(_))) {
            finding.cards.push(Detected {
                corners: at,
                centre: Quad(at).centre(),
                token,
                confidence,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(token: &str, centre: (f32, f32), confidence: f32) -> Detected {
        let (x, y) = centre;
        Detected {
            corners: [
                (x - 10.0, y - 14.0),
                (x + 10.0, y - 14.0),
                (x + 10.0, y + 14.0),
                (x - 10.0, y + 14.0),
            ],
            centre,
            token: Token::parse(token).expect("a token"),
            confidence,
        }
    }

    /// Of the cards the lattice left out, the faces named surely are
    /// listed two rows below the layout, left to right as they lie, and
    /// the note says so; an unnamed one, the back, and a face named
    /// barely are not.
    #[test]
    fn faces_off_the_lattice_are_listed_below_it() {
        let mut rec = Recognition {
            busy: false,
            cells: vec![Reading {
                cell: Cell::new(1, 3),
                token: Token::parse("wK").unwrap().unwrap(),
                confidence: 0.9,
            }],
            note: None,
        };
        let dets = [
            card("wK", (50.0, 50.0), 0.9),
            card("rQ", (300.0, 80.0), 0.8),
            card("??", (120.0, 80.0), 0.3),
            card("bB", (200.0, 60.0), 0.7),
            card("uN", (250.0, 60.0), 0.52),
            card("##", (20.0, 60.0), 0.95),
        ];
        let note = off_the_lattice(&mut rec, &dets, &[1, 2, 3, 4, 5]).expect("a note");
        let listed: Vec<(Cell, String)> = rec.cells[1..]
            .iter()
            .map(|r| (r.cell, r.token.to_string()))
            .collect();
        assert_eq!(
            listed,
            [
                (Cell::new(1, 5), "bB".to_string()),
                (Cell::new(2, 5), "rQ".to_string())
            ]
        );
        assert!(note.starts_with("2 cards named off"), "{note}");
        let mut none = rec.clone();
        assert_eq!(off_the_lattice(&mut none, &dets, &[2, 4, 5]), None);
        assert_eq!(none, rec);
    }
}
