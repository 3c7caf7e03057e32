//! Reading: the cells, their cards or `??`, and whether the frame is busy.
//!
//! A cell is reported when its card was named, or when the finder saw a
//! whole card outline there that could not be named (`??`: the referee
//! waits). A cell only the lattice and occupancy vouch for, that does not
//! read, is left out: on a patterned cloth such a cell is as likely a
//! check of the cloth as a card, and a phantom card is as bad as a wrong
//! one.

use arbiter_core::table::{Cell, Table, Token};

use super::finding::Finding;
use super::identify::Identified;

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
    /// Something the players should know about the reading (a calibration
    /// that no longer fits the scene).
    pub note: Option<String>,
}

impl Recognition {
    /// The cells as a table (for the referee); `??` where unread.
    pub fn table(&self) -> Table {
        self.cells.iter().map(|r| (r.cell, r.token)).collect()
    }

    /// One JSON line: `{"image", "busy", "cells": [{"cell", "token",
    /// "confidence"}]}`.
    pub fn to_json(&self, image: &str) -> String {
        let cells: Vec<serde_json::Value> = self
            .cells
            .iter()
            .map(|r| {
                serde_json::json!({
                    "cell": [r.cell.col, r.cell.row],
                    "token": r.token.to_string(),
                    "confidence": (f64::from(r.confidence) * 100.0).round() / 100.0,
                })
            })
            .collect();
        let mut line = serde_json::json!({"image": image, "busy": self.busy, "cells": cells});
        // What the players should know travels with the cells (a program
        // reading the lines sees, say, that some cells are not the
        // board's), only when there is something.
        if let Some(note) = &self.note {
            line["note"] = serde_json::Value::from(note.as_str());
        }
        line.to_string()
    }
}

/// The reading of a frame from its identified cells: busy when the finder
/// saw an arm.
pub fn read(finding: &Finding, cells: &[Identified]) -> Recognition {
    let mut out: Vec<Reading> = Vec::new();
    for c in cells {
        let token = match c.token {
            Some(t) => t,
            None if c.seen_whole => Token::Unreadable,
            None => continue,
        };
        out.push(Reading {
            cell: c.cell,
            token,
            confidence: c.confidence,
        });
    }
    out.sort_by_key(|r| (r.cell.row, r.cell.col));
    Recognition {
        busy: !finding.intruders.is_empty(),
        cells: out,
        note: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::geometry::Quad;

    fn cell(col: i32, token: Option<Token>, seen_whole: bool) -> Identified {
        Identified {
            cell: Cell::new(col, 0),
            quad: Quad([(0.0, 0.0), (1.0, 0.0), (1.0, 1.4), (0.0, 1.4)]),
            token,
            confidence: 0.9,
            seen_whole,
            foreign: 1.0,
        }
    }

    /// A card the finder saw whole but could not name is `??`; a cell only
    /// the lattice vouched for, unnamed, is left out.
    #[test]
    fn unread_cells_are_kept_only_where_a_whole_card_was_seen() {
        let cells = [
            cell(0, Some(Token::Down), false),
            cell(1, None, true),
            cell(2, None, false),
        ];
        let rec = read(&Finding::default(), &cells);
        let got: Vec<(i32, Token)> = rec.cells.iter().map(|r| (r.cell.col, r.token)).collect();
        assert_eq!(got, vec![(0, Token::Down), (1, Token::Unreadable)]);
        assert!(!rec.busy);
        assert_eq!(rec.table().len(), 2);
    }

    /// A reading's note is in its JSON line when it has one, and the key
    /// is absent when it has none.
    #[test]
    fn the_json_line_carries_the_note_when_there_is_one() {
        let mut rec = read(&Finding::default(), &[cell(0, Some(Token::Down), true)]);
        let line: serde_json::Value = serde_json::from_str(&rec.to_json("a.jpg")).unwrap();
        assert_eq!(line["image"], "a.jpg");
        assert!(line.get("note").is_none(), "{line}");
        rec.note = Some("1 card named off the layout's lattice".into());
        let line: serde_json::Value = serde_json::from_str(&rec.to_json("a.jpg")).unwrap();
        assert_eq!(line["note"], "1 card named off the layout's lattice");
        assert_eq!(line["cells"][0]["token"], "##");
    }
}
