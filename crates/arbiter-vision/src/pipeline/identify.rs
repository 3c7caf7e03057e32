//! Identification: only occupied cells, each read against the deck.
//!
//! A cell's outline is handed to the deck's faces ([`Identify`]): the
//! printable deck's corner code where it reads, else the whole face
//! compared with every learned kind. An outline the finder saw whole is
//! read as exact; one the lattice predicted is read as rough (a deck with
//! corner codes then names it only when a code agrees).

use image::RgbImage;

use arbiter_core::table::{Cell, Token};

use super::geometry::Quad;
use super::occupancy::Judged;
use crate::cards::Identify;

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

/// Reads every judged cell.
pub fn identify(frame: &RgbImage, cells: &[Judged], deck: &dyn Identify) -> Vec<Identified> {
    cells
        .iter()
        .map(|j| {
            let rough = j.found.is_none();
            let ((token, confidence), corners) = deck.identify_placed_in(frame, &j.quad.0, rough);
            Identified {
                cell: j.cell,
                quad: Quad(corners),
                token,
                confidence,
                seen_whole: !rough,
                foreign: j.foreign,
            }
        })
        .collect()
}
