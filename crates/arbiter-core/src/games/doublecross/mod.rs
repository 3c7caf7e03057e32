//! DoubleCross Chess (`spec/doublecross.md`): chess where a drawn ChessDek
//! card names the piece type that moves, either player may move either
//! colour, kings are captured rather than mated, and an uncalled check lets
//! the opponent remove the checking piece.
//!
//! The state is a value, as for every game. A turn runs draw → action →
//! (calls, a removal) → the next draw; [`DoubleCross::options`] lists the
//! actions a drawn card allows, [`DoubleCross::play`] applies one, and
//! `judge` (in `judge.rs`) reads a settled board as one of them, as part of
//! one, or as something the rules forbid. The chess itself is [`chess`],
//! proven by perft in the standard-chess mode.

pub mod chess;
pub mod deck;
mod judge;
#[cfg(any(test, feature = "testkit"))]
pub mod mistakes;
pub mod pgn;
#[cfg(any(test, feature = "testkit"))]
pub mod random;
mod setup;

pub use setup::{Setup, SetupOptions, StartState};

use crate::event::ActionKind;
use std::collections::BTreeMap;
use std::sync::Arc;

use chess::{Move, MoveKind, Position, Rules, Side, Square, cell_of, square_name};
use deck::{DcCard, DrawPile, Joust, JoustMode, title_piece};

use crate::event::{ActionEvent, EventBody, Flag, FlagKind, GameResult};
use crate::games::{Panel, PlayerPanel, Verdict};
use crate::observation::Observation;
use crate::table::{Card, Cell, Colour, Piece, Table, Token};

/// DoubleCross's named options (defaults as in the spec).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// DC-2.2: piece card → copies in the deck.
    pub deck: BTreeMap<Card, u32>,
    /// DC-2.3.
    pub joust: JoustMode,
    /// DC-5.3.
    pub delayed_promotion: bool,
    /// DC-4.6.
    pub free_self_removal: bool,
    /// DC-6.8: announce new checks at once (training).
    pub announce_checks: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            deck: deck::standard_counts(),
            joust: JoustMode::Off,
            delayed_promotion: false,
            free_self_removal: false,
            announce_checks: false,
        }
    }
}

/// DC-1.4 as the generator sees it: castling has no check conditions.
const DC_RULES: Rules = Rules {
    castle_ignoring_check: true,
};

/// One action a drawn card allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// A chess move of a designated piece (or any piece, on a Wild Move):
    /// move, capture, castle, en passant, immediate promotion.
    Move(Move),
    /// DC-5.3: a pawn waiting on its last rank exchanged for `to`.
    Promote { sq: Square, to: Piece },
    /// DC-4.6 under `free_self_removal`: one own non-King piece taken off.
    RemoveOwn { sq: Square },
    /// DC-9.3: a piece of the removed pool put back on `sq`.
    Return { sq: Square, card: Card },
    /// DC-9.4.
    RemovePawn { sq: Square },
    /// DC-9.2: the board as it was when the opponent's last turn began.
    Restore,
}

/// What a turn did, once seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Done {
    Action(Action),
    /// No action: the card allowed none, or Lose Move, or Switch Sides.
    Nothing,
    /// DC-9.1: the holder's King was given back.
    SaveKing,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Waiting for `to_move` to draw.
    Draw,
    /// `to_move` drew Save King and draws again for the same turn.
    DrawAgain,
    /// `to_move` drew `card` and must act.
    Act { card: DcCard },
    /// `holder`'s King was just captured and he holds Save King: the game
    /// is decided unless he plays it.
    SaveKing { holder: usize },
}

/// The current or most recent turn: what the check call, the removal right
/// and a change of mind are judged against.
#[derive(Clone, Debug)]
struct Turn {
    player: usize,
    card: DcCard,
    /// The board when the turn's card was drawn.
    start: Position,
    /// The state right after the draw, while the turn may still be
    /// reconsidered: DC-3.3 makes the turn's result the board seen before
    /// the next draw, so a player may take back or finish differently (a
    /// castle begun with the rook reads first as a rook move).
    snapshot: Option<Box<DoubleCross>>,
    done: Option<Done>,
    called: bool,
    /// DC-6.4: open from the draw until the opponent draws or removes.
    window: bool,
    /// DC-6.5: the piece the opponent removed after this turn.
    removal: Option<(Square, Card)>,
}

/// A finished turn's board change, for a DoubleCross card (DC-9.2).
#[derive(Clone, Debug)]
struct TurnLog {
    player: usize,
    start: Position,
    /// The board the turn left, before any removal after it.
    end: Position,
    removal: Option<(Square, Card)>,
    /// Pieces of uncalled new checks whose removal right lapsed at the
    /// opponent's draw: a later removal of one is told why it is too late.
    lapsed: Vec<Square>,
}

/// One turn of the game record (PGN).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordEntry {
    pub player: usize,
    pub card: DcCard,
    /// SAN of the turn's move; None for a turn with no chess move.
    pub san: Option<String>,
    /// What the SAN cannot say: a Joust effect, a removal, a flag.
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Outcome {
    winner: usize,
    why: String,
}

#[derive(Clone, Debug)]
pub struct DoubleCross {
    opts: Options,
    pos: Position,
    deck: DrawPile,
    /// The side each player controls; DC-9.7 exchanges them.
    sides: [Side; 2],
    /// The player to draw or to act.
    to_move: usize,
    phase: Phase,
    /// DC-7.1: pieces that left the board, as they were when they left.
    removed: Vec<Card>,
    turn: Option<Turn>,
    /// The last few finished turns.
    logs: Vec<TurnLog>,
    record: Arc<Vec<RecordEntry>>,
    over: Option<Outcome>,
    draws: u32,
    /// The FEN of a start other than the standard one (PGN `SetUp`).
    start_fen: Option<String>,
}

const PLAYERS: [&str; 2] = ["white", "black"];

impl DoubleCross {
    pub fn new(opts: Options) -> DoubleCross {
        let deck = DrawPile::new(&opts.deck, opts.joust);
        DoubleCross {
            opts,
            pos: Position::startpos(),
            deck,
            sides: [Side::White, Side::Black],
            to_move: 0,
            phase: Phase::Draw,
            removed: Vec::new(),
            turn: None,
            logs: Vec::new(),
            record: Arc::new(Vec::new()),
            over: None,
            draws: 0,
            start_fen: None,
        }
    }

    pub fn position(&self) -> &Position {
        &self.pos
    }

    pub fn options_ref(&self) -> &Options {
        &self.opts
    }

    pub fn deck(&self) -> &DrawPile {
        &self.deck
    }

    pub fn removed(&self) -> &[Card] {
        &self.removed
    }

    pub fn to_move(&self) -> usize {
        self.to_move
    }

    pub fn side_of(&self, player: usize) -> Side {
        self.sides[player]
    }

    /// The player who controls `side` now.
    pub fn controller(&self, side: Side) -> usize {
        if self.sides[0] == side { 0 } else { 1 }
    }

    pub fn player_name(player: usize) -> &'static str {
        PLAYERS[player]
    }

    pub fn record_entries(&self) -> &[RecordEntry] {
        &self.record
    }

    pub fn winner(&self) -> Option<usize> {
        self.over.as_ref().map(|o| o.winner)
    }

    /// The card drawn and not yet acted on.
    pub fn card_to_act(&self) -> Option<DcCard> {
        match self.phase {
            Phase::Act { card } => Some(card),
            _ => None,
        }
    }

    /// The board when the current (or last) turn's card was drawn.
    pub fn turn_start(&self) -> Option<&Position> {
        self.turn.as_ref().map(|t| &t.start)
    }

    /// New checks of the current turn that its mover has not called.
    pub fn due_call(&self) -> bool {
        self.turn.as_ref().is_some_and(|t| {
            t.window && !t.called && t.done.is_some() && !new_checks(&t.start, &self.pos).is_empty()
        })
    }

    /// Whether the next input the game waits for is a draw.
    pub fn awaits_draw(&self) -> bool {
        self.over.is_none() && matches!(self.phase, Phase::Draw | Phase::DrawAgain)
    }

    /// The holder of Save King whose King was just captured, while the
    /// game waits for his decision.
    pub fn save_king_pending(&self) -> Option<usize> {
        match self.phase {
            Phase::SaveKing { holder } if self.over.is_none() => Some(holder),
            _ => None,
        }
    }

    /// Cards the next draw may show (those left in the pile, or all
    /// discards when a reshuffle is due).
    pub fn drawable(&self) -> Vec<DcCard> {
        let mut deck = self.deck.clone();
        if deck.pile_len() == 0 {
            deck.reshuffle();
        }
        let mut all: Vec<DcCard> = self.opts.deck.keys().map(|&c| DcCard::Piece(c)).collect();
        all.extend(Joust::ALL.map(DcCard::Joust));
        all.into_iter().filter(|&c| deck.in_pile(c) > 0).collect()
    }

    /// The legal actions of `card` for the player to move, in the current
    /// position (DC-3.2, DC-4, DC-5, DC-9).
    pub fn options(&self, card: DcCard) -> Vec<Action> {
        let pos = &self.pos;
        let mut out = Vec::new();
        match card {
            DcCard::Piece(c) => {
                let Some(side) = Side::from_colour(c.colour) else {
                    return out;
                };
                let waiting = waiting_pawns(pos, side);
                if self.opts.delayed_promotion && c.piece == Piece::Pawn && waiting != 0 {
                    // DC-5.3: the draw is for the promotion and nothing else.
                    for sq in bits(waiting) {
                        for to in [Piece::Queen, Piece::Rook, Piece::Bishop, Piece::Knight] {
                            out.push(Action::Promote { sq, to });
                        }
                    }
                    return out;
                }
                let mut moves = Vec::new();
                pos.gen_moves(side, Some(c.piece), DC_RULES, &mut moves);
                if c.piece == Piece::Rook {
                    // DC-4.3: a Rook card castles too.
                    let mut king = Vec::new();
                    pos.gen_moves(side, Some(Piece::King), DC_RULES, &mut king);
                    moves.extend(king.into_iter().filter(|m| m.kind == MoveKind::Castle));
                }
                self.push_moves(moves, &mut out);
                if self.opts.free_self_removal {
                    let own = pos.side_bb(self.sides[self.to_move])
                        & !pos.pieces(self.sides[self.to_move], Piece::King);
                    out.extend(bits(own).map(|sq| Action::RemoveOwn { sq }));
                }
            }
            DcCard::Joust(Joust::WildMove) => {
                let mut moves = Vec::new();
                for side in [Side::White, Side::Black] {
                    pos.gen_moves(side, None, DC_RULES, &mut moves);
                }
                moves.retain(|m| !matches!(pos.piece_at(m.to), Some((_, Piece::King))));
                self.push_moves(moves, &mut out);
            }
            DcCard::Joust(Joust::DoubleCross) => {
                // A restore that changes only rights is done at the draw:
                // nothing on the board could show it.
                if self
                    .restore_target()
                    .is_some_and(|t| !same_board(&t, &self.pos))
                {
                    out.push(Action::Restore);
                }
            }
            DcCard::Joust(Joust::ReturnAnyPiece) => {
                let mut kinds: Vec<Card> = self.removed.clone();
                kinds.retain(|c| c.piece != Piece::King);
                kinds.sort();
                kinds.dedup();
                for card in kinds {
                    let Some(side) = Side::from_colour(card.colour) else {
                        continue;
                    };
                    for sq in 8..56u8 {
                        if pos.piece_at(sq).is_some() {
                            continue;
                        }
                        let mut p = pos.clone();
                        p.set(sq, Some((side, card.piece)));
                        if !gives_check(&p, sq) {
                            out.push(Action::Return { sq, card });
                        }
                    }
                }
            }
            DcCard::Joust(Joust::RemoveAnyPawn) => {
                let pawns =
                    pos.pieces(Side::White, Piece::Pawn) | pos.pieces(Side::Black, Piece::Pawn);
                out.extend(bits(pawns).map(|sq| Action::RemovePawn { sq }));
            }
            // Resolved at the draw: no board action.
            DcCard::Joust(Joust::SaveKing | Joust::LoseMove | Joust::SwitchSides) => {}
        }
        out
    }

    /// Chess moves as actions; under `delayed_promotion` a pawn reaching
    /// its last rank stays a pawn, so the four promotions are one move.
    fn push_moves(&self, moves: Vec<Move>, out: &mut Vec<Action>) {
        for m in moves {
            let m = match m.kind {
                MoveKind::Promotion(Piece::Queen) if self.opts.delayed_promotion => Move {
                    kind: MoveKind::Normal,
                    ..m
                },
                MoveKind::Promotion(_) if self.opts.delayed_promotion => continue,
                _ => m,
            };
            out.push(Action::Move(m));
        }
    }

    /// The position an action leaves (DC-3.5 compares the board with it).
    pub fn after(&self, action: Action) -> Position {
        let mut p = self.pos.clone();
        match action {
            Action::Move(m) => {
                let turn = p.turn;
                p.play(m);
                p.turn = turn;
            }
            Action::Promote { sq, to } => {
                let side = p.piece_at(sq).map(|(s, _)| s).unwrap_or(Side::White);
                p.set(sq, Some((side, to)));
                p.ep = None;
            }
            Action::RemoveOwn { sq } | Action::RemovePawn { sq } => {
                p.set(sq, None);
                clear_lost_rights(&mut p);
                p.ep = None;
            }
            Action::Return { sq, card } => {
                let side = Side::from_colour(card.colour).unwrap_or(Side::White);
                p.set(sq, Some((side, card.piece)));
                p.ep = None;
            }
            Action::Restore => {
                if let Some(t) = self.restore_target() {
                    p = t;
                }
            }
        }
        p
    }

    /// DC-9.2: the board as it stood when the opponent's most recent turn
    /// began, with that turn's changes undone square by square. A piece the
    /// drawer removed after that turn (DC-6.5) stays removed: only the
    /// turn's own changes are undone.
    fn restore_target(&self) -> Option<Position> {
        let me = self.to_move;
        let log = self.logs.iter().rev().find(|l| l.player != me)?;
        let mut p = self.pos.clone();
        let removed_mover = log.removal.and_then(|(r, card)| {
            let end = log.end.piece_at(r);
            let arrived = end != log.start.piece_at(r);
            (arrived && end.map(|(s, pc)| Card::new(s.colour(), pc)) == Some(card))
                .then_some((r, end))
        });
        let mut skipped_origin = false;
        for sq in 0..64u8 {
            let (before, after) = (log.start.piece_at(sq), log.end.piece_at(sq));
            if before == after {
                continue;
            }
            if let Some((r, piece)) = removed_mover {
                if sq == r {
                    // The removed piece's square: what it captured comes back.
                    p.set(sq, before);
                    continue;
                }
                if !skipped_origin && before == piece && after.is_none() {
                    // The removed piece's origin stays empty.
                    skipped_origin = true;
                    continue;
                }
            }
            if p.piece_at(sq) == after {
                p.set(sq, before);
            }
        }
        p.castling = log.start.castling;
        clear_lost_rights(&mut p);
        p.ep = log.start.ep;
        Some(p)
    }

    /// Applies a legal action of the turn in progress: the next state and
    /// what it announces.
    pub fn play(&self, action: Action) -> (DoubleCross, Vec<EventBody>) {
        let mut g = self.clone();
        let mut events = Vec::new();
        let player = g.to_move;
        let card = match g.phase {
            Phase::Act { card } => card,
            _ => DcCard::Joust(Joust::WildMove),
        };
        let before = g.pos.clone();
        g.pos = self.after(action);
        let mut event = ActionEvent {
            player: PLAYERS[player].into(),
            ..Default::default()
        };
        let mut san = None;
        let mut note = None;
        let mut king_captured: Option<Side> = None;
        match action {
            Action::Move(m) => {
                let (side, piece) = before.piece_at(m.from).expect("a move starts on a piece");
                let captured = match m.kind {
                    MoveKind::EnPassant => before
                        .piece_at(if m.to >= 32 { m.to - 8 } else { m.to + 8 })
                        .map(card_of),
                    MoveKind::Castle => None,
                    _ => before.piece_at(m.to).map(card_of),
                };
                if let Some(c) = captured {
                    g.removed.push(c);
                    if c.piece == Piece::King {
                        king_captured = Side::from_colour(c.colour);
                    }
                }
                event.action = match m.kind {
                    MoveKind::Castle => ActionKind::Castle,
                    MoveKind::EnPassant => ActionKind::EnPassant,
                    MoveKind::Promotion(_) => ActionKind::Promote,
                    _ if captured.is_some() => ActionKind::Capture,
                    _ => ActionKind::Move,
                };
                event.card = Some(Card::new(side.colour(), piece));
                event.from = Some(cell_of(m.from));
                event.to = Some(cell_of(m.to));
                event.captured = captured;
                if let MoveKind::Promotion(p) = m.kind {
                    event.promotion = Some(Card::new(side.colour(), p));
                }
                let rivals = self.rivals(side, piece);
                let text = before.san(m, &rivals);
                event.san = Some(text.clone());
                san = Some(text);
            }
            Action::Promote { sq, to } => {
                let (side, _) = before.piece_at(sq).expect("a waiting pawn");
                event.action = ActionKind::Promote;
                event.card = Some(Card::new(side.colour(), Piece::Pawn));
                event.to = Some(cell_of(sq));
                event.promotion = Some(Card::new(side.colour(), to));
                note = Some(format!(
                    "the pawn on {} becomes a {}",
                    square_name(sq),
                    title_piece(to)
                ));
            }
            Action::RemoveOwn { sq } => {
                let c = before.piece_at(sq).map(card_of).expect("a piece to remove");
                g.removed.push(c);
                event.action = ActionKind::Remove;
                event.card = Some(c);
                event.from = Some(cell_of(sq));
                note = Some(format!("removes own {} on {}", c, square_name(sq)));
            }
            Action::Return { sq, card: c } => {
                if let Some(i) = g.removed.iter().position(|&r| r == c) {
                    g.removed.remove(i);
                }
                event.action = ActionKind::Joust;
                event.joust = Some(Joust::ReturnAnyPiece.name().into());
                event.card = Some(c);
                event.to = Some(cell_of(sq));
                note = Some(format!("returns {} to {}", c, square_name(sq)));
            }
            Action::RemovePawn { sq } => {
                let c = before.piece_at(sq).map(card_of).expect("a pawn to remove");
                g.removed.push(c);
                event.action = ActionKind::Joust;
                event.joust = Some(Joust::RemoveAnyPawn.name().into());
                event.card = Some(c);
                event.from = Some(cell_of(sq));
                note = Some(format!("removes the pawn on {}", square_name(sq)));
            }
            Action::Restore => {
                // Pieces that come back leave the pool; pieces the restore
                // takes off (a returned piece, say) enter it.
                let (was, now) = (piece_counts(&before), piece_counts(&g.pos));
                let kinds: std::collections::BTreeSet<Card> =
                    was.keys().chain(now.keys()).copied().collect();
                for c in kinds {
                    let (a, b) = (
                        was.get(&c).copied().unwrap_or(0),
                        now.get(&c).copied().unwrap_or(0),
                    );
                    for _ in a..b {
                        if let Some(i) = g.removed.iter().rposition(|&r| r == c) {
                            g.removed.remove(i);
                        }
                    }
                    for _ in b..a {
                        g.removed.push(c);
                    }
                }
                event.action = ActionKind::Joust;
                event.joust = Some(Joust::DoubleCross.name().into());
                note = Some("restores the board of the opponent's last turn".into());
            }
        }
        events.push(EventBody::Action(event));
        if let Some(t) = g.turn.as_mut() {
            t.done = Some(Done::Action(action));
        }
        let mut entry = RecordEntry {
            player,
            card,
            san,
            notes: vec![],
        };
        entry.notes.extend(note);
        Arc::make_mut(&mut g.record).push(entry);

        // A King off the board ends the game (DC-8.1) unless its owner
        // holds Save King (DC-9.1).
        let lost = king_captured.or_else(|| king_gone(&before, &g.pos));
        if let Some(side) = lost {
            let owner = g.controller(side);
            if king_captured.is_some() && g.deck.held() == Some(owner) {
                g.phase = Phase::SaveKing { holder: owner };
                events.push(EventBody::Notice {
                    kind: "save_king_pending".into(),
                    message: format!(
                        "{}'s King was captured: {} holds Save King (call save-king, or decline-save-king)",
                        side.colour().title(),
                        PLAYERS[owner]
                    ),
                    cells: vec![],
                });
                return (g, events);
            }
            g.finish(
                1 - owner,
                format!("{}'s King left the board", side.colour().title()),
                &mut events,
            );
            return (g, events);
        }
        g.phase = Phase::Draw;
        g.to_move = 1 - player;
        g.after_action_checks(&mut events);
        (g, events)
    }

    /// After an action: a call made earlier in the turn is judged now, and
    /// under `announce_checks` new checks are announced.
    fn after_action_checks(&mut self, events: &mut Vec<EventBody>) {
        let Some(turn) = self.turn.as_ref() else {
            return;
        };
        let new = new_checks(&turn.start, &self.pos);
        if turn.called {
            if new.is_empty() {
                events.push(false_call(PLAYERS[turn.player], "no new check"));
            } else {
                events.extend(self.check_events(&new));
            }
        } else if self.opts.announce_checks && !new.is_empty() {
            events.extend(self.check_events(&new));
        }
    }

    /// `check` events, one per King under a new check.
    fn check_events(&self, checks: &[(Square, Square)]) -> Vec<EventBody> {
        let mut kings: Vec<Square> = checks.iter().map(|&(_, k)| k).collect();
        kings.sort();
        kings.dedup();
        kings
            .into_iter()
            .map(|k| {
                let side = self.pos.piece_at(k).map(|(s, _)| s).unwrap_or(Side::White);
                EventBody::Check {
                    player: PLAYERS[self.controller(side)].into(),
                    attackers: checks
                        .iter()
                        .filter(|&&(_, kk)| kk == k)
                        .map(|&(x, _)| cell_of(x))
                        .collect(),
                    squares: vec![],
                }
            })
            .collect()
    }

    /// Moves that SAN must tell a move apart from: those of the same colour
    /// and type, which the same card (or a Wild Move) could have made.
    fn rivals(&self, side: Side, piece: Piece) -> Vec<Move> {
        let mut moves = Vec::new();
        self.pos.gen_moves(side, Some(piece), DC_RULES, &mut moves);
        moves
    }

    fn finish(&mut self, winner: usize, why: String, events: &mut Vec<EventBody>) {
        self.over = Some(Outcome { winner, why });
        if let Some(t) = self.turn.as_mut() {
            t.window = false;
            t.snapshot = None;
        }
        events.push(EventBody::GameOver {
            result: GameResult::Win,
            winner: Some(PLAYERS[winner].into()),
        });
    }

    /// The uncalled new checks of the turn whose window is still open.
    fn uncalled_checks(&self) -> Vec<(Square, Square)> {
        match &self.turn {
            Some(t) if t.window && !t.called && t.done.is_some() => new_checks(&t.start, &self.pos),
            _ => vec![],
        }
    }

    /// DC-6.4: the turn ends for good at the opponent's draw. An uncalled
    /// new check is logged, with the lapse of the right not used; the card
    /// is discarded; the board change is logged for a later DoubleCross.
    fn close_turn(&mut self, events: &mut Vec<EventBody>) {
        let Some(mut turn) = self.turn.take() else {
            return;
        };
        let mut lapsed = Vec::new();
        if turn.window {
            let new = if turn.done.is_some() {
                new_checks(&turn.start, &self.pos)
            } else {
                vec![]
            };
            if !new.is_empty() && !turn.called {
                events.push(EventBody::Flag(uncalled_flag(self, turn.player, &new)));
                events.push(EventBody::Notice {
                    kind: "removal_right_lapsed".into(),
                    message: format!(
                        "{} drew without removing {}: the removal right lapsed (DC-6.6)",
                        PLAYERS[1 - turn.player],
                        list_squares(new.iter().map(|&(x, _)| x))
                    ),
                    cells: vec![],
                });
                if let Some(e) = Arc::make_mut(&mut self.record).last_mut() {
                    e.notes.push("check not called".into());
                }
                lapsed = new.iter().map(|&(x, _)| x).collect();
            }
        }
        if turn.card != DcCard::Joust(Joust::SaveKing) {
            self.deck.dispose(turn.player, turn.card, self.opts.joust);
        }
        // DC-4.4: en passant only on the turn right after the double step,
        // or after a DoubleCross that brought that turn back (DC-9.2).
        let keeps_ep = matches!(
            turn.done,
            Some(Done::Action(
                Action::Move(Move {
                    kind: MoveKind::DoubleStep,
                    ..
                }) | Action::Restore
            ))
        );
        if !keeps_ep {
            self.pos.ep = None;
        }
        turn.window = false;
        let mut end = self.pos.clone();
        if let Some((sq, card)) = turn.removal {
            end.set(sq, Side::from_colour(card.colour).map(|s| (s, card.piece)));
        }
        self.logs.push(TurnLog {
            player: turn.player,
            start: turn.start,
            end,
            removal: turn.removal,
            lapsed,
        });
        if self.logs.len() > 4 {
            self.logs.remove(0);
        }
    }

    /// The player whose removal right over the piece on `sq` lapsed at the
    /// last draw, if it did.
    fn lapsed_right(&self, sq: Square) -> Option<usize> {
        let log = self.logs.last()?;
        log.lapsed.contains(&sq).then_some(1 - log.player)
    }

    /// DC-3.1 to DC-3.4 and the Joust cards resolved at the draw.
    fn draw(&self, card: DcCard) -> Verdict<DoubleCross> {
        if let Some(o) = &self.over {
            return Verdict::Flag(input_flag(
                FlagKind::Unexplained,
                "DC-8.1",
                format!("The game is over ({}): no more draws", o.why),
                None,
            ));
        }
        if let Phase::SaveKing { holder } = self.phase {
            return Verdict::Flag(input_flag(
                FlagKind::Unexplained,
                "DC-9.1",
                format!(
                    "The game waits for {}: play Save King (call save-king) or decline it \
                     (call decline-save-king) before the next draw",
                    PLAYERS[holder]
                ),
                Some(PLAYERS[holder]),
            ));
        }
        let mut g = self.clone();
        let mut events = Vec::new();
        if let Phase::Act { card: held } = g.phase {
            // DC-3.5: the board stayed unchanged although an action existed.
            let p = g.to_move;
            events.push(EventBody::Flag(input_flag(
                FlagKind::MissingMove,
                "DC-3.5",
                format!(
                    "{} drew {} but made no move; the turn is lost",
                    PLAYERS[p],
                    held.title()
                ),
                Some(PLAYERS[p]),
            )));
            Arc::make_mut(&mut g.record).push(RecordEntry {
                player: p,
                card: held,
                san: None,
                notes: vec!["no move made".into()],
            });
            if let Some(t) = g.turn.as_mut() {
                t.done = Some(Done::Nothing);
                t.snapshot = None;
            }
            g.to_move = 1 - p;
            g.phase = Phase::Draw;
        }
        let drawer = g.to_move;
        if g.phase == Phase::Draw {
            g.close_turn(&mut events);
        }
        if g.deck.pile_len() == 0 {
            g.deck.reshuffle();
            events.push(EventBody::Notice {
                kind: "reshuffle".into(),
                message: format!(
                    "The draw pile is empty: the discards are shuffled into deck {} (DC-3.4)",
                    g.deck.decks_used()
                ),
                cells: vec![],
            });
        }
        if !g.deck.take(card) {
            let why = if g.drawable().contains(&card) || self.in_deck(card) {
                format!(
                    "No {} is left in the draw pile: check the card, or the discards",
                    card.title()
                )
            } else {
                format!("There is no {} card in this game's deck", card.title())
            };
            return Verdict::Flag(input_flag(
                FlagKind::ImpossibleCard,
                "DC-3.1",
                why,
                Some(PLAYERS[drawer]),
            ));
        }
        g.draws += 1;
        events.push(EventBody::Action(draw_event(drawer, card)));
        if card == DcCard::Joust(Joust::SaveKing) {
            // DC-9.1: kept face up; the same player draws again.
            g.deck.hold_save_king(drawer);
            g.phase = Phase::DrawAgain;
            return Verdict::Advance { game: g, events };
        }
        g.turn = Some(Turn {
            player: drawer,
            card,
            start: g.pos.clone(),
            snapshot: None,
            done: None,
            called: false,
            window: true,
            removal: None,
        });
        let no_action = |g: &mut DoubleCross, events: &mut Vec<EventBody>, action: ActionKind| {
            let mut e = draw_event(drawer, card);
            e.action = action;
            events.push(EventBody::Action(e));
            if let Some(t) = g.turn.as_mut() {
                t.done = Some(Done::Nothing);
            }
            Arc::make_mut(&mut g.record).push(RecordEntry {
                player: drawer,
                card,
                san: None,
                notes: vec![],
            });
            g.phase = Phase::Draw;
            g.to_move = 1 - drawer;
        };
        match card {
            DcCard::Joust(Joust::LoseMove) => no_action(&mut g, &mut events, ActionKind::Joust),
            DcCard::Joust(Joust::SwitchSides) => {
                g.sides.swap(0, 1);
                no_action(&mut g, &mut events, ActionKind::Joust);
                if let Some(e) = Arc::make_mut(&mut g.record).last_mut() {
                    e.notes.push("the players exchange colours".into());
                }
            }
            DcCard::Joust(Joust::DoubleCross)
                if g.options(card).is_empty() && g.restore_target().is_some_and(|t| t != g.pos) =>
            {
                // Only castling or en passant rights come back.
                if let Some(t) = g.restore_target() {
                    g.pos = t;
                }
                no_action(&mut g, &mut events, ActionKind::Joust);
                if let Some(t) = g.turn.as_mut() {
                    t.done = Some(Done::Action(Action::Restore));
                }
                if let Some(e) = Arc::make_mut(&mut g.record).last_mut() {
                    e.notes
                        .push("restores the rights of the opponent's last turn".into());
                }
            }
            _ if g.options(card).is_empty() => {
                no_action(&mut g, &mut events, ActionKind::CannotMove)
            }
            _ => {
                g.phase = Phase::Act { card };
                let mut snap = g.clone();
                if let Some(t) = snap.turn.as_mut() {
                    t.snapshot = None;
                }
                if let Some(t) = g.turn.as_mut() {
                    t.snapshot = Some(Box::new(snap));
                }
            }
        }
        Verdict::Advance { game: g, events }
    }

    fn in_deck(&self, card: DcCard) -> bool {
        match card {
            DcCard::Piece(c) => self.opts.deck.get(&c).is_some_and(|&n| n > 0),
            DcCard::Joust(_) => self.opts.joust != JoustMode::Off,
        }
    }

    /// The calls of DC-6 and DC-9.1.
    fn call(&self, call: &str, by: Option<&str>) -> Verdict<DoubleCross> {
        let by_index = match by {
            None => None,
            Some(name) => match PLAYERS.iter().position(|&p| p == name) {
                Some(i) => Some(i),
                None => {
                    return Verdict::Flag(input_flag(
                        FlagKind::Unexplained,
                        "TABLE-SCRIPT",
                        format!("A call by {name:?}: the players are white and black"),
                        None,
                    ));
                }
            },
        };
        match call {
            "check" => self.call_check(by_index),
            "save-king" | "decline-save-king" => {
                let Phase::SaveKing { holder } = self.phase else {
                    return Verdict::Flag(input_flag(
                        FlagKind::Unexplained,
                        "DC-9.1",
                        "Save King is played only when the holder's King has just been captured"
                            .into(),
                        by,
                    ));
                };
                if self.over.is_some() || by_index.is_some_and(|i| i != holder) {
                    return Verdict::Flag(input_flag(
                        FlagKind::Unexplained,
                        "DC-9.1",
                        format!("Only {} holds Save King", PLAYERS[holder]),
                        by,
                    ));
                }
                if call == "save-king" {
                    let (g, events) = self.use_save_king(holder);
                    Verdict::Advance { game: g, events }
                } else {
                    let mut g = self.clone();
                    let mut events = Vec::new();
                    let side = g.sides[holder];
                    g.finish(
                        1 - holder,
                        format!(
                            "{}'s King was captured and Save King declined",
                            side.colour().title()
                        ),
                        &mut events,
                    );
                    Verdict::Advance { game: g, events }
                }
            }
            other => Verdict::Flag(input_flag(
                FlagKind::Unexplained,
                "TABLE-SCRIPT",
                format!(
                    "Unknown call {other:?} (DoubleCross calls: check, save-king, decline-save-king)"
                ),
                by,
            )),
        }
    }

    fn call_check(&self, by: Option<usize>) -> Verdict<DoubleCross> {
        let mut g = self.clone();
        let mut events = Vec::new();
        let caller = by
            .or(g.turn.as_ref().map(|t| t.player))
            .unwrap_or(g.to_move);
        match g.turn.as_mut() {
            Some(t) if t.window && t.player == caller => {
                if t.done.is_none() {
                    // Called before the action is seen: judged with it.
                    t.called = true;
                } else {
                    let new = new_checks(&t.start, &g.pos);
                    if new.is_empty() {
                        events.push(false_call(PLAYERS[caller], "no new check"));
                    } else if !t.called {
                        t.called = true;
                        events.extend(g.check_events(&new));
                    }
                }
            }
            Some(t) if t.player == caller => {
                events.push(false_call(
                    PLAYERS[caller],
                    "the call window closed at the opponent's draw or removal",
                ));
            }
            _ => events.push(false_call(
                PLAYERS[caller],
                "only the player who just moved calls check",
            )),
        }
        Verdict::Advance { game: g, events }
    }

    /// DC-9.1: the capture is reversed, the card discarded, and the use is
    /// the holder's turn.
    fn use_save_king(&self, holder: usize) -> (DoubleCross, Vec<EventBody>) {
        let mut g = self.clone();
        let captured = g.pos.clone();
        let restored = g
            .turn
            .as_ref()
            .map(|t| t.start.clone())
            .unwrap_or_else(|| g.pos.clone());
        // The capture turn ends here; the restore makes its checks moot.
        if let Some(t) = g.turn.as_mut() {
            t.window = false;
        }
        let mut ignore = Vec::new();
        g.close_turn(&mut ignore);
        g.pos = restored;
        // The King comes back from the pool.
        let side = g.sides[holder];
        let king = Card::new(side.colour(), Piece::King);
        if let Some(i) = g.removed.iter().rposition(|&c| c == king) {
            g.removed.remove(i);
        }
        g.deck.release_save_king();
        let card = DcCard::Joust(Joust::SaveKing);
        g.deck.dispose(holder, card, g.opts.joust);
        let king_sq = g.pos.king(side);
        g.turn = Some(Turn {
            player: holder,
            card,
            start: captured,
            snapshot: None,
            done: Some(Done::SaveKing),
            called: false,
            window: false,
            removal: None,
        });
        Arc::make_mut(&mut g.record).push(RecordEntry {
            player: holder,
            card,
            san: None,
            notes: vec!["Save King: the capture is reversed".into()],
        });
        g.phase = Phase::Draw;
        g.to_move = 1 - holder;
        let event = ActionEvent {
            player: PLAYERS[holder].into(),
            action: ActionKind::Joust,
            joust: Some(Joust::SaveKing.name().into()),
            card: Some(king),
            to: king_sq.map(cell_of),
            ..Default::default()
        };
        (g, vec![EventBody::Action(event)])
    }

    /// DC-6.5: the opponent removes a piece of an uncalled new check.
    pub(crate) fn remove(&self, sq: Square) -> Result<(DoubleCross, Vec<EventBody>), Box<Flag>> {
        self.remove_checker(sq).map_err(|mut f| {
            // Said plainly when the right existed but lapsed at a draw.
            if let Some(p) = self.lapsed_right(sq) {
                f.message = format!(
                    "The removal right lapsed when {} drew (DC-6.6): put the piece back on {}",
                    PLAYERS[p],
                    square_name(sq)
                );
                f.player = Some(PLAYERS[p].into());
            }
            f
        })
    }

    fn remove_checker(&self, sq: Square) -> Result<(DoubleCross, Vec<EventBody>), Box<Flag>> {
        let card = self.pos.piece_at(sq).map(card_of);
        let remover = self.to_move;
        let illegal = |why: String| {
            let mut f = Box::new(input_flag(
                FlagKind::IllegalRemoval,
                "DC-6.7",
                format!("{why}: put the piece back on {}", square_name(sq)),
                Some(PLAYERS[remover]),
            ));
            f.cells = vec![cell_of(sq)];
            f
        };
        let Some(turn) = self.turn.as_ref().filter(|t| t.player != remover) else {
            return Err(illegal("No check was left uncalled".into()));
        };
        if !turn.window {
            return Err(illegal("The removal right has lapsed".into()));
        }
        if turn.called {
            return Err(illegal(format!("{} called check", PLAYERS[turn.player])));
        }
        let new = new_checks(&turn.start, &self.pos);
        if new.is_empty() {
            return Err(illegal("No new check was left uncalled".into()));
        }
        if !new.iter().any(|&(x, _)| x == sq) {
            return Err(illegal(format!(
                "Only the piece giving the uncalled check may be removed ({})",
                list_squares(new.iter().map(|&(x, _)| x))
            )));
        }
        let card = card.expect("a checking piece stands there");
        let mut g = self.clone();
        let mut events = Vec::new();
        g.pos.set(sq, None);
        clear_lost_rights(&mut g.pos);
        g.removed.push(card);
        events.push(EventBody::Action(ActionEvent {
            player: PLAYERS[remover].into(),
            action: ActionKind::Remove,
            card: Some(card),
            from: Some(cell_of(sq)),
            ..Default::default()
        }));
        events.push(EventBody::Flag(uncalled_flag(self, turn.player, &new)));
        if let Some(e) = Arc::make_mut(&mut g.record).last_mut() {
            e.notes.push(format!(
                "check not called; {} removes {}{}",
                PLAYERS[remover],
                if card.piece == Piece::Pawn {
                    String::new()
                } else {
                    card.piece.letter().to_string()
                },
                square_name(sq)
            ));
        }
        if let Some(t) = g.turn.as_mut() {
            t.window = false;
            t.snapshot = None;
            t.removal = Some((sq, card));
        }
        if card.piece == Piece::King {
            let side = Side::from_colour(card.colour).unwrap_or(Side::White);
            let owner = g.controller(side);
            g.finish(
                1 - owner,
                format!("{}'s King was removed", side.colour().title()),
                &mut events,
            );
        }
        Ok((g, events))
    }

    pub fn in_check(&self, side: Side) -> bool {
        self.pos
            .king(side)
            .is_some_and(|k| self.pos.attackers(k, side.other()) != 0)
    }
}

impl crate::games::Game for DoubleCross {
    fn name(&self) -> &'static str {
        "doublecross"
    }

    /// A piece taken off is judged at once: removals are actions here, and
    /// a capture's or a castling's second card missing is incomplete at
    /// once (DC-3.5, DC-6.7).
    fn lifted_cards_wait(&self) -> bool {
        false
    }

    fn players(&self) -> Vec<String> {
        PLAYERS.iter().map(|p| p.to_string()).collect()
    }

    fn table(&self) -> Table {
        table_of(&self.pos)
    }

    /// The board is fixed: a table shifted by a file is pieces moved.
    fn translation_free(&self) -> bool {
        false
    }

    fn judge(&self, changes: &[crate::table::Change]) -> Verdict<Self> {
        judge::judge(self, changes)
    }

    fn judge_input(&self, input: &Observation) -> Verdict<Self> {
        match input {
            Observation::Draw(text) => match DcCard::parse(text) {
                Ok(card) => self.draw(card),
                Err(e) => Verdict::Flag(input_flag(
                    FlagKind::Unreadable,
                    "INPUT",
                    format!("Cannot read the drawn card: {e}"),
                    None,
                )),
            },
            Observation::Call { call, by } => self.call(call, by.as_deref()),
            other => Verdict::Flag(input_flag(
                FlagKind::Unexplained,
                "TABLE-SCRIPT",
                format!("doublecross does not use {} observations", other.kind()),
                None,
            )),
        }
    }

    fn is_over(&self) -> bool {
        self.over.is_some()
    }

    fn panel(&self) -> Panel {
        let players = (0..2)
            .map(|i| {
                let side = self.sides[i];
                let mut notes = vec![format!("plays {}", side.colour().name())];
                if self.deck.held() == Some(i) {
                    notes.push("holds Save King".into());
                }
                let discards = self.deck.discards(i);
                notes.push(format!(
                    "discards: {}{}",
                    discards.len(),
                    discards
                        .last()
                        .map(|c| format!(" (top {c})"))
                        .unwrap_or_default()
                ));
                PlayerPanel {
                    colour: side.colour(),
                    to_move: i == self.to_move && self.over.is_none(),
                    out: self.over.as_ref().is_some_and(|o| o.winner != i),
                    in_check: self.in_check(side),
                    plan: vec![],
                    played: 0,
                    notes,
                }
            })
            .collect();
        let mut cards = crate::games::CardPanel {
            pile: self.deck.pile_len(),
            decks_used: self.deck.decks_used(),
            ..Default::default()
        };
        match self.phase {
            _ if self.over.is_some() => {}
            Phase::Act { card } => {
                cards.drawn = Some((card.title(), PLAYERS[self.to_move].into()));
                if let DcCard::Piece(c) = card {
                    cards.drawn_colour = Some(c.colour);
                }
            }
            Phase::DrawAgain => {
                cards.next_draw = Some(PLAYERS[self.to_move].into());
                cards.draws_again = true;
            }
            Phase::SaveKing { holder } => {
                cards.pending = Some(format!(
                    "{} may play Save King (or decline it)",
                    PLAYERS[holder]
                ));
            }
            Phase::Draw => cards.next_draw = Some(PLAYERS[self.to_move].into()),
        }
        let uncalled = self.uncalled_checks();
        if !uncalled.is_empty() {
            cards.removal_right = Some(format!(
                "{} may remove {} before drawing",
                PLAYERS[self.to_move],
                list_squares(uncalled.iter().map(|&(x, _)| x))
            ));
        }
        cards.removed = self.removed.clone();
        cards.removed.sort();
        Panel {
            chessboard: true,
            cards: Some(cards),
            limit: None,
            take_off: vec![],
            armies: None,
            pending: None,
            players,
            notes: vec![],
            result: self.over.as_ref().map(|o| {
                // The colour only when it is not the player's own name.
                let side = self.sides[o.winner].colour().name();
                if side == PLAYERS[o.winner] {
                    format!("{} wins: {}", PLAYERS[o.winner], o.why)
                } else {
                    format!("{} (playing {side}) wins: {}", PLAYERS[o.winner], o.why)
                }
            }),
        }
    }

    fn square_name(&self, cell: Cell) -> Option<String> {
        cell.square()
    }

    fn record(&self) -> Option<String> {
        Some(pgn::pgn(self))
    }

    fn offered_inputs(&self) -> Vec<Observation> {
        if self.over.is_some() {
            return vec![];
        }
        if let Phase::SaveKing { holder } = self.phase {
            return ["save-king", "decline-save-king"]
                .into_iter()
                .map(|c| Observation::Call {
                    call: c.into(),
                    by: Some(PLAYERS[holder].into()),
                })
                .collect();
        }
        // One draw per copy in the pile, so a random pick deals like a
        // shuffled deck.
        let mut deck = self.deck.clone();
        if deck.pile_len() == 0 {
            deck.reshuffle();
        }
        let mut out: Vec<Observation> = self
            .drawable()
            .into_iter()
            .flat_map(|c| {
                std::iter::repeat_n(Observation::Draw(c.to_string()), deck.in_pile(c) as usize)
            })
            .collect();
        if let Some(t) = &self.turn {
            out.push(Observation::Call {
                call: "check".into(),
                by: Some(PLAYERS[t.player].into()),
            });
        }
        out
    }
}

pub(crate) fn card_of((side, piece): (Side, Piece)) -> Card {
    Card::new(side.colour(), piece)
}

pub fn table_of(pos: &Position) -> Table {
    (0..64u8)
        .filter_map(|sq| {
            pos.piece_at(sq)
                .map(|p| (cell_of(sq), Token::Up(card_of(p))))
        })
        .collect()
}

/// The squares of a bitboard, a1 first.
pub(crate) fn bits(mut b: u64) -> impl Iterator<Item = Square> {
    std::iter::from_fn(move || {
        if b == 0 {
            None
        } else {
            let sq = b.trailing_zeros() as Square;
            b &= b - 1;
            Some(sq)
        }
    })
}

/// Whether `side` still has the right to castle on that wing.
fn castle_right(p: &Position, side: Side, kingside: bool) -> bool {
    use chess::{BLACK_KINGSIDE, BLACK_QUEENSIDE, WHITE_KINGSIDE, WHITE_QUEENSIDE};
    let bit = match (side, kingside) {
        (Side::White, true) => WHITE_KINGSIDE,
        (Side::White, false) => WHITE_QUEENSIDE,
        (Side::Black, true) => BLACK_KINGSIDE,
        (Side::Black, false) => BLACK_QUEENSIDE,
    };
    p.castling & bit != 0
}

/// Whether two positions have the same pieces on the same squares.
fn same_board(a: &Position, b: &Position) -> bool {
    (0..64u8).all(|sq| a.piece_at(sq) == b.piece_at(sq))
}

/// Pawns standing on their last rank (waiting under DC-5.3).
fn waiting_pawns(pos: &Position, side: Side) -> u64 {
    let last = match side {
        Side::White => 0xff00_0000_0000_0000u64,
        Side::Black => 0xffu64,
    };
    pos.pieces(side, Piece::Pawn) & last
}

/// Castling rights whose king or rook has left its square are gone.
fn clear_lost_rights(p: &mut Position) {
    use chess::{BLACK_KINGSIDE, BLACK_QUEENSIDE, WHITE_KINGSIDE, WHITE_QUEENSIDE};
    let has = |sq: Square, side: Side, piece: Piece| p.piece_at(sq) == Some((side, piece));
    let mut keep = 0;
    if has(4, Side::White, Piece::King) {
        if has(7, Side::White, Piece::Rook) {
            keep |= WHITE_KINGSIDE;
        }
        if has(0, Side::White, Piece::Rook) {
            keep |= WHITE_QUEENSIDE;
        }
    }
    if has(60, Side::Black, Piece::King) {
        if has(63, Side::Black, Piece::Rook) {
            keep |= BLACK_KINGSIDE;
        }
        if has(56, Side::Black, Piece::Rook) {
            keep |= BLACK_QUEENSIDE;
        }
    }
    p.castling &= keep;
}

/// Whether the piece on `sq` attacks a King of the other colour.
fn gives_check(pos: &Position, sq: Square) -> bool {
    let Some((side, _)) = pos.piece_at(sq) else {
        return false;
    };
    bits(pos.pieces(side.other(), Piece::King)).any(|k| pos.attackers(k, side) & (1u64 << sq) != 0)
}

/// DC-6.1: every (attacker, King) pair on the board.
pub(crate) fn checks(pos: &Position) -> Vec<(Square, Square)> {
    let mut out = Vec::new();
    for side in [Side::White, Side::Black] {
        for k in bits(pos.pieces(side, Piece::King)) {
            out.extend(bits(pos.attackers(k, side.other())).map(|x| (x, k)));
        }
    }
    out
}

/// DC-6.2: checks at the end of a turn that did not exist at its start, or
/// whose attacker or King moved during it (discovered checks are new).
pub(crate) fn new_checks(start: &Position, end: &Position) -> Vec<(Square, Square)> {
    let before = checks(start);
    let changed = |sq: Square| start.piece_at(sq) != end.piece_at(sq);
    checks(end)
        .into_iter()
        .filter(|&(x, k)| changed(x) || changed(k) || !before.contains(&(x, k)))
        .collect()
}

fn king_gone(before: &Position, after: &Position) -> Option<Side> {
    [Side::White, Side::Black]
        .into_iter()
        .find(|&s| before.pieces(s, Piece::King) != 0 && after.pieces(s, Piece::King) == 0)
}

fn piece_counts(pos: &Position) -> BTreeMap<Card, u32> {
    let mut out = BTreeMap::new();
    for sq in 0..64u8 {
        if let Some(p) = pos.piece_at(sq) {
            *out.entry(card_of(p)).or_default() += 1;
        }
    }
    out
}

fn list_squares(sqs: impl Iterator<Item = Square>) -> String {
    let mut names: Vec<String> = sqs.map(square_name).collect();
    names.sort();
    names.dedup();
    names.join(", ")
}

fn draw_event(player: usize, card: DcCard) -> ActionEvent {
    let mut e = ActionEvent {
        player: PLAYERS[player].into(),
        action: ActionKind::Draw,
        ..Default::default()
    };
    match card {
        DcCard::Piece(c) => e.card = Some(c),
        DcCard::Joust(j) => e.joust = Some(j.name().into()),
    }
    e
}

fn input_flag(kind: FlagKind, rule: &str, message: String, player: Option<&str>) -> Flag {
    Flag {
        kind,
        cells: vec![],
        rule: rule.into(),
        message,
        player: player.map(String::from),
        squares: vec![],
    }
}

fn false_call(player: &str, why: &str) -> EventBody {
    EventBody::Notice {
        kind: "false_call".into(),
        message: format!("{player} called check: {why} (DC-6.9, no penalty)"),
        cells: vec![],
    }
}

fn uncalled_flag(g: &DoubleCross, mover: usize, new: &[(Square, Square)]) -> Flag {
    let mut cells: Vec<Cell> = Vec::new();
    for &(x, k) in new {
        for c in [cell_of(x), cell_of(k)] {
            if !cells.contains(&c) {
                cells.push(c);
            }
        }
    }
    let describe = |sq: Square| {
        g.pos
            .piece_at(sq)
            .map(|(s, p)| {
                format!(
                    "{} {} on {}",
                    s.colour().title(),
                    title_piece(p),
                    square_name(sq)
                )
            })
            .unwrap_or_else(|| square_name(sq))
    };
    let pairs: Vec<String> = new
        .iter()
        .map(|&(x, k)| format!("the {} checks the {}", describe(x), describe(k)))
        .collect();
    Flag {
        kind: FlagKind::UncalledCheck,
        cells,
        rule: "DC-6.3".into(),
        message: format!(
            "{} did not call check: {}",
            PLAYERS[mover],
            pairs.join("; ")
        ),
        player: Some(PLAYERS[mover].into()),
        squares: vec![],
    }
}

/// Colours of the ChessDek: white and black only.
pub fn is_chess_colour(c: Colour) -> bool {
    matches!(c, Colour::White | Colour::Black)
}
