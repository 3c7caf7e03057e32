//! The game record as PGN: one SAN move per turn, the drawn card of each turn
//! as a comment after it, and what SAN cannot say (a turn with no move, a
//! Joust effect, a removal, an uncalled check) in the same comment. A turn
//! without a chess move is the null move `--`, which PGN readers accept.
//!
//! DoubleCross moves are not legal chess (either player moves either
//! colour), so the record says `[Variant "DoubleCross"]`; a game whose
//! moves happen to be legal chess reads as such in any chess tool.

use std::fmt::Write as _;

use super::{DoubleCross, PLAYERS};

pub fn pgn(g: &DoubleCross) -> String {
    let result = match g.winner() {
        Some(0) => "1-0",
        Some(_) => "0-1",
        None => "*",
    };
    let mut out = String::new();
    let tags = [
        ("Event", "DoubleCross Chess"),
        ("Site", "arbiter"),
        ("Date", "????.??.??"),
        ("Round", "-"),
        ("White", PLAYERS[0]),
        ("Black", PLAYERS[1]),
        ("Result", result),
        ("Variant", "DoubleCross"),
    ];
    for (k, v) in tags {
        let _ = writeln!(out, "[{k} \"{v}\"]");
    }
    if let Some(fen) = &g.start_fen {
        let _ = writeln!(out, "[SetUp \"1\"]");
        let _ = writeln!(out, "[FEN \"{fen}\"]");
    }
    out.push('\n');

    let mut tokens: Vec<String> = Vec::new();
    let mut number = 1;
    let mut last: Option<usize> = None;
    for entry in g.record_entries() {
        let needs_number = entry.player == 0 || last.is_none() || last == Some(entry.player);
        if needs_number {
            if entry.player == 0 {
                if last.is_some() && last != Some(1) {
                    // Two White turns in a row: Black's is empty.
                    tokens.push(format!("{number}..."));
                    tokens.push("--".into());
                    number += 1;
                }
                tokens.push(format!("{number}."));
            } else {
                tokens.push(format!("{number}..."));
            }
        }
        tokens.push(entry.san.clone().unwrap_or_else(|| "--".into()));
        let mut comment = entry.card.to_string();
        for n in &entry.notes {
            comment.push_str("; ");
            comment.push_str(n);
        }
        // Braces end a PGN comment; none of ours holds one, but be safe.
        let comment = comment.replace(['{', '}'], "");
        tokens.push(format!("{{{comment}}}"));
        if entry.player == 1 {
            number += 1;
        }
        last = Some(entry.player);
    }
    tokens.push(result.into());

    let mut line = String::new();
    for t in tokens {
        if !line.is_empty() && line.len() + 1 + t.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&t);
    }
    out.push_str(&line);
    out.push('\n');
    out
}
