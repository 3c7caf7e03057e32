//! Reading a settled table as an Enochian move (EN-IO-1).
//!
//! The observed board is compared with the board each legal move leaves,
//! as electronic chessboards do, with the steps other armies may still owe
//! (EN-IO-2) allowed either way. What matches none is, in this order: the
//! owed steps made on their own, the previous army changing its mind (or
//! taking its move back), part of a legal move (`incomplete_action`), or
//! one piece's attempt that the rules forbid, explained by the rule it
//! breaks. Anything else is `unexplained`. A table that shows one card
//! moved is that attempt: it reads as part of another move only where that
//! reading asks to mend no square the table left as it was.

use super::rules::{
    self, COLOURS, Move, Sq, TITLES, Unit, army_of, cell_of, enemies, piece_title, roll_allows,
    roll_needs, sq_of, square_name,
};
use super::{Enochian, THRONES};
use crate::event::{EventBody, Flag, FlagKind};
use crate::games::{Verdict, unexplained};
use crate::table::{Card, Cell, Change, Piece, Token};

type Board = [Option<Token>; 64];

pub(super) fn judge(g: &Enochian, changes: &[Change]) -> Verdict<Enochian> {
    let obs = match observed(g, changes) {
        Ok(b) => b,
        Err(f) => return Verdict::Flag(*f),
    };
    let start = shown(g);
    // Owed steps (a returning king, an EN-PRO-3 swap) may still be made
    // after the move that ended the game: they are part of that move.
    if let Some(game) = fulfilled(g, &obs, &start) {
        return Verdict::Advance {
            game,
            events: vec![],
        };
    }
    if let Some(o) = &g.over {
        return Verdict::Flag(unexplained(
            changes,
            "EN-END-3",
            &format!("The game is over ({})", super::outcome_text(o)),
        ));
    }
    if let Some((game, events)) = exact(g, &obs, &start) {
        return Verdict::Advance { game, events };
    }
    if let Some(prev) = &g.snapshot {
        let before = shown(prev);
        if obs == before {
            let mut game = (**prev).clone();
            game.snapshot = None;
            let who = TITLES[prev.acting() as usize];
            return Verdict::Advance {
                game,
                events: vec![rules::notice(
                    "action_taken_back",
                    format!("{who} took the move back; {who} moves again"),
                )],
            };
        }
        if let Some((game, events)) = exact(prev, &obs, &before) {
            // The same move again, its owed steps not yet made (the card of
            // a returning king lifted again): nothing new to announce.
            let again = exact(prev, &shown(g), &before);
            if again
                .is_some_and(|(_, e)| !actions(&e).is_empty() && actions(&e) == actions(&events))
            {
                return Verdict::Advance {
                    game,
                    events: vec![],
                };
            }
            return Verdict::Advance { game, events };
        }
    }
    if let Some(f) = partial(g, &obs, &start, lone_move(&obs, &start)) {
        return Verdict::Flag(f);
    }
    Verdict::Flag(explain(g, &obs, &start))
}

/// The one card the table shows lifted from a square and set down on
/// another, when nothing else changed but cards taken off that other
/// square (a capture's victim): the move the players attempted.
fn lone_move(obs: &Board, start: &Board) -> Option<(Sq, Sq)> {
    let squares: Vec<Sq> = rules::bits(changed(obs, start)).collect();
    let &[a, b] = squares.as_slice() else {
        return None;
    };
    [(a, b), (b, a)].into_iter().find(|&(f, t)| {
        let (was_f, now_f) = (cards(start[f as usize]), cards(obs[f as usize]));
        let (was_t, now_t) = (cards(start[t as usize]), cards(obs[t as usize]));
        let gone: Vec<Card> = was_f
            .iter()
            .copied()
            .filter(|c| !now_f.contains(c))
            .collect();
        let come: Vec<Card> = now_t
            .iter()
            .copied()
            .filter(|c| !was_t.contains(c))
            .collect();
        let [card] = gone.as_slice() else {
            return false;
        };
        come == [*card] && now_f.iter().all(|c| was_f.contains(c))
    })
}

/// The actions among `events`.
fn actions(events: &[EventBody]) -> Vec<&EventBody> {
    events
        .iter()
        .filter(|e| matches!(e, EventBody::Action(_)))
        .collect()
}

fn shown(g: &Enochian) -> Board {
    std::array::from_fn(|s| g.shown_token(s as Sq))
}

/// The board the table shows; cards off the board, face down or of no
/// army are no Enochian table.
fn observed(g: &Enochian, changes: &[Change]) -> Result<Board, Box<Flag>> {
    let mut b = shown(g);
    for c in changes {
        let Some(sq) = sq_of(c.cell) else {
            if c.after.is_some() {
                return Err(Box::new(unexplained(
                    changes,
                    "EN-BRD-1",
                    &format!("A card lies off the 8x8 board at {}", c.cell),
                )));
            }
            continue;
        };
        let ok = match c.after {
            None => true,
            Some(Token::Up(card)) => army_of(card.colour).is_some(),
            Some(Token::Pair(x, y)) => army_of(x.colour).is_some() && army_of(y.colour).is_some(),
            Some(Token::Down) | Some(Token::Unreadable) => false,
        };
        if !ok {
            return Err(Box::new(unexplained(
                changes,
                "EN-BRD-2",
                &format!(
                    "The card on {} is no Enochian piece (blue, red, black or yellow, face up)",
                    square_name(sq)
                ),
            )));
        }
        b[sq as usize] = c.after;
    }
    Ok(b)
}

fn changed(a: &Board, b: &Board) -> u64 {
    (0..64).filter(|&s| a[s] != b[s]).fold(0, |m, s| m | 1 << s)
}

/// The squares a move seen on this table may touch: those that changed,
/// and those where an owed step is still missing (a returning king may
/// move on before it was ever put down).
fn touched(g: &Enochian, obs: &Board, start: &Board) -> u64 {
    g.lag
        .iter()
        .fold(changed(obs, start), |m, &(s, _)| m | 1 << s)
}

/// Owed steps made, and nothing else.
fn fulfilled(g: &Enochian, obs: &Board, start: &Board) -> Option<Enochian> {
    let diff = changed(obs, start);
    if diff == 0 || g.lag.is_empty() {
        return None;
    }
    for s in rules::bits(diff) {
        let owed = g.lag.iter().any(|(ls, _)| *ls == s);
        if !owed || obs[s as usize] != g.pos.token(s) {
            return None;
        }
    }
    let mut game = g.clone();
    game.lag.retain(|(s, _)| diff >> s & 1 == 0);
    Some(game)
}

/// Whether the table shows what `after` leaves, owed steps either way.
fn shows(after: &Enochian, obs: &Board) -> bool {
    (0..64u8).all(|s| {
        let o = obs[s as usize];
        o == after.pos.token(s) || after.lag.iter().any(|&(ls, t)| ls == s && t == o)
    })
}

/// The legal move whose board the table shows.
fn exact(g: &Enochian, obs: &Board, start: &Board) -> Option<(Enochian, Vec<EventBody>)> {
    let diff = touched(g, obs, start);
    for m in g.allowed_moves() {
        if diff >> m.from & 1 == 0 || diff >> m.to & 1 == 0 {
            continue;
        }
        let (mut game, events) = g.play(m);
        if shows(&game, obs) {
            game.lag.retain(|&(s, t)| obs[s as usize] == t);
            return Some((game, events));
        }
    }
    None
}

fn cards(t: Option<Token>) -> Vec<Card> {
    t.map(|t| t.cards().collect()).unwrap_or_default()
}

fn title(c: Card) -> String {
    let a = army_of(c.colour).unwrap_or(0);
    format!("{} {}", TITLES[a as usize], piece_title(c.piece))
}

fn list(cs: &[Card]) -> String {
    cs.iter()
        .map(|&c| title(c))
        .collect::<Vec<_>>()
        .join(" and ")
}

/// What to do on `s` so that it shows `want` instead of `have`.
fn fix(s: Sq, have: Option<Token>, want: Option<Token>) -> String {
    let (h, w) = (cards(have), cards(want));
    let extra: Vec<Card> = h.iter().copied().filter(|c| !w.contains(c)).collect();
    let lack: Vec<Card> = w.iter().copied().filter(|c| !h.contains(c)).collect();
    let sq = square_name(s);
    match (extra.is_empty(), lack.is_empty()) {
        (false, true) => format!("take the {} off {sq}", list(&extra)),
        (true, false) => format!("put the {} on {sq}", list(&lack)),
        (false, false) => format!(
            "replace the {} on {sq} with the {}",
            list(&extra),
            list(&lack)
        ),
        (true, true) => format!("set {sq} right"),
    }
}

/// The mover's card before the move and after it (a promotion).
fn mover_cards(g: &Enochian, m: Move) -> (Card, Card) {
    let before = g
        .pos
        .unit(m.from, m.kind)
        .map(|u| u.card())
        .unwrap_or(Card::new(COLOURS[0], m.kind));
    let now = m.promo.map_or(before, |k| Card::new(before.colour, k));
    (before, now)
}

/// A legal move carried out only in part: its removals or card swaps (or
/// the steps owed from the last move) are missing.
///
/// A table that shows one card moved (`lone`, see [`lone_move`]) is that
/// attempted move: it is read as another legal move, carried out in part,
/// only if that reading asks to mend no square the table left as it was.
/// Such a reading explains one card moved as a move nobody made plus the
/// steps still missing from it, and would send the players to cards they
/// never touched; the attempt itself, legal in part or forbidden, names
/// the one card to mend.
fn partial(g: &Enochian, obs: &Board, start: &Board, lone: Option<(Sq, Sq)>) -> Option<Flag> {
    let diff = touched(g, obs, start);
    let mut best: Option<(usize, Move, Vec<Sq>, bool)> = None;
    for m in g.allowed_moves() {
        if diff >> m.from & 1 == 0 && diff >> m.to & 1 == 0 {
            continue;
        }
        let (after, _) = g.play(m);
        let (card, now) = mover_cards(g, m);
        let at_to = cards(obs[m.to as usize]);
        if !at_to.contains(&card) && !at_to.contains(&now) {
            continue;
        }
        let mut missing = Vec::new();
        let mut ok = true;
        let mut owed = false;
        // A square the table left as it was, still to mend.
        let mut untouched = false;
        for s in 0..64u8 {
            let (o, r) = (obs[s as usize], after.pos.token(s));
            if o == r || after.lag.iter().any(|&(ls, t)| ls == s && t == o) {
                continue;
            }
            if o == start[s as usize] {
                missing.push(s);
                owed |= g.lag.iter().any(|(ls, _)| *ls == s);
                untouched = true;
                continue;
            }
            if r == start[s as usize] {
                ok = false;
                break;
            }
            // On the way from the start to the result: what both keep is
            // still there, and nothing else has come.
            let (was, will, now) = (cards(start[s as usize]), cards(r), cards(o));
            let kept = was
                .iter()
                .filter(|c| will.contains(c))
                .all(|c| now.contains(c));
            let mut allowed = was.clone();
            allowed.extend(will);
            if s == m.to {
                allowed.push(card);
            }
            if kept && now.iter().all(|c| allowed.contains(c)) {
                missing.push(s);
            } else {
                ok = false;
                break;
            }
        }
        let another = lone.is_some_and(|(f, t)| (m.from, m.to) != (f, t));
        if another && untouched {
            continue;
        }
        if ok && !missing.is_empty() && best.as_ref().is_none_or(|(n, ..)| missing.len() < *n) {
            best = Some((missing.len(), m, missing, owed));
        }
    }
    let (_, m, missing, owed) = best?;
    let (after, _) = g.play(m);
    let fixes: Vec<String> = missing
        .iter()
        .map(|&s| fix(s, obs[s as usize], after.pos.token(s)))
        .collect();
    let mover = g.pos.unit(m.from, m.kind).map_or_else(
        || piece_title(m.kind).to_string(),
        |u| format!("{}'s {}", TITLES[u.army as usize], piece_title(u.kind)),
    );
    let mut cells = vec![cell_of(m.from), cell_of(m.to)];
    for &s in &missing {
        let c = cell_of(s);
        if !cells.contains(&c) {
            cells.push(c);
        }
    }
    let message = if owed {
        format!(
            "{mover} moved {}–{}, but the last move's owed step is not made (EN-IO-2): {}",
            square_name(m.from),
            square_name(m.to),
            fixes.join(", ")
        )
    } else {
        format!(
            "{mover} {}–{} is not finished: {}",
            square_name(m.from),
            square_name(m.to),
            fixes.join(", ")
        )
    };
    Some(Flag {
        kind: FlagKind::IncompleteAction,
        cells,
        rule: if owed { "EN-IO-2" } else { "EN-IO-1" }.into(),
        message,
        player: Some(rules::NAMES[g.acting() as usize].into()),
        squares: vec![],
    })
}

/// The changes in plain words, to put back.
fn put_back(obs: &Board, start: &Board) -> String {
    rules::bits(changed(obs, start))
        .map(|s| fix(s, obs[s as usize], start[s as usize]))
        .collect::<Vec<_>>()
        .join(", ")
}

fn generic(obs: &Board, start: &Board, why: &str) -> Flag {
    let cells: Vec<Cell> = rules::bits(changed(obs, start)).map(cell_of).collect();
    let mut cells = cells;
    cells.sort();
    Flag {
        kind: FlagKind::Unexplained,
        cells,
        rule: "EN-IO-1".into(),
        message: format!("{why}: {}", put_back(obs, start)),
        player: None,
        squares: vec![],
    }
}

/// One piece's attempt, explained; anything else is `unexplained`.
fn explain(g: &Enochian, obs: &Board, start: &Board) -> Flag {
    let mut vanished: Vec<(Sq, Card)> = Vec::new();
    let mut appeared: Vec<(Sq, Card)> = Vec::new();
    for s in 0..64u8 {
        let (b, a) = (cards(start[s as usize]), cards(obs[s as usize]));
        let mut rest = a.clone();
        for c in &b {
            match rest.iter().position(|x| x == c) {
                Some(i) => {
                    rest.remove(i);
                }
                None => vanished.push((s, *c)),
            }
        }
        appeared.extend(rest.into_iter().map(|c| (s, c)));
    }
    let same: Vec<(Sq, Sq, Card, Card)> = appeared
        .iter()
        .flat_map(|&(t, c2)| {
            vanished
                .iter()
                .filter(move |&&(f, c1)| f != t && c1 == c2)
                .map(move |&(f, c1)| (f, t, c1, c2))
        })
        .collect();
    let promoted: Vec<(Sq, Sq, Card, Card)> = appeared
        .iter()
        .flat_map(|&(t, c2)| {
            vanished
                .iter()
                .filter(move |&&(f, c1)| {
                    f != t
                        && c1.colour == c2.colour
                        && c1.piece == Piece::Pawn
                        && c2.piece != Piece::Pawn
                })
                .map(move |&(f, c1)| (f, t, c1, c2))
        })
        .collect();
    let moves = if same.is_empty() { promoted } else { same };
    match moves.as_slice() {
        [] if appeared.is_empty() => {
            generic(obs, start, "Pieces left the board with no move taking them")
        }
        [] => generic(obs, start, "A card appeared that no move explains"),
        [(f, t, c1, c2)] => {
            let u = g
                .pos
                .units_at(*f)
                .find(|u| u.card() == *c1)
                .or_else(|| g.pos.units_at(*f).next());
            match u {
                Some(u) => violation(g, *f, *t, u, *c2, obs, start),
                None => generic(obs, start, "The table does not match the game"),
            }
        }
        _ => generic(obs, start, "More than one piece moved"),
    }
}

fn flag(kind: FlagKind, rule: &str, cells: Vec<Cell>, message: String, player: u8) -> Flag {
    Flag {
        kind,
        cells,
        rule: rule.into(),
        message,
        player: Some(rules::NAMES[player as usize].into()),
        squares: vec![],
    }
}

/// Why `u`'s move from `f` to `t` (showing `shown` there) is not a legal
/// move now.
fn violation(g: &Enochian, f: Sq, t: Sq, u: Unit, shown: Card, obs: &Board, start: &Board) -> Flag {
    let a = g.acting();
    let who = format!("{}'s {}", TITLES[u.colour as usize], piece_title(u.kind));
    let cells = vec![cell_of(f), cell_of(t)];
    let (fs, ts) = (square_name(f), square_name(t));
    let mut mend = format!("put it back on {fs}");
    for s in rules::bits(changed(obs, start)) {
        if s != f && s != t || s == t && !cards(start[t as usize]).is_empty() {
            let lost: Vec<Card> = cards(start[s as usize])
                .into_iter()
                .filter(|c| !cards(obs[s as usize]).contains(c))
                .collect();
            if !lost.is_empty() {
                mend += &format!(" and the {} back on {}", list(&lost), square_name(s));
            }
        }
    }
    let ill = |rule: &str, why: String| {
        flag(
            FlagKind::IllegalMove,
            rule,
            cells.clone(),
            format!("{who} {why} ({rule}): {mend}"),
            u.army,
        )
    };
    if g.pos.frozen(u.army) {
        let why = match g.pos.armies[u.army as usize].king {
            rules::KingState::Prisoner(c) => {
                format!("its king is {}'s prisoner", TITLES[c as usize])
            }
            _ => "its army is frozen".into(),
        };
        return ill(
            "EN-FRZ-1",
            format!("cannot move: {} is frozen ({why})", TITLES[u.army as usize]),
        );
    }
    if u.army != a {
        if g.stale_skipped >> u.army & 1 == 1 {
            return ill(
                "EN-STM-2",
                format!(
                    "cannot move: {} is stalemated and skips this turn; {} moves now",
                    TITLES[u.army as usize], TITLES[a as usize]
                ),
            );
        }
        return flag(
            FlagKind::WrongPlayer,
            "EN-BRD-4",
            cells,
            format!(
                "It is {}'s turn, not {}'s: {mend}",
                TITLES[a as usize], TITLES[u.army as usize]
            ),
            u.army,
        );
    }
    if g.awaits_roll() {
        return ill(
            "EN-DIV-1",
            "moved before the die was rolled; roll first".into(),
        );
    }
    let m = g.pos.masks();
    let mut pseudo = Vec::new();
    g.pos.piece_moves(&m, a, f, u, &mut pseudo);
    let at_t = cards(obs[t as usize]);
    let joining = at_t.len() == 2
        && cards(start[t as usize])
            .iter()
            .any(|c| at_t.contains(c) && *c != shown);
    if let Some(pm) = pseudo.iter().find(|pm| pm.to == t && pm.join == joining) {
        if u.kind == Piece::King {
            let checkers = m.kind[a as usize][Piece::King as usize].trailing_zeros();
            let checkers = if checkers < 64 {
                g.pos.attackers(&m, checkers as Sq, a)
            } else {
                0
            };
            if !g.pos.king_move_ok(a, *pm, checkers) {
                let after = g.pos.apply(a, *pm, &mut rules::Sink::off()).pos;
                let am = after.masks();
                let att: Vec<String> = rules::bits(after.attackers(&am, t, a))
                    .map(|s| {
                        let name = after.main[s as usize]
                            .map(|v| {
                                format!("{} {}", TITLES[v.colour as usize], piece_title(v.kind))
                            })
                            .unwrap_or_default();
                        format!("the {name} on {}", square_name(s))
                    })
                    .collect();
                let why = if checkers == 0 {
                    format!(
                        "cannot go to {ts}: it would be attacked by {}",
                        att.join(" and ")
                    )
                } else {
                    format!(
                        "cannot go to {ts}: it would still be attacked by {}, which gives check",
                        att.join(" and ")
                    )
                };
                return ill("EN-CHK-2", why);
            }
        } else if g.pos.forced_king(a) {
            return flag(
                FlagKind::ForcedKingMove,
                "EN-CHK-3",
                cells,
                format!(
                    "{}'s king is in check and can move, so only the king may move (EN-CHK-3): {mend}",
                    TITLES[a as usize]
                ),
                a,
            );
        }
        if u.kind == Piece::Pawn {
            let options = g.pos.promotions(a, f, t, u);
            let got = (shown.piece != Piece::Pawn).then_some(shown.piece);
            let right_colour = shown.colour == u.card().colour;
            if !right_colour || !options.contains(&got) {
                let (rule, why) = match options.as_slice() {
                    [None] => (
                        "EN-PRO-2",
                        format!(
                            "reaches {ts} but waits there as a pawn: {} has four pawns or more",
                            TITLES[a as usize]
                        ),
                    ),
                    [Some(k)] if rules::is_throne(t) => (
                        "EN-PRO-4",
                        format!("promotes on the throne square {ts} to a knight, not a {}", piece_title(shown.piece)),
                    ),
                    [Some(k)] => (
                        "EN-PRO-4",
                        format!(
                            "promotes on {ts} to its patron's type, a {}; the card shows a {}",
                            piece_title(*k),
                            piece_title(shown.piece)
                        ),
                    ),
                    _ => (
                        "EN-PRO-5",
                        "promotes (privileged) to a queen, rook, bishop or knight of its own colour".to_string(),
                    ),
                };
                let mend = format!("{mend}, or show the right card on {ts}");
                return flag(
                    FlagKind::IllegalMove,
                    rule,
                    cells,
                    format!("{who} {why} ({rule}): {mend}"),
                    a,
                );
            }
        }
        if let Some(r) = g.roll
            && g.opts.divination
            && !roll_allows(r, u.kind)
        {
            return flag(
                FlagKind::DivinationMismatch,
                "EN-DIV-1",
                cells,
                format!(
                    "{} rolled {r}: a {} must move, not the {} (EN-DIV-1): {mend}",
                    TITLES[a as usize],
                    roll_needs(r),
                    piece_title(u.kind)
                ),
                a,
            );
        }
        let mut cells = cells;
        let (after, _) = g.play(*pm);
        for s in 0..64u8 {
            if obs[s as usize] != after.pos.token(s) && !cells.contains(&cell_of(s)) {
                cells.push(cell_of(s));
            }
        }
        return Flag {
            kind: FlagKind::Unexplained,
            cells,
            rule: "EN-IO-1".into(),
            message: format!(
                "{who} {fs}–{ts} is legal, but the table differs from it elsewhere: {}",
                put_back(obs, start)
            ),
            player: Some(rules::NAMES[a as usize].into()),
            squares: vec![],
        };
    }
    let (rule, why) = geometry(g, a, f, t, u, joining);
    ill(rule, why)
}

/// The rule an impossible move breaks, and why, in words.
fn geometry(g: &Enochian, a: u8, f: Sq, t: Sq, u: Unit, joining: bool) -> (&'static str, String) {
    let (ff, fr) = ((f % 8) as i8, (f / 8) as i8);
    let (tf, tr) = ((t % 8) as i8, (t / 8) as i8);
    let (df, dr) = (tf - ff, tr - fr);
    let (adf, adr) = (df.abs(), dr.abs());
    let (fs, ts) = (square_name(f), square_name(t));
    let shape = match u.kind {
        Piece::King => adf.max(adr) == 1,
        Piece::Knight => (adf, adr) == (1, 2) || (adf, adr) == (2, 1),
        Piece::Queen => matches!((adf, adr), (2, 0) | (0, 2) | (2, 2)),
        Piece::Rook => df == 0 || dr == 0,
        Piece::Bishop => adf == adr,
        Piece::Pawn => {
            (df, dr) == rules::FORWARD[u.army as usize]
                || rules::pawn_captures(u.army).contains(&(df, dr))
        }
    };
    if !shape {
        return match u.kind {
            Piece::King => (
                "EN-MOV-1",
                format!("cannot go from {fs} to {ts}: a king steps one square"),
            ),
            Piece::Queen => (
                "EN-MOV-2",
                format!(
                    "cannot go from {fs} to {ts}: a queen leaps exactly two squares, straight or diagonal, never one and never farther"
                ),
            ),
            Piece::Rook => (
                "EN-MOV-3",
                format!("cannot go from {fs} to {ts}: a rook moves along a rank or a file"),
            ),
            Piece::Bishop => (
                "EN-MOV-3",
                format!("cannot go from {fs} to {ts}: a bishop moves diagonally"),
            ),
            Piece::Knight => (
                "EN-MOV-3",
                format!(
                    "cannot go from {fs} to {ts}: a knight leaps two squares one way and one the other"
                ),
            ),
            Piece::Pawn => (
                "EN-MOV-4",
                format!(
                    "cannot go from {fs} to {ts}: a {} pawn steps one square {} and captures one square diagonally forward",
                    TITLES[u.army as usize],
                    ["north", "west", "south", "east"][u.army as usize]
                ),
            ),
        };
    }
    if matches!(u.kind, Piece::Rook | Piece::Bishop) {
        let (sf, sr) = (df.signum(), dr.signum());
        let mut s = f;
        while let Some(n) = rules::step(s, sf, sr) {
            if n == t {
                break;
            }
            s = n;
            if g.pos.main[s as usize].is_some() {
                return (
                    "EN-MOV-3",
                    format!(
                        "cannot go from {fs} to {ts}: the way is blocked on {}",
                        square_name(s)
                    ),
                );
            }
        }
    }
    let target: Vec<Unit> = g.pos.units_at(t).collect();
    if u.kind == Piece::Pawn {
        let forward = (df, dr) == rules::FORWARD[u.army as usize];
        if forward && !target.is_empty() {
            return (
                "EN-MOV-4",
                format!("cannot step onto {ts}: a pawn steps only onto an empty square"),
            );
        }
        if !forward && target.is_empty() {
            return (
                "EN-MOV-4",
                format!("cannot go to {ts}: a pawn moves diagonally only to capture"),
            );
        }
    }
    let frozen_name = |v: Unit| format!("{} {}", TITLES[v.colour as usize], piece_title(v.kind));
    match target.as_slice() {
        [] => ("EN-IO-1", format!("cannot end on {ts} as the table shows")),
        [k, _] => {
            if g.pos.frozen(k.army) {
                (
                    "EN-MOV-5",
                    format!("cannot capture the frozen pieces on {ts}"),
                )
            } else if joining {
                (
                    "EN-THR-1",
                    format!("cannot join {ts}: a throne holds at most two pieces"),
                )
            } else if k.army == rules::ally(a) {
                (
                    "EN-CTL-2",
                    format!("cannot take the allied king on {ts}: not while it shares its throne"),
                )
            } else {
                (
                    "EN-MOV-5",
                    format!("cannot capture the friendly pieces on {ts}"),
                )
            }
        }
        [v] => {
            let v = *v;
            if g.pos.frozen(v.army) {
                return (
                    "EN-MOV-5",
                    format!("cannot capture the frozen {} on {ts}", frozen_name(v)),
                );
            }
            if enemies(v.army, a) {
                if joining {
                    return (
                        "EN-THR-1",
                        format!("cannot share {ts} with an enemy piece: capture it or stay away"),
                    );
                }
                let why = match (u.kind, v.kind) {
                    (Piece::Queen, Piece::Queen) => "a queen never captures a queen".to_string(),
                    (Piece::Bishop, Piece::Bishop) => {
                        "a bishop never captures a bishop (except in a concourse)".to_string()
                    }
                    _ => format!(
                        "a queen and a bishop capture each other only on the same network ({} against {})",
                        rules::network_name(f),
                        rules::network_name(t)
                    ),
                };
                return (
                    "EN-MOV-6",
                    format!("cannot capture the {} on {ts}: {why}", frozen_name(v)),
                );
            }
            if v.kind == Piece::King {
                if joining {
                    if u.kind == Piece::King {
                        return ("EN-THR-3", "never moves onto a friendly piece".into());
                    }
                    if u.kind == Piece::Pawn {
                        return (
                            "EN-THR-3",
                            format!("cannot join the king on {ts}: pawns never share a throne"),
                        );
                    }
                    if !THRONES[v.army as usize].contains(&t) {
                        return (
                            "EN-THR-1",
                            format!(
                                "cannot join the king on {ts}: two pieces share only a throne of that king"
                            ),
                        );
                    }
                    return ("EN-THR-3", format!("cannot join the king on {ts} now"));
                }
                if v.army == rules::ally(a) {
                    let why = if !g.opts.four() {
                        "an allied king is taken only in four-player games"
                    } else {
                        "an allied king is taken only while it is in check"
                    };
                    return (
                        "EN-CTL-2",
                        format!("cannot take the allied king on {ts}: {why}"),
                    );
                }
                return ("EN-MOV-5", format!("cannot capture its own king on {ts}"));
            }
            if joining && u.kind == Piece::King {
                return (
                    "EN-THR-3",
                    format!(
                        "cannot move onto the friendly {} on {ts}: a king never moves onto a friendly piece",
                        frozen_name(v)
                    ),
                );
            }
            if joining {
                return (
                    "EN-THR-1",
                    format!("cannot share {ts}: two pieces share only a king's own throne"),
                );
            }
            (
                "EN-MOV-5",
                format!("cannot land on the friendly {} on {ts}", frozen_name(v)),
            )
        }
        _ => ("EN-IO-1", format!("cannot end on {ts}")),
    }
}
