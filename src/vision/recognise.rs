//! A frame to a reading of the table: cards found, placed on cells, read.

use crate::table::{Cell, Token};

/// One occupied cell as read from a frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    pub cell: Cell,
    /// `Token::Unreadable` for a card seen but not read with confidence.
    pub token: Token,
    /// 0–1.
    pub confidence: f32,
}

/// What one frame shows.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Recognition {
    /// Hands or motion over the table: not to be judged.
    pub busy: bool,
    /// Occupied cells, sorted row-major.
    pub cells: Vec<Reading>,
}
