//! Reading a settled board as a DoubleCross action (DC-3.5).
//!
//! A drawn card allows a few dozen actions at most, so the observed board
//! is compared with the board each would leave, as electronic chessboards
//! do. What matches none is either part of one (a castle with the rook
//! still to move, an en passant pawn still on the board, a pawn on its last
//! rank not yet exchanged: `incomplete_action`), or an attempt the rules
//! forbid, which is explained by the piece that moved and why it may not.

use super::chess::{Move, MoveKind, Position, Side, Square, cell_of, square_name, square_of};
use super::deck::{DcCard, Joust, title_piece};
use super::{Action, Done, DoubleCross, Phase};
use crate::event::{EventBody, Flag, FlagKind};
use crate::games::{Verdict, unexplained};
use crate::table::{Change, Piece, Token};

type Board = [Option<(Side, Piece)>; 64];

fn board(pos: &Position) -> Board {
    std::array::from_fn(|sq| pos.piece_at(sq as Square))
}

pub(super) fn judge(g: &DoubleCross, changes: &[Change]) -> Verdict<DoubleCross> {
    let observed = match observed_board(g, changes) {
        Ok(b) => b,
        Err(f) => return Verdict::Flag(*f),
    };
    if let Some(o) = &g.over {
        return Verdict::Flag(unexplained(
            changes,
            "DC-8.1",
            &format!("The game is over ({})", o.why),
        ));
    }
    if g.draws == 0 && g.turn.is_none() {
        return Verdict::Flag(unexplained(
            changes,
            "DC-2.1",
            "The board differs from the start position",
        ));
    }
    match g.phase {
        Phase::Act { card } => judge_act(g, card, &observed),
        Phase::Draw | Phase::DrawAgain => judge_between(g, &observed),
        Phase::SaveKing { holder } => {
            let Some(turn) = &g.turn else {
                return Verdict::Flag(unexplained(changes, "DC-9.1", "Nothing to restore"));
            };
            let start = board(&turn.start);
            if observed == start {
                // The restore seen before the call: the play of Save King.
                let (game, events) = g.use_save_king(holder);
                return Verdict::Advance { game, events };
            }
            let now = board(&g.pos);
            if between(&observed, &start, &now) {
                return Verdict::Flag(flag(
                    FlagKind::IncompleteAction,
                    "DC-9.1",
                    "Save King puts back both the King and the capturing piece".into(),
                    differing(&observed, &start),
                    Some(DoubleCross::player_name(holder)),
                ));
            }
            Verdict::Flag(flag(
                FlagKind::IllegalMove,
                "DC-9.1",
                format!(
                    "The game waits for {}: play Save King or decline it; put the board back",
                    DoubleCross::player_name(holder)
                ),
                differing(&observed, &now),
                None,
            ))
        }
    }
}

/// The board the table shows, from the expected one and the changes; a
/// card off the 8x8 board or face-down is no DoubleCross table.
fn observed_board(g: &DoubleCross, changes: &[Change]) -> Result<Board, Box<Flag>> {
    let mut b = board(&g.pos);
    for c in changes {
        let Some(sq) = square_of(c.cell) else {
            return Err(Box::new(unexplained(
                changes,
                "DC-2.1",
                &format!("A card lies off the 8x8 board at {}", c.cell),
            )));
        };
        b[sq as usize] = match c.after {
            None => None,
            Some(Token::Pair(..)) => {
                return Err(Box::new(unexplained(
                    changes,
                    "DC-2.1",
                    &format!("Two cards lie on {}: a square holds one piece", c.cell),
                )));
            }
            Some(Token::Up(card)) => match Side::from_colour(card.colour) {
                Some(side) => Some((side, card.piece)),
                None => {
                    return Err(Box::new(unexplained(
                        changes,
                        "DC-1.2",
                        &format!(
                            "A {} card on {} is not a ChessDek piece",
                            card.colour.name(),
                            square_name(sq)
                        ),
                    )));
                }
            },
            Some(Token::Down) => {
                return Err(Box::new(unexplained(
                    changes,
                    "DC-1.2",
                    &format!(
                        "A face-down card on {}: DoubleCross pieces stand face up",
                        square_name(sq)
                    ),
                )));
            }
            Some(Token::Unreadable) => {
                return Err(Box::new(unexplained(
                    changes,
                    "INPUT",
                    "An unreadable card",
                )));
            }
        };
    }
    Ok(b)
}

/// The turn's card is in hand: the board must become one legal action's.
fn judge_act(g: &DoubleCross, card: DcCard, observed: &Board) -> Verdict<DoubleCross> {
    let start = board(&g.pos);
    let actions = g.options(card);
    let results: Vec<(Action, Board)> = actions.iter().map(|&a| (a, board(&g.after(a)))).collect();
    if let Some(&(a, _)) = results.iter().find(|(_, b)| b == observed) {
        let (game, events) = g.play(a);
        return Verdict::Advance { game, events };
    }
    // Part of a legal action: the one with the least left to do.
    let partial = results
        .iter()
        .filter(|(a, b)| is_partial(&start, b, observed, *a))
        .min_by_key(|(_, b)| differing(observed, b).len());
    if let Some((a, b)) = partial {
        return Verdict::Flag(flag(
            FlagKind::IncompleteAction,
            "DC-3.5",
            incomplete_message(g, *a, observed, b),
            differing(observed, b),
            Some(DoubleCross::player_name(g.to_move)),
        ));
    }
    Verdict::Flag(illegal(g, card, &start, observed))
}

/// Between turns only a removal under DC-6.5 may change the board, or the
/// player who just moved reconsidering before the next draw (DC-3.3).
fn judge_between(g: &DoubleCross, observed: &Board) -> Verdict<DoubleCross> {
    let now = board(&g.pos);
    let changed = differing(observed, &now);
    let turn = g.turn.as_ref();
    if let Some(t) = turn.filter(|t| t.done == Some(Done::SaveKing)) {
        let captured = board(&t.start);
        if between(observed, &now, &captured) {
            return Verdict::Flag(flag(
                FlagKind::IncompleteAction,
                "DC-9.1",
                "Save King: put the King and the capturing piece back where they stood".into(),
                differing(observed, &now),
                Some(DoubleCross::player_name(t.player)),
            ));
        }
    }
    let vanished: Vec<Square> = (0..64u8)
        .filter(|&sq| now[sq as usize].is_some() && observed[sq as usize].is_none())
        .collect();
    let single_removal = vanished.len() == 1 && changed.len() == 1;
    let mut removal_flag = None;
    if single_removal {
        match g.remove(vanished[0]) {
            Ok((game, events)) => return Verdict::Advance { game, events },
            Err(f) => removal_flag = Some(*f),
        }
    }
    let mut partial_flag = None;
    if let Some(t) = turn.filter(|t| t.window && t.player != g.to_move)
        && let Some(snap) = &t.snapshot
    {
        let mut snap = (**snap).clone();
        if let Some(st) = snap.turn.as_mut() {
            st.called = t.called;
        }
        if board(&snap.pos) == *observed {
            let mut game = snap;
            if let Some(st) = game.turn.as_mut() {
                st.snapshot = t.snapshot.clone();
            }
            let events = vec![EventBody::Notice {
                kind: "action_taken_back".into(),
                message: format!(
                    "{} took the move back; the {} is still to be played",
                    DoubleCross::player_name(t.player),
                    t.card.title()
                ),
                cells: vec![],
            }];
            return Verdict::Advance { game, events };
        }
        if let Phase::Act { card } = snap.phase {
            match judge_act(&snap, card, observed) {
                Verdict::Advance { mut game, events } => {
                    if let Some(st) = game.turn.as_mut() {
                        st.snapshot = t.snapshot.clone();
                    }
                    return Verdict::Advance { game, events };
                }
                Verdict::Flag(f) if f.kind == FlagKind::IncompleteAction => partial_flag = Some(f),
                _ => {}
            }
        }
    }
    if let Some(f) = removal_flag.or(partial_flag) {
        return Verdict::Flag(f);
    }
    let (rule, message) = match turn.map(|t| t.card) {
        Some(DcCard::Joust(Joust::LoseMove)) if turn.is_some_and(|t| t.player != g.to_move) => (
            "DC-9.6",
            "Lose Move: no piece moves this turn; put the board back".to_string(),
        ),
        _ if g.phase == Phase::DrawAgain => (
            "DC-9.1",
            format!(
                "{} holds Save King and draws again before moving; put the board back",
                DoubleCross::player_name(g.to_move)
            ),
        ),
        _ => (
            "DC-3.3",
            format!(
                "Between turns the board changes only by a removal after an uncalled check; \
                 {} draws next: put the board back",
                DoubleCross::player_name(g.to_move)
            ),
        ),
    };
    Verdict::Flag(flag(FlagKind::IllegalMove, rule, message, changed, None))
}

/// Whether `observed` is on the way from `start` to `result`: every square
/// it changed is one the action changes, to the action's piece, or emptied
/// (a captured piece lifted first), or to the pawn a promotion exchanges.
fn is_partial(start: &Board, result: &Board, observed: &Board, action: Action) -> bool {
    if observed == result {
        return false;
    }
    let promoting_pawn = match action {
        Action::Move(Move {
            from,
            to,
            kind: MoveKind::Promotion(_),
        }) => Some((to, start[from as usize])),
        Action::Promote { sq, .. } => Some((sq, start[sq as usize])),
        _ => None,
    };
    let mut any = false;
    for sq in 0..64 {
        if observed[sq] == start[sq] {
            continue;
        }
        if result[sq] == start[sq] {
            return false;
        }
        let ok = observed[sq] == result[sq]
            || observed[sq].is_none()
            || promoting_pawn == Some((sq as Square, observed[sq]));
        if !ok {
            return false;
        }
        any = true;
    }
    any
}

/// Whether every square of `observed` shows what `a` or `b` shows there,
/// or is empty (a piece in hand on its way).
fn between(observed: &Board, a: &Board, b: &Board) -> bool {
    (0..64).all(|sq| observed[sq] == a[sq] || observed[sq] == b[sq] || observed[sq].is_none())
}

/// The cells where two boards differ, a8 first (the table's reading order).
fn differing(a: &Board, b: &Board) -> Vec<crate::table::Cell> {
    let mut cells: Vec<_> = (0..64u8)
        .filter(|&sq| a[sq as usize] != b[sq as usize])
        .map(cell_of)
        .collect();
    cells.sort();
    cells
}

fn incomplete_message(g: &DoubleCross, action: Action, observed: &Board, result: &Board) -> String {
    let pos = &g.pos;
    match action {
        Action::Move(m) => {
            let (side, piece) = pos.piece_at(m.from).expect("a move starts on a piece");
            let name = format!("{} {}", side.colour().title(), title_piece(piece));
            match m.kind {
                MoveKind::Castle => {
                    let (rf, rt) = m.rook_squares().expect("a castle moves a rook");
                    if observed[m.to as usize] != result[m.to as usize] {
                        format!(
                            "Castling is not finished: the King goes from {} to {}",
                            square_name(m.from),
                            square_name(m.to)
                        )
                    } else {
                        format!(
                            "Castling is not finished: the Rook goes from {} to {} (DC-4.3)",
                            square_name(rf),
                            square_name(rt)
                        )
                    }
                }
                MoveKind::EnPassant => {
                    let victim = if m.to >= 32 { m.to - 8 } else { m.to + 8 };
                    format!(
                        "En passant: take the pawn on {} off the board (DC-4.4)",
                        square_name(victim)
                    )
                }
                MoveKind::Promotion(p) => format!(
                    "Promotion: exchange the pawn on {} for the {} {} it becomes, or any \
                     Queen, Rook, Bishop or Knight of its colour (DC-5.1)",
                    square_name(m.to),
                    side.colour().title(),
                    title_piece(p)
                ),
                _ => format!(
                    "Finish the move of the {name} from {} to {}",
                    square_name(m.from),
                    square_name(m.to)
                ),
            }
        }
        Action::Promote { sq, .. } => format!(
            "Exchange the pawn on {} for a Queen, Rook, Bishop or Knight (DC-5.3)",
            square_name(sq)
        ),
        Action::Restore => {
            "DoubleCross: the board must return to the start of the opponent's last turn (DC-9.2)"
                .into()
        }
        Action::Return { sq, card } => format!(
            "Return Any Piece: put the {} on {} (DC-9.3)",
            card.describe(),
            square_name(sq)
        ),
        Action::RemoveOwn { sq } | Action::RemovePawn { sq } => {
            format!("Take the piece on {} off the board", square_name(sq))
        }
    }
}

/// Why a change that is no legal action is illegal, named by the piece
/// that moved when one did.
fn illegal(g: &DoubleCross, card: DcCard, start: &Board, observed: &Board) -> Flag {
    let cells = differing(observed, start);
    let player = Some(DoubleCross::player_name(g.to_move));
    let appeared: Vec<Square> = (0..64u8)
        .filter(|&sq| {
            observed[sq as usize].is_some() && observed[sq as usize] != start[sq as usize]
        })
        .collect();
    let vanished: Vec<Square> = (0..64u8)
        .filter(|&sq| start[sq as usize].is_some() && observed[sq as usize].is_none())
        .collect();
    let generic = || {
        flag(
            FlagKind::IllegalMove,
            "DC-3.5",
            format!(
                "This matches no legal action for the {} card; put the board back as it was at the draw",
                card.title()
            ),
            cells.clone(),
            player,
        )
    };
    // A piece taken off the board with nothing else changed: a removal,
    // which the rules allow only after an uncalled check (DC-6.7).
    if let ([], [sq]) = (&appeared[..], &vanished[..])
        && !matches!(
            card,
            DcCard::Joust(Joust::RemoveAnyPawn | Joust::DoubleCross)
        )
    {
        let sq = *sq;
        let (side, piece) = start[sq as usize].expect("a piece vanished from there");
        let own = side == g.sides[g.to_move];
        let (who, rule, message) = match g.lapsed_right(sq) {
            Some(p) => (
                DoubleCross::player_name(p),
                "DC-6.7",
                format!(
                    "The removal right lapsed when {} drew (DC-6.6)",
                    DoubleCross::player_name(p)
                ),
            ),
            None if own && piece != Piece::King && !g.opts.free_self_removal => (
                DoubleCross::player_name(g.to_move),
                "DC-4.6",
                "A piece leaves the board only by capture; removing one's own piece needs the \
                 free_self_removal option (DC-4.6)"
                    .to_string(),
            ),
            None if own && piece == Piece::King => (
                DoubleCross::player_name(g.to_move),
                "DC-4.6",
                "A King leaves the board only by capture or an uncalled check's removal"
                    .to_string(),
            ),
            None => (
                DoubleCross::player_name(g.to_move),
                "DC-6.7",
                format!(
                    "The {} {} may leave the board only by capture",
                    side.colour().title(),
                    title_piece(piece)
                ),
            ),
        };
        return flag(
            FlagKind::IllegalRemoval,
            rule,
            format!("{message}: put it back on {}", square_name(sq)),
            cells,
            Some(who),
        );
    }
    if let Some(f) = castle_attempt(g, start, observed, &cells, player) {
        return f;
    }
    if let DcCard::Joust(j @ (Joust::DoubleCross | Joust::ReturnAnyPiece | Joust::RemoveAnyPawn)) =
        card
    {
        let what = match j {
            Joust::DoubleCross => "the board returns to the start of the opponent's last turn",
            Joust::ReturnAnyPiece => {
                "one removed non-King piece goes back on an empty square off ranks 1 and 8, giving no check"
            }
            _ => "exactly one pawn leaves the board",
        };
        return flag(
            FlagKind::IllegalMove,
            j.rule(),
            format!("{}: {what}", j.title()),
            cells,
            player,
        );
    }
    let [to] = appeared[..] else {
        return generic();
    };
    let Some((side, piece)) = observed[to as usize] else {
        return generic();
    };
    // The origin: a square the same piece left, or a pawn's for a promotion.
    let from = vanished
        .iter()
        .copied()
        .find(|&sq| start[sq as usize] == Some((side, piece)))
        .or_else(|| {
            vanished
                .iter()
                .copied()
                .find(|&sq| start[sq as usize] == Some((side, Piece::Pawn)))
        })
        .or_else(|| {
            // A pawn exchanged for a piece of the other colour.
            vanished.iter().copied().find(|&sq| {
                matches!(start[sq as usize], Some((s, Piece::Pawn)) if s != side)
                    && matches!(to / 8, 0 | 7)
            })
        });
    let Some(from) = from else {
        return generic();
    };
    let (mover_side, mover) = start[from as usize].expect("the origin held the piece");
    let name = format!("{} {}", mover_side.colour().title(), title_piece(mover));
    let (fs, ts) = (square_name(from), square_name(to));
    let captured = start[to as usize];
    let say = |rule: &str, message: String| {
        flag(FlagKind::IllegalMove, rule, message, cells.clone(), player)
    };
    if let DcCard::Piece(c) = card {
        let designated = Side::from_colour(c.colour) == Some(mover_side) && c.piece == mover;
        if !designated {
            return say(
                "DC-1.3",
                format!(
                    "The card is {}: the {name} on {fs} may not move; put it back",
                    card.title()
                ),
            );
        }
        if g.opts.delayed_promotion
            && mover == Piece::Pawn
            && let Some(w) = super::bits(super::waiting_pawns(&g.pos, mover_side)).next()
        {
            return say(
                "DC-5.3",
                format!(
                    "The pawn on {} waits for promotion: this Pawn card must promote it",
                    square_name(w)
                ),
            );
        }
    }
    if let Some((cs, cp)) = captured {
        if cs == mover_side {
            return say(
                "DC-1.4",
                format!(
                    "A piece captures only the other colour: the {name} cannot take the {} {} on {ts}",
                    cs.colour().title(),
                    title_piece(cp)
                ),
            );
        }
        if cp == Piece::King && card == DcCard::Joust(Joust::WildMove) {
            return say(
                "DC-9.5",
                "Wild Move may not capture a King; put the board back".into(),
            );
        }
    }
    if mover == Piece::Pawn
        && captured.is_none()
        && (from % 8).abs_diff(to % 8) == 1
        && let Some(&victim) = vanished.iter().find(|&&v| v != from)
        && v_is_behind(from, to, victim)
        && matches!(start[victim as usize], Some((s, Piece::Pawn)) if s != mover_side)
    {
        return say(
            "DC-4.4",
            format!(
                "En passant is allowed only on the turn right after the pawn on {} made its double step",
                square_name(victim)
            ),
        );
    }
    if mover == Piece::Pawn {
        let forward = match mover_side {
            Side::White => to / 8 > from / 8,
            Side::Black => to / 8 < from / 8,
        };
        if !forward {
            return say(
                "DC-4.2",
                format!(
                    "Pawns move toward their own colour's far side: the {name} cannot go from {fs} to {ts}"
                ),
            );
        }
        if piece != Piece::Pawn
            && (matches!(piece, Piece::King | Piece::Pawn) || side != mover_side)
        {
            return say(
                "DC-5.1",
                "A pawn becomes a Queen, Rook, Bishop or Knight of its own colour".into(),
            );
        }
    }
    if mover == Piece::King && (from % 8).abs_diff(to % 8) == 2 && from / 8 == to / 8 {
        return say(
            "DC-4.3",
            "Castling needs the King and that Rook unmoved and the squares between empty".into(),
        );
    }
    say(
        "DC-1.4",
        format!("The {name} cannot move from {fs} to {ts}; put it back"),
    )
}

/// Whether `victim` is the square an en passant from `from` to `to` takes.
fn v_is_behind(from: Square, to: Square, victim: Square) -> bool {
    victim / 8 == from / 8 && victim % 8 == to % 8
}

/// A King and Rook both moved as a castle that is not allowed: no right
/// (one of them has moved) or pieces between (DC-4.3).
fn castle_attempt(
    g: &DoubleCross,
    start: &Board,
    observed: &Board,
    cells: &[crate::table::Cell],
    player: Option<&str>,
) -> Option<Flag> {
    for side in [Side::White, Side::Black] {
        let rank = if side == Side::White { 0 } else { 56 };
        for (k_to, r_from, r_to) in [(6, 7, 5), (2, 0, 3)] {
            let (ke, kt, rf, rt) = (rank + 4, rank + k_to, rank + r_from, rank + r_to);
            let king = Some((side, Piece::King));
            let rook = Some((side, Piece::Rook));
            let looks = start[ke as usize] == king
                && start[rf as usize] == rook
                && observed[kt as usize] == king
                && observed[rt as usize] == rook
                && observed[ke as usize].is_none()
                && observed[rf as usize].is_none()
                && differing(observed, start).len() == 4;
            if looks {
                let why = if g.pos.castling == 0 || !super::castle_right(&g.pos, side, k_to == 6) {
                    "the King or that Rook has moved, so the right is gone"
                } else {
                    "the squares between King and Rook must be empty"
                };
                return Some(flag(
                    FlagKind::IllegalMove,
                    "DC-4.3",
                    format!("This castle is not allowed: {why}; put King and Rook back"),
                    cells.to_vec(),
                    player,
                ));
            }
        }
    }
    None
}

fn flag(
    kind: FlagKind,
    rule: &str,
    message: String,
    cells: Vec<crate::table::Cell>,
    player: Option<&str>,
) -> Flag {
    Flag {
        kind,
        cells,
        rule: rule.into(),
        message,
        player: player.map(String::from),
        squares: vec![],
    }
}
