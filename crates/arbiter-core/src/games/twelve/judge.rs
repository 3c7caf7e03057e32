//! Reading a settled table as a Twelve action (TW-10).
//!
//! The referee hands over the changes in the board's frame (whole-table
//! shifts are already aligned away). They are classified as TW-10.1 lists:
//! one new piece (a placement, or a Pawn placed and stepped), one piece
//! relocated (a move), King and Rook swapped (the exchange), a new Bishop
//! and one piece gone (a Bishop entry with its send-back), a Queen gone (a
//! removal). The attempt is then checked by the rules, which explain what
//! is illegal. Queens out of the game that still lie on the table come
//! first: nothing else is judged until they are taken off (TW-8.3).

use super::{Action, ORIENTATIONS, Phase, SIDES, Twelve, action_event, list, side_of, title};
use crate::event::ActionKind;
use crate::event::{EventBody, Flag, FlagKind};
use crate::games::{Reading, Verdict, unexplained};
use crate::table::{Card, Cell, Change, Piece, Token};

use super::rules::Violation;

pub(super) fn judge(g: &Twelve, changes: &[Change]) -> Verdict<Twelve> {
    if let Some(f) = foreign(changes) {
        return Verdict::Flag(f);
    }
    if g.over.is_some() {
        let why = format!("The game is over ({})", g.result_text().unwrap_or_default());
        return Verdict::Flag(unexplained(changes, "TW-9.1", &why));
    }
    if g.fresh {
        return judge_start(g, changes);
    }
    judge_removals(g, changes)
}

fn flag_of(v: Violation) -> Flag {
    Flag {
        kind: v.kind,
        cells: v.cells,
        rule: v.rule.into(),
        message: v.message,
        player: Some(SIDES[v.side].name().into()),
        squares: vec![],
    }
}

fn advance((game, events): (Twelve, Vec<EventBody>)) -> Verdict<Twelve> {
    Verdict::Advance { game, events }
}

fn verdict_of(mut readings: Vec<Reading<Twelve>>) -> Verdict<Twelve> {
    if readings.len() == 1 {
        let r = readings.remove(0);
        Verdict::Advance {
            game: r.game,
            events: r.events,
        }
    } else {
        Verdict::Ambiguous(readings)
    }
}

fn readings_of(v: Verdict<Twelve>) -> Result<Vec<Reading<Twelve>>, Box<Flag>> {
    match v {
        Verdict::Advance { game, events } => Ok(vec![Reading { game, events }]),
        Verdict::Ambiguous(rs) => Ok(rs),
        Verdict::Flag(f) => Err(Box::new(f)),
    }
}

/// A card Twelve does not use: face-down, unreadable, or of another colour.
fn foreign(changes: &[Change]) -> Option<Flag> {
    let cells: Vec<Cell> = changes
        .iter()
        .filter(|c| match c.after {
            Some(Token::Up(card)) => side_of(card.colour).is_none(),
            Some(_) => true,
            None => false,
        })
        .map(|c| c.cell)
        .collect();
    if cells.is_empty() {
        return None;
    }
    Some(Flag {
        kind: FlagKind::Unexplained,
        message: format!(
            "Twelve is played with face-up White and Black piece cards only: take away the card at {}",
            list(&cells)
        ),
        cells,
        rule: "TW-1.1".into(),
        player: None,
        squares: vec![],
    })
}

/// The first table of a standard game: the two Kings side by side, in any
/// orientation (house rule), perhaps with White's first action already
/// taken. A table no orientation explains is a wrong start.
fn judge_start(g: &Twelve, changes: &[Change]) -> Verdict<Twelve> {
    let mut observed = g.table();
    for c in changes {
        observed.set(c.cell, c.after);
    }
    let find = |card: Card| -> Vec<Cell> {
        observed
            .iter()
            .filter(|&(_, t)| t == Token::Up(card))
            .map(|(c, _)| c)
            .collect()
    };
    // White's first action never moves the Black King, so it anchors the
    // comparison; failing that, the White King.
    let blacks = find(Card::new(SIDES[1], Piece::King));
    let whites = find(Card::new(SIDES[0], Piece::King));
    let starts: Vec<Twelve> = match (&blacks[..], &whites[..]) {
        (&[b], _) => ORIENTATIONS
            .iter()
            .map(|&o| Twelve::oriented(g.opts, o).shifted(b.minus(o)))
            .collect(),
        (_, &[w]) => ORIENTATIONS
            .iter()
            .map(|&o| Twelve::oriented(g.opts, o).shifted(w))
            .collect(),
        _ => vec![Twelve::oriented(g.opts, ORIENTATIONS[0])],
    };
    // The Kings turned from the default may be the first table set up that
    // way, or (when the default start was already seen unchanged, which the
    // referee does not report) White's King stepping beside the Black King:
    // both readings stand, the start first, until the next table shows
    // whose turn it is. A start turned another way was never seen (it
    // would have been judged), so with it only a placement may already be
    // on the table. Every reading is put in the frame where the start's
    // White King stands on (0,0), as the spec counts cells.
    let home = |start: &Twelve| {
        Cell::default().minus(start.pos.cell_of(0, Piece::King).unwrap_or_default())
    };
    let mut readings: Vec<Reading<Twelve>> = starts
        .iter()
        .find(|s| s.table().diff_count(&observed, Cell::default(), 0) == 0)
        .map(|s| Reading {
            game: s.shifted(home(s)),
            events: vec![],
        })
        .into_iter()
        .collect();
    let placed = |r: &Reading<Twelve>| {
        !r.events.iter().any(
            |e| matches!(e, EventBody::Action(a) if a.action == ActionKind::Move || a.action == ActionKind::RookSwap),
        )
    };
    let mut closest: Option<(usize, Vec<Change>, Flag)> = None;
    for (k, start) in starts.iter().enumerate() {
        let diff = start.table().diff(&observed, Cell::default());
        if diff.is_empty() {
            continue;
        }
        let turned = k > 0;
        match readings_of(judge_removals(start, &diff)) {
            Err(f) => {
                if closest.as_ref().is_none_or(|(n, _, _)| diff.len() < *n) {
                    closest = Some((diff.len(), diff, *f));
                }
            }
            Ok(rs) => {
                let d = home(start);
                for r in rs {
                    if turned && !placed(&r) {
                        continue;
                    }
                    let r = Reading {
                        game: r.game.shifted(d),
                        events: r.events.iter().map(|e| shifted_event(e, d)).collect(),
                    };
                    if !readings.iter().any(|x| x.game == r.game) {
                        readings.push(r);
                    }
                }
            }
        }
    }
    if !readings.is_empty() {
        return verdict_of(readings);
    }
    // With the Kings set up right, a first action the rules forbid is
    // named as such; otherwise the start itself is wrong.
    let kings_set =
        matches!((&blacks[..], &whites[..]), (&[b], &[w]) if ORIENTATIONS.contains(&b.minus(w)));
    match closest {
        Some((_, _, f)) if kings_set && f.kind != FlagKind::Unexplained => Verdict::Flag(f),
        Some((_, diff, _)) if kings_set => Verdict::Flag(wrong_start(&diff)),
        _ => Verdict::Flag(wrong_start(changes)),
    }
}

/// An event with its cells moved by `d`.
fn shifted_event(e: &EventBody, d: Cell) -> EventBody {
    let mut e = e.clone();
    if let EventBody::Action(a) = &mut e {
        a.from = a.from.map(|c| c.plus(d));
        a.to = a.to.map(|c| c.plus(d));
    }
    e
}

fn wrong_start(diff: &[Change]) -> Flag {
    let cells: Vec<Cell> = diff.iter().map(|c| c.cell).collect();
    Flag {
        kind: FlagKind::Unexplained,
        message: format!(
            "The game starts with the White King and the Black King on cells sharing a side and nothing else: the cards at {} differ; set up the start",
            list(&cells)
        ),
        cells,
        rule: "TW-2.1".into(),
        player: None,
        squares: vec![],
    }
}

/// Queens out of the game whose cards still lie on the table (TW-8.3): a
/// table with them taken off announces the removal and judges the rest;
/// any other change while one is still there is a missing removal.
fn judge_removals(g: &Twelve, changes: &[Change]) -> Verdict<Twelve> {
    let lingering: Vec<(usize, Cell)> = (0..2)
        .filter_map(|s| g.lingering[s].map(|c| (s, c)))
        .collect();
    if lingering.is_empty() {
        return judge_action(g, changes);
    }
    let mut game = g.clone();
    let mut events = Vec::new();
    let mut rest: Vec<Change> = changes.to_vec();
    let mut still: Vec<(Card, Cell)> = Vec::new();
    for (s, c) in lingering {
        let queen = Card::new(SIDES[s], Piece::Queen);
        let elsewhere = changes
            .iter()
            .find(|ch| ch.after == Some(Token::Up(queen)) && ch.cell != c)
            .map(|ch| ch.cell);
        match rest.iter().position(|ch| ch.cell == c) {
            Some(i) if elsewhere.is_none() => {
                // What else lies there now is judged as if the cell had
                // been empty.
                if rest[i].after.is_none() {
                    rest.remove(i);
                } else {
                    rest[i].before = None;
                }
                game.lingering[s] = None;
                events.push(action_event(
                    s,
                    ActionKind::RemoveQueen,
                    queen,
                    Some(c),
                    None,
                ));
            }
            _ => still.push((queen, elsewhere.unwrap_or(c))),
        }
    }
    if rest.is_empty() {
        return Verdict::Advance { game, events };
    }
    if !still.is_empty() {
        return Verdict::Flag(missing_removal(g, &still));
    }
    match judge_action(&game, &rest) {
        Verdict::Advance {
            game,
            events: mut more,
        } => {
            events.append(&mut more);
            Verdict::Advance { game, events }
        }
        Verdict::Ambiguous(rs) => Verdict::Ambiguous(
            rs.into_iter()
                .map(|r| Reading {
                    game: r.game,
                    events: [events.clone(), r.events].concat(),
                })
                .collect(),
        ),
        flag => flag,
    }
}

fn missing_removal(g: &Twelve, still: &[(Card, Cell)]) -> Flag {
    let names = still
        .iter()
        .map(|&(q, c)| format!("the {} at {c}", title(q)))
        .collect::<Vec<_>>()
        .join(" and ");
    let (was, is, it) = if still.len() == 1 {
        ("was", "is", "it")
    } else {
        ("were", "are", "them")
    };
    Flag {
        kind: FlagKind::MissingRemoval,
        cells: still.iter().map(|&(_, c)| c).collect(),
        rule: "TW-8.3".into(),
        message: format!(
            "{}{} {was} surrounded at the end of the last turn and {is} out of the game (TW-8.1): take {it} off the table before {} acts",
            names[..1].to_uppercase(),
            &names[1..],
            SIDES[g.to_move].title()
        ),
        player: Some(SIDES[g.to_move].name().into()),
        squares: vec![],
    }
}

/// An action, perhaps with the Queens it surrounded already taken off in
/// the same table.
fn judge_action(g: &Twelve, changes: &[Change]) -> Verdict<Twelve> {
    let first = attempt(g, changes);
    if !matches!(first, Verdict::Flag(_)) {
        return first;
    }
    let queens: Vec<usize> = (0..changes.len())
        .filter(|&i| {
            matches!(changes[i].before, Some(Token::Up(c)) if c.piece == Piece::Queen)
                && changes[i].after.is_none()
        })
        .collect();
    let mut fallback: Option<Flag> = None;
    // Every way of taking Queens off that explains the table: two Queens
    // gone with a Bishop's entry may each be the one sent back, the other
    // the one surrounded; later tables tell the readings apart.
    let mut all: Vec<Reading<Twelve>> = Vec::new();
    for mask in 1..(1usize << queens.len()) {
        let taken: Vec<Change> = (0..queens.len())
            .filter(|b| mask & (1 << b) != 0)
            .map(|b| changes[queens[b]])
            .collect();
        let stripped: Vec<Change> = changes
            .iter()
            .filter(|c| !taken.contains(c))
            .copied()
            .collect();
        if stripped.is_empty() {
            continue;
        }
        let readings = match readings_of(attempt(g, &stripped)) {
            Ok(rs) => rs,
            Err(f) => {
                fallback.get_or_insert(*f);
                continue;
            }
        };
        let survivors: Vec<Reading<Twelve>> = readings
            .into_iter()
            .filter_map(|r| take_off(r, &taken))
            .collect();
        if survivors.is_empty() {
            fallback.get_or_insert_with(|| not_surrounded(g, &taken));
        }
        all.extend(survivors);
    }
    if !all.is_empty() {
        return verdict_of(all);
    }
    match (first, fallback) {
        (Verdict::Flag(f), Some(better)) if f.kind == FlagKind::Unexplained => {
            Verdict::Flag(better)
        }
        (first, _) => first,
    }
}

/// The reading with the Queens of `taken` off the table, if the action it
/// read put them out of the game (or ended it with them surrounded).
fn take_off(mut r: Reading<Twelve>, taken: &[Change]) -> Option<Reading<Twelve>> {
    // White's first, as the end of a turn lists them.
    let mut taken = taken.to_vec();
    taken.sort_by_key(|c| c.before.and_then(Token::card).map(|q| q.colour));
    for ch in &taken {
        let Some(Token::Up(queen)) = ch.before else {
            return None;
        };
        let s = side_of(queen.colour)?;
        let g = &mut r.game;
        if g.lingering[s] == Some(ch.cell) {
            g.lingering[s] = None;
        } else if g.over.is_some()
            && g.pos.cell_of(s, Piece::Queen) == Some(ch.cell)
            && g.surrounded(&g.pos, ch.cell)
        {
            // Victory came first (TW-9.3); tidying the Queen away is no fault.
            g.pos.set(s, Piece::Queen, super::Spot::Out);
        } else {
            return None;
        }
        r.events.push(action_event(
            s,
            ActionKind::RemoveQueen,
            queen,
            Some(ch.cell),
            None,
        ));
    }
    Some(r)
}

fn not_surrounded(g: &Twelve, taken: &[Change]) -> Flag {
    let cells: Vec<Cell> = taken.iter().map(|c| c.cell).collect();
    let names = taken
        .iter()
        .filter_map(|c| c.before.and_then(Token::card))
        .map(title)
        .collect::<Vec<_>>()
        .join(" and ");
    Flag {
        kind: FlagKind::IllegalMove,
        message: format!(
            "Only a Queen surrounded at the end of a turn leaves the game (TW-8.1), and the {names} is not: put it back on {}",
            list(&cells)
        ),
        cells,
        rule: "TW-8.3".into(),
        player: Some(SIDES[g.to_move].name().into()),
        squares: vec![],
    }
}

/// Cards and the cells they lie on.
type Cards = Vec<(Cell, Card)>;

/// The cards that appeared and vanished.
fn split(changes: &[Change]) -> (Cards, Cards) {
    let mut appeared = Vec::new();
    let mut vanished = Vec::new();
    for ch in changes {
        if let Some(Token::Up(card)) = ch.after {
            appeared.push((ch.cell, card));
        }
        if let Some(Token::Up(card)) = ch.before {
            vanished.push((ch.cell, card));
        }
    }
    (appeared, vanished)
}

/// The one attempt the changes show, checked.
fn attempt(g: &Twelve, changes: &[Change]) -> Verdict<Twelve> {
    let (appeared, vanished) = split(changes);
    if let Phase::Entry { pawn } = g.phase {
        return attempt_step(g, pawn, &appeared, &vanished, changes);
    }
    if let Phase::SendBack { bishop } = g.phase {
        return attempt_send_back(g, bishop, &appeared, changes);
    }
    match (&appeared[..], &vanished[..]) {
        ([], &[(c, card)]) => Verdict::Flag(vanished_alone(g, c, card)),
        (&[(c, card)], []) => placement(g, c, card),
        (&[(b, card)], &[(a, moved)]) if card == moved => match g.check_move(a, b) {
            Ok(_) => advance(g.apply(Action::Move {
                side: g.to_move,
                piece: card.piece,
                from: a,
                to: b,
            })),
            Err(v) => Verdict::Flag(flag_of(v)),
        },
        (&[(b, card)], &[(a, _)]) if card.piece == Piece::Bishop => bishop_entry(g, b, card, a),
        (&[(b, card)], vs)
            if vs.len() == 2
                && vs.iter().any(|&(a, c)| c == card && a != b)
                && vs.iter().any(|&(a, _)| a == b) =>
        {
            let from = vs.iter().find(|&&(a, _)| a != b).map_or(b, |&(a, _)| a);
            match g.check_move(from, b) {
                // The move itself is illegal for another reason first.
                Err(v) if v.kind == FlagKind::WrongPlayer => Verdict::Flag(flag_of(v)),
                _ => {
                    let taken = vs.iter().find(|&&(a, _)| a == b).map(|&(_, c)| c);
                    Verdict::Flag(Flag {
                        kind: FlagKind::IllegalMove,
                        cells: vec![from, b],
                        rule: "TW-1.4".into(),
                        message: format!(
                            "Nothing is ever captured: the {} cannot take the {} at {b}; put both back",
                            title(card),
                            taken.map(title).unwrap_or_default()
                        ),
                        player: side_of(card.colour).map(|s| SIDES[s].name().into()),
                        squares: vec![],
                    })
                }
            }
        }
        _ if exchange_shape(changes).is_some() => {
            let (side, rook, king) = exchange_shape(changes).expect("checked");
            match g.check_exchange(side, rook, king) {
                Ok(_) => advance(g.apply(Action::Exchange { side, rook, king })),
                Err(v) => Verdict::Flag(flag_of(v)),
            }
        }
        (ap, []) if ap.len() >= 2 => {
            let cells: Vec<Cell> = ap.iter().map(|&(c, _)| c).collect();
            Verdict::Flag(Flag {
                kind: FlagKind::IllegalPlacement,
                message: format!(
                    "One action per turn: {} cards appeared at once, at {}; take back all but one",
                    cells.len(),
                    list(&cells)
                ),
                cells,
                rule: "TW-3.1".into(),
                player: Some(SIDES[g.to_move].name().into()),
                squares: vec![],
            })
        }
        _ => Verdict::Flag(unexplained(
            changes,
            "TW-10.1",
            "No single placement, move, exchange, Bishop entry or Queen removal explains this",
        )),
    }
}

/// King and Rook of one colour that swapped cells: the side, the Rook's
/// cell and the King's cell before the swap.
fn exchange_shape(changes: &[Change]) -> Option<(usize, Cell, Cell)> {
    let [a, b] = changes else {
        return None;
    };
    let card = |t: Option<Token>| t.and_then(Token::card);
    for (x, y) in [(a, b), (b, a)] {
        let (Some(k), Some(r)) = (card(x.before), card(y.before)) else {
            continue;
        };
        if k.piece == Piece::King
            && r == Card::new(k.colour, Piece::Rook)
            && card(x.after) == Some(r)
            && card(y.after) == Some(k)
        {
            return Some((side_of(k.colour)?, y.cell, x.cell));
        }
    }
    None
}

fn placement(g: &Twelve, c: Cell, card: Card) -> Verdict<Twelve> {
    let Some(side) = side_of(card.colour) else {
        return Verdict::Flag(unexplained(&[], "TW-1.1", "Not a Twelve piece"));
    };
    let place = Action::Place {
        side,
        piece: card.piece,
        to: c,
    };
    match g.check_place(card, c) {
        Ok(placed) => match card.piece {
            Piece::Bishop => {
                let choices = g.send_back_choices(&placed, c);
                if choices.is_empty() {
                    return advance(g.apply(place));
                }
                // The send-back is the placement's second part, done by
                // hand after it: the Bishop stands, and the send-back is
                // owed before the opponent acts (TW-10.2).
                let (game, mut events) = g.apply_bishop_alone(c);
                events.extend(send_back_notice(&game));
                Verdict::Advance { game, events }
            }
            // The step may still come: the turn over and the step to come
            // are both readings until the next table tells them apart.
            Piece::Pawn => {
                let (closed, events) = g.apply(place);
                match g.apply_open(place) {
                    Some((open, open_events)) => Verdict::Ambiguous(vec![
                        Reading {
                            game: closed,
                            events,
                        },
                        Reading {
                            game: open,
                            events: open_events,
                        },
                    ]),
                    None => Verdict::Advance {
                        game: closed,
                        events,
                    },
                }
            }
            _ => advance(g.apply(place)),
        },
        Err(mut v) => {
            if card.piece == Piece::Pawn && v.kind == FlagKind::IllegalPlacement {
                let cells = g.placement_cells(side);
                if let Some(at) = g.pawn_entry_cell(side, c, &cells) {
                    return advance(g.apply(Action::PawnEntry { side, at, to: c }));
                }
                // Before the closing "; take it back".
                let at = v.message.rfind("; ").unwrap_or(v.message.len());
                v.message.insert_str(
                    at,
                    ", and no entry step from a legal placement reaches it (TW-4.4)",
                );
            }
            Verdict::Flag(flag_of(v))
        }
    }
}

fn bishop_entry(g: &Twelve, at: Cell, card: Card, victim: Cell) -> Verdict<Twelve> {
    let placed = match g.check_place(card, at) {
        Ok(p) => p,
        Err(v) => return Verdict::Flag(flag_of(v)),
    };
    let side = g.to_move;
    match g.check_send_back(&placed, at, victim) {
        Ok(_) => advance(g.apply(Action::BishopEntry {
            side,
            at,
            send_back: victim,
        })),
        Err(v) => Verdict::Flag(flag_of(v)),
    }
}

fn vanished_alone(g: &Twelve, c: Cell, card: Card) -> Flag {
    let name = title(card);
    let (rule, message) = match card.piece {
        Piece::Queen => (
            "TW-8.3",
            format!(
                "Only a Queen surrounded at the end of a turn leaves the game (TW-8.1), and the {name} is not: put it back on {c}"
            ),
        ),
        Piece::King => (
            "TW-1.1",
            format!("The {name} is always in play: put it back on {c}"),
        ),
        _ => (
            "TW-1.4",
            format!(
                "Nothing is captured or taken off, except by a Bishop entering (TW-4.5): put the {name} back on {c}"
            ),
        ),
    };
    Flag {
        kind: FlagKind::IllegalMove,
        cells: vec![c],
        rule: rule.into(),
        message,
        player: Some(SIDES[g.to_move].name().into()),
        squares: vec![],
    }
}

/// The `pending` notice of a Bishop placed alone, in [`Phase::SendBack`]:
/// the pieces it may send back.
pub(super) fn send_back_notice(g: &Twelve) -> Option<EventBody> {
    let Phase::SendBack { bishop } = g.phase else {
        return None;
    };
    let side = g.to_move;
    let choices = g.send_back_choices(&g.pos, bishop);
    Some(EventBody::Notice {
        kind: "pending".into(),
        message: format!(
            "The {} placed at {bishop} sends one other piece back to its owner's supply: {} takes one of those at {} off the table before {} acts",
            title(Card::new(SIDES[side], Piece::Bishop)),
            SIDES[side].title(),
            list(&choices),
            SIDES[1 - side].title()
        ),
        cells: choices,
    })
}

/// After a Bishop placed alone on `bishop` (TW-4.5): its send-back, or the
/// send-back and the opponent's action after it in one table. Anything
/// else is the send-back owed (TW-10.2): the opponent acted first, or the
/// table changed otherwise.
fn attempt_send_back(
    g: &Twelve,
    bishop: Cell,
    appeared: &[(Cell, Card)],
    changes: &[Change],
) -> Verdict<Twelve> {
    let taken_off = |ch: &Change| matches!(ch.before, Some(Token::Up(_)));
    // The send-back alone.
    if let [ch] = changes
        && ch.after.is_none()
        && taken_off(ch)
    {
        return match g.check_send_back(&g.pos, bishop, ch.cell) {
            Ok(_) => advance(g.apply_send_back(ch.cell)),
            Err(v) => Verdict::Flag(flag_of(v)),
        };
    }
    // The send-back, then the opponent's action: each card taken off may
    // be the one sent back, but not one that lies elsewhere now. That card
    // was moved: read as sent back and placed again by its owner, the
    // table would hide the send-back still owed behind a move.
    let mut wrong_after: Option<Flag> = None;
    for (i, ch) in changes.iter().enumerate() {
        let Some(Token::Up(card)) = ch.before else {
            continue;
        };
        if appeared.iter().any(|&(_, a)| a == card)
            || g.check_send_back(&g.pos, bishop, ch.cell).is_err()
        {
            continue;
        }
        let (sent, mut events) = g.apply_send_back(ch.cell);
        let mut rest = changes.to_vec();
        if ch.after.is_none() {
            rest.remove(i);
        } else {
            rest[i].before = None;
        }
        match judge(&sent, &rest) {
            Verdict::Advance {
                game,
                events: mut more,
            } => {
                events.append(&mut more);
                return Verdict::Advance { game, events };
            }
            Verdict::Ambiguous(rs) => {
                return Verdict::Ambiguous(
                    rs.into_iter()
                        .map(|r| Reading {
                            game: r.game,
                            events: [events.clone(), r.events].concat(),
                        })
                        .collect(),
                );
            }
            Verdict::Flag(f) => {
                if f.kind != FlagKind::Unexplained {
                    wrong_after.get_or_insert(f);
                }
            }
        }
    }
    if let Some(f) = wrong_after {
        return Verdict::Flag(f);
    }
    let side = g.to_move;
    let choices = g.send_back_choices(&g.pos, bishop);
    Verdict::Flag(Flag {
        kind: FlagKind::IncompleteAction,
        cells: vec![bishop],
        rule: "TW-10.2".into(),
        message: format!(
            "{me} still owes the send-back of the Bishop at {bishop}, and the table changed first ({you} acts only after it): {me} takes one of those at {} off the table; an action {you} took then stands",
            list(&choices),
            me = SIDES[side].title(),
            you = SIDES[1 - side].title(),
        ),
        player: Some(SIDES[side].name().into()),
        squares: vec![],
    })
}

/// After a Pawn placement, in the reading where its step is still to come:
/// only that step.
fn attempt_step(
    g: &Twelve,
    pawn: Cell,
    appeared: &[(Cell, Card)],
    vanished: &[(Cell, Card)],
    changes: &[Change],
) -> Verdict<Twelve> {
    let card = Card::new(SIDES[g.to_move], Piece::Pawn);
    if let (&[(to, a)], &[(from, b)]) = (appeared, vanished)
        && a == card
        && b == card
        && from == pawn
    {
        return match g.check_step(pawn, to) {
            Ok(_) => advance(g.apply(Action::Step {
                side: g.to_move,
                from: pawn,
                to,
            })),
            Err(v) => Verdict::Flag(flag_of(v)),
        };
    }
    Verdict::Flag(unexplained(
        changes,
        "TW-4.4",
        &format!("Only the entry step of the Pawn just placed at {pawn} can follow its placement"),
    ))
}
