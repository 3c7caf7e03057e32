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

    // PGN alternates White and Black; a player with two turns in a row
    // (Save King used on one's own King) gets a null move between them.
    let mut plies: Vec<(String, String)> = Vec::new();
    let mut last: Option<usize> = None;
    for entry in g.record_entries() {
        if last == Some(entry.player) {
            plies.push(("--".into(), "no turn".into()));
        }
        let mut comment = entry.card.to_string();
        for n in &entry.notes {
            comment.push_str("; ");
            comment.push_str(n);
        }
        plies.push((entry.san.clone().unwrap_or_else(|| "--".into()), comment));
        last = Some(entry.player);
    }
    let first = g.record_entries().first().map_or(0, |e| e.player);
    let mut tokens: Vec<String> = Vec::new();
    for (k, (san, comment)) in plies.into_iter().enumerate() {
        let ply = k + first;
        let number = ply / 2 + 1;
        if ply.is_multiple_of(2) {
            tokens.push(format!("{number}."));
        } else if k == 0 {
            tokens.push(format!("{number}..."));
        }
        tokens.push(san);
        // Braces end a PGN comment; none of ours holds one, but be safe.
        tokens.push(format!("{{{}}}", comment.replace(['{', '}'], "")));
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
