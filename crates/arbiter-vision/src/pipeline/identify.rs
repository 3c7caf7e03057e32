//! Identification: only occupied cells, each read against the deck.
//!
//! A cell's outline is handed to the deck ([`Deck`]): the printable
//! deck's corner code where it reads, else the whole face compared with
//! every learned kind. An outline the finder saw whole is read as exact;
//! one the lattice predicted is read as rough (a deck with corner codes
//! then names it only when a code agrees).

use image::RgbImage;

use arbiter_core::table::{Cell, Token};

use super::geometry::Quad;
use super::lattice::SEED_DISTANCE;
use super::occupancy::Judged;

/// What the pipeline asks of a deck's faces. The stages name no deck
/// format: the learned deck model implements this (`templates`).
pub trait Deck {
    /// The kind nearest the card under `quad` as it lies (no search), and
    /// its distance: whether an outline holds a card of this deck at all.
    fn nearest(&self, frame: &RgbImage, quad: &Quad) -> Option<(Token, f32)>;

    /// Reads the card under `quad` (`rough`: an outline predicted, not
    /// seen): its token when named, a confidence 0–1, and the outline it
    /// was read at.
    fn read(&self, frame: &RgbImage, quad: &Quad, rough: bool) -> (Option<Token>, f32, Quad);
}

/// One occupied cell, read.
#[derive(Clone, Debug, PartialEq)]
pub struct Identified {
    pub cell: Cell,
    /// The outline the card was read at.
    pub quad: Quad,
    /// `None`: seen, not read with confidence.
    pub token: Option<Token>,
    pub confidence: f32,
    /// Whether the finder saw the whole outline (not only the lattice).
    pub seen_whole: bool,
    /// Share of the cell the table seldom shows.
    pub foreign: f32,
}

/// Reads the judged cells that hold a card the finder saw or the deck
/// recognised as its outline lies. A cell occupancy found unlike the table
/// but no card of the deck is not read: a reader that seeks the print
/// about an outline would find a neighbour's there.
pub fn identify(frame: &RgbImage, cells: &[Judged], deck: &dyn Deck) -> Vec<Identified> {
    cells
        .iter()
        .filter(|j| j.found.is_some() || j.fit.is_some_and(|d| d <= SEED_DISTANCE))
        .map(|j| {
            let rough = j.found.is_none();
            let (token, confidence, quad) = deck.read(frame, &j.quad, rough);
            Identified {
                cell: j.cell,
                quad,
                token,
                confidence,
                seen_whole: !rough,
                foreign: j.foreign,
            }
        })
        .collect()
}
