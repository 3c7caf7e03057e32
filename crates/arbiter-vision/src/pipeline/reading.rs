//! Reading: the cells, their cards or `??`, and whether the frame is busy.
//!
//! A cell is reported when its card was named, or when the finder saw a
//! whole card outline there that could not be named (`??`: the referee
//! waits). A cell only the lattice and occupancy vouch for, that does not
//! read, is left out: on a patterned cloth such a cell is as likely a
//! check of the cloth as a card, and a phantom card is as bad as a wrong
//! one.

use arbiter_core::table::Token;

use super::finding::Finding;
use super::identify::Identified;
use crate::recognise::{Reading, Recognition};

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
