//! Geometry and legality: how pieces reach squares on a board with gaps, who
//! attacks a king, the legal actions, and why an attempted action is illegal.

use super::{Action, EnPrise, Options, Sq, Violation};
use crate::event::FlagKind;
use crate::games::board::{
    DIRECTIONS, Grid, KNIGHT_LEAPS, is_orthogonal, knight_routes, line_between,
};
use crate::table::{Card, Cell, Colour, Piece, Token};

/// Read access to a board, so legality can be tested on "the board after
/// this action" without copying it.
pub(super) trait Squares {
    fn at(&self, c: Cell) -> Sq;
}

impl Squares for Grid<Sq> {
    #[inline]
    fn at(&self, c: Cell) -> Sq {
        self.get(c)
    }
}

/// A board with up to two cells replaced.
struct Overlay<'a> {
    base: &'a Grid<Sq>,
    over: [(Cell, Sq); 2],
    n: usize,
}

impl<'a> Overlay<'a> {
    fn new(base: &'a Grid<Sq>, changes: &[(Cell, Sq)]) -> Self {
        let mut over = [(Cell::default(), Sq::Empty); 2];
        over[..changes.len()].copy_from_slice(changes);
        Overlay {
            base,
            over,
            n: changes.len(),
        }
    }
}

impl Squares for Overlay<'_> {
    #[inline]
    fn at(&self, c: Cell) -> Sq {
        for &(cell, s) in &self.over[..self.n] {
            if cell == c {
                return s;
            }
        }
        self.base.get(c)
    }
}

/// Why a piece cannot reach a cell.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Unreachable {
    /// Not a move this piece makes at all.
    Shape,
    /// The path crosses a missing cell.
    Gap(Cell),
    /// The path passes through an occupied square.
    Blocked(Cell),
    /// Neither L route of a knight's leap is whole; the first missing cell.
    KnightGap(Cell),
}

/// Whether `piece` standing on `from` reaches `to` along existing squares
/// (EP-MOVE-CHESS, EP-MOVE-EXIST, EP-MOVE-KNIGHT), whatever stands on `to`.
pub(super) fn reach(
    b: &impl Squares,
    from: Cell,
    piece: Piece,
    to: Cell,
) -> Result<(), Unreachable> {
    let (dc, dr) = (to.col - from.col, to.row - from.row);
    match piece {
        Piece::Pawn => Err(Unreachable::Shape),
        Piece::King => {
            if from.king_distance(to) == 1 {
                Ok(())
            } else {
                Err(Unreachable::Shape)
            }
        }
        Piece::Knight => {
            if !KNIGHT_LEAPS.contains(&(dc, dr)) {
                return Err(Unreachable::Shape);
            }
            let mut first_gap = None;
            for route in knight_routes((dc, dr)) {
                let gap = route
                    .iter()
                    .map(|&(c, r)| from.offset(c, r))
                    .find(|&c| !b.at(c).exists());
                match gap {
                    None => return Ok(()),
                    Some(g) => {
                        first_gap.get_or_insert(g);
                    }
                }
            }
            Err(Unreachable::KnightGap(
                first_gap.expect("both routes had a gap"),
            ))
        }
        Piece::Queen | Piece::Rook | Piece::Bishop => {
            let Some((dir, dist)) = line_between(from, to) else {
                return Err(Unreachable::Shape);
            };
            let fits = match piece {
                Piece::Rook => is_orthogonal(dir),
                Piece::Bishop => !is_orthogonal(dir),
                _ => true,
            };
            if !fits {
                return Err(Unreachable::Shape);
            }
            for k in 1..dist {
                let c = from.offset(dir.0 * k, dir.1 * k);
                match b.at(c) {
                    Sq::Empty => return Err(Unreachable::Gap(c)),
                    Sq::Piece(_) => return Err(Unreachable::Blocked(c)),
                    Sq::Vacant => {}
                }
            }
            Ok(())
        }
    }
}

/// Does a `card` standing at `from` attack `target` (EP-CHECK)?
fn attacks(b: &impl Squares, from: Cell, card: Card, target: Cell, opts: &Options) -> bool {
    if card.piece == Piece::Pawn {
        // EP-PAWN-NOATTACK, unless the house rule is turned off.
        return opts.pawns_attack
            && from.king_distance(target) == 1
            && from.col != target.col
            && from.row != target.row;
    }
    reach(b, from, card.piece, target).is_ok()
}

/// Every opponent piece attacking the king of `owner` at `king`, walking out
/// from the king: rays stop at gaps and at the first card face-up.
pub(super) fn attackers(b: &impl Squares, king: Cell, owner: Colour, opts: &Options) -> Vec<Cell> {
    let mut out = Vec::new();
    scan_attackers(b, king, owner, opts, |c| {
        out.push(c);
        true
    });
    out.sort();
    out
}

pub(super) fn is_attacked(b: &impl Squares, king: Cell, owner: Colour, opts: &Options) -> bool {
    let mut hit = false;
    scan_attackers(b, king, owner, opts, |_| {
        hit = true;
        false
    });
    hit
}

/// Calls `found` for each attacker until it returns false.
fn scan_attackers(
    b: &impl Squares,
    king: Cell,
    owner: Colour,
    opts: &Options,
    mut found: impl FnMut(Cell) -> bool,
) {
    for dir in DIRECTIONS {
        let mut c = king;
        for dist in 1.. {
            c = c.offset(dir.0, dir.1);
            match b.at(c) {
                Sq::Empty => break,
                Sq::Vacant => continue,
                Sq::Piece(card) => {
                    if card.colour != owner {
                        let hit = match card.piece {
                            Piece::Queen => true,
                            Piece::Rook => is_orthogonal(dir),
                            Piece::Bishop => !is_orthogonal(dir),
                            Piece::King => dist == 1,
                            Piece::Pawn => opts.pawns_attack && dist == 1 && !is_orthogonal(dir),
                            Piece::Knight => false,
                        };
                        if hit && !found(c) {
                            return;
                        }
                    }
                    break;
                }
            }
        }
    }
    for (dc, dr) in KNIGHT_LEAPS {
        let c = king.offset(dc, dr);
        if let Sq::Piece(card) = b.at(c)
            && card.colour != owner
            && card.piece == Piece::Knight
            && reach(b, c, Piece::Knight, king).is_ok()
            && !found(c)
        {
            return;
        }
    }
}

fn violation(
    kind: FlagKind,
    rule: &'static str,
    player: Colour,
    cells: Vec<Cell>,
    message: String,
) -> Violation {
    Violation {
        kind,
        rule,
        message,
        player,
        cells,
    }
}

impl EnPrise {
    fn is_opponent(&self, me: Colour, c: Colour) -> bool {
        c != me && self.index_of(c).is_some_and(|j| !self.out[j])
    }

    /// EP-KING-NEAR: an opponent's king touches `cell`.
    fn touches_enemy_king(&self, me: Colour, cell: Cell) -> Option<Colour> {
        (0..self.players.len()).find_map(|j| {
            let k = self.king[j]?;
            (self.players[j] != me && !self.out[j] && k.king_distance(cell) <= 1)
                .then_some(self.players[j])
        })
    }

    fn has_neighbour(&self, cell: Cell) -> bool {
        DIRECTIONS
            .iter()
            .any(|&(dc, dr)| self.board.get(cell.offset(dc, dr)).exists())
    }

    /// Whether `me`'s king (if on the board) is attacked once `changes` are made;
    /// `king_to` is where the king stands if it is the piece that moves.
    fn exposes(&self, i: usize, changes: &[(Cell, Sq)], king_to: Option<Cell>) -> bool {
        let Some(k) = king_to.or(self.king[i]) else {
            return false;
        };
        is_attacked(
            &Overlay::new(&self.board, changes),
            k,
            self.players[i],
            &self.opts,
        )
    }

    /// The empty cells a new card may go to (8-neighbourhood of the board).
    fn frontier(&self) -> Vec<Cell> {
        let mut out: Vec<Cell> = Vec::with_capacity(self.cards * 3);
        for (c, _) in self.board.iter() {
            for (dc, dr) in DIRECTIONS {
                let n = c.offset(dc, dr);
                if !self.board.get(n).exists() {
                    out.push(n);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Every legal action of the player to act. While an escape square may
    /// follow a summoning, that is the summoner's escape squares and then
    /// everything the next player may do once the summoner's turn closes.
    pub fn legal_actions(&self) -> Vec<Action> {
        let mut out = Vec::new();
        if self.over.is_some() {
            return out;
        }
        if self.escape_pending {
            self.escapes(&mut |a| {
                out.push(a);
                true
            });
            let closed = self.closed().state;
            if closed.over.is_none() {
                closed.turn_actions(&mut |a| {
                    out.push(a);
                    true
                });
            }
            return out;
        }
        self.turn_actions(&mut |a| {
            out.push(a);
            true
        });
        out
    }

    /// Whether the player to act has any legal action (stops at the first).
    pub(super) fn has_legal_action(&self) -> bool {
        let mut any = false;
        self.turn_actions(&mut |_| {
            any = true;
            false
        });
        any
    }

    fn escapes(&self, emit: &mut dyn FnMut(Action) -> bool) {
        let i = self.turn;
        let Some(&piece) = self.plans[i].get(self.next[i]) else {
            return;
        };
        let me = self.players[i];
        for to in self.frontier() {
            if !self.exposes(i, &[(to, Sq::Vacant)], None)
                && !emit(Action::Escape {
                    player: me,
                    card: Card::new(me, piece),
                    to,
                })
            {
                return;
            }
        }
    }

    /// The actions of the player whose turn it is (escape squares aside).
    /// `emit` returns false to stop.
    fn turn_actions(&self, emit: &mut dyn FnMut(Action) -> bool) {
        let i = self.turn;
        let me = self.players[i];
        let must_summon = self.must_summon[i] && self.king[i].is_none();
        if !must_summon {
            // Moves first: they are the quickest proof that an action exists.
            for (from, s) in self.board.iter() {
                let Sq::Piece(card) = s else { continue };
                if card.colour != me || card.piece == Piece::Pawn {
                    continue;
                }
                if !self.piece_moves(i, from, card, emit) {
                    return;
                }
            }
        }
        let empty_board = self.cards == 0;
        let frontier = if empty_board {
            vec![Cell::default()]
        } else {
            self.frontier()
        };
        let vacants: Vec<Cell> = self
            .board
            .iter()
            .filter(|(_, s)| *s == Sq::Vacant)
            .map(|(c, _)| c)
            .collect();
        let near_king = |c: Cell| self.touches_enemy_king(me, c).is_some();

        if self.king[i].is_none() && (must_summon || self.vacant >= 6) {
            let king = Card::new(me, Piece::King);
            for (to, onto) in frontier
                .iter()
                .map(|&c| (c, false))
                .chain(vacants.iter().map(|&c| (c, true)))
            {
                if !near_king(to)
                    && !self.exposes(i, &[(to, Sq::Piece(king))], Some(to))
                    && !emit(Action::Summon {
                        player: me,
                        to,
                        onto,
                    })
                {
                    return;
                }
            }
        }
        if must_summon {
            return;
        }
        let Some(&piece) = self.plans[i].get(self.next[i]) else {
            return;
        };
        let card = Card::new(me, piece);
        let up_ok = |to: Cell| {
            !near_king(to)
                && !self.attacks_enemy_king(me, to, card)
                && !self.exposes(i, &[(to, Sq::Piece(card))], None)
        };
        let place = |to, down, onto| Action::Place {
            player: me,
            card,
            to,
            down,
            onto,
        };
        for &to in &frontier {
            if up_ok(to) && !emit(place(to, false, false)) {
                return;
            }
            if piece == Piece::Pawn
                && !self.exposes(i, &[(to, Sq::Vacant)], None)
                && !emit(place(to, true, false))
            {
                return;
            }
        }
        for &to in &vacants {
            if up_ok(to) && !emit(place(to, false, true)) {
                return;
            }
        }
    }

    /// EP-KING-NOCHECK: would `card` placed at `at` attack an opponent's king?
    fn attacks_enemy_king(&self, me: Colour, at: Cell, card: Card) -> bool {
        let b = Overlay::new(&self.board, &[(at, Sq::Piece(card))]);
        (0..self.players.len()).any(|j| {
            self.players[j] != me
                && !self.out[j]
                && self.king[j].is_some_and(|k| attacks(&b, at, card, k, &self.opts))
        })
    }

    /// Emits the legal moves of one piece; false if `emit` asked to stop.
    fn piece_moves(
        &self,
        i: usize,
        from: Cell,
        card: Card,
        emit: &mut dyn FnMut(Action) -> bool,
    ) -> bool {
        let me = self.players[i];
        let mut try_to = |to: Cell| -> bool {
            let captured = match self.board.get(to) {
                Sq::Vacant => None,
                Sq::Piece(t) if self.is_opponent(me, t.colour) && t.piece != Piece::King => Some(t),
                _ => return true,
            };
            let king_to = (card.piece == Piece::King).then_some(to);
            if self.exposes(i, &[(from, Sq::Vacant), (to, Sq::Piece(card))], king_to) {
                return true;
            }
            emit(Action::Move {
                player: me,
                card,
                from,
                to,
                captured,
            })
        };
        match card.piece {
            Piece::Pawn => true,
            Piece::King => DIRECTIONS
                .iter()
                .all(|&(dc, dr)| try_to(from.offset(dc, dr))),
            Piece::Knight => KNIGHT_LEAPS.iter().all(|&(dc, dr)| {
                let to = from.offset(dc, dr);
                !self.board.get(to).exists()
                    || reach(&self.board, from, Piece::Knight, to).is_err()
                    || try_to(to)
            }),
            _ => {
                for dir in DIRECTIONS {
                    let fits = match card.piece {
                        Piece::Rook => is_orthogonal(dir),
                        Piece::Bishop => !is_orthogonal(dir),
                        _ => true,
                    };
                    if !fits {
                        continue;
                    }
                    let mut to = from;
                    loop {
                        to = to.offset(dir.0, dir.1);
                        let s = self.board.get(to);
                        if !s.exists() {
                            break;
                        }
                        if !try_to(to) {
                            return false;
                        }
                        if s != Sq::Vacant {
                            break;
                        }
                    }
                }
                true
            }
        }
    }

    // ---- Judging one attempted action -------------------------------------

    /// Checks an attempted placement of `token` at `cell` by whoever placed
    /// it, in a state with no escape square pending.
    pub(super) fn check_place(&self, cell: Cell, token: Token) -> Result<Action, Violation> {
        let i = self.turn;
        let me = self.players[i];
        // The player at fault: whoever owns the card, if they are playing
        // (acting out of turn); otherwise the player whose turn it is.
        let who = match token {
            Token::Up(card) if self.index_of(card.colour).is_some() => card.colour,
            _ => me,
        };
        let v = |kind, rule, msg: String| violation(kind, rule, who, vec![cell], msg);
        let card = match token {
            Token::Up(card) => {
                if card.colour != me {
                    return Err(match self.index_of(card.colour) {
                        Some(j) if !self.out[j] => v(
                            FlagKind::WrongPlayer,
                            "EP-TURN",
                            format!(
                                "It is {}'s turn, not {}'s: take the {} at {cell} back",
                                me.title(),
                                card.colour.title(),
                                card.describe()
                            ),
                        ),
                        Some(_) => v(
                            FlagKind::WrongCard,
                            "EP-MATE",
                            format!(
                                "{} is out of the game: take the {} at {cell} back",
                                card.colour.title(),
                                card.describe()
                            ),
                        ),
                        None => v(
                            FlagKind::WrongCard,
                            "EP-DECK",
                            format!(
                                "No {} player is in this game: take the {} at {cell} off the table",
                                card.colour.name(),
                                card.describe()
                            ),
                        ),
                    });
                }
                if card.piece == Piece::King {
                    return self.check_summon(cell);
                }
                Some(card)
            }
            _ => None,
        };
        if self.must_summon[i] && self.king[i].is_none() {
            return Err(v(
                FlagKind::KingRequired,
                "EP-KING-ANSWER",
                format!(
                    "An opponent's king is on the board: {} must summon the king this turn",
                    me.title()
                ),
            ));
        }
        let Some(&next) = self.plans[i].get(self.next[i]) else {
            return Err(v(
                FlagKind::IllegalPlacement,
                "EP-EMPTY-PLAN",
                format!(
                    "{}'s Battleplan is empty: {} can only move",
                    me.title(),
                    me.title()
                ),
            ));
        };
        match card {
            Some(card) if card.piece != next => {
                return Err(v(
                    FlagKind::WrongCard,
                    "EP-PLACE-ORDER",
                    format!(
                        "{}'s next Battleplan card is the {}, not the {}: swap the card at {cell}",
                        me.title(),
                        next.name(),
                        card.piece.name()
                    ),
                ));
            }
            None if next != Piece::Pawn => {
                return Err(v(
                    FlagKind::IllegalPlacement,
                    "EP-PLACE-DOWN",
                    format!(
                        "Only pawns go face-down: {}'s next card is the {}; turn the card at {cell} face-up",
                        me.title(),
                        next.name()
                    ),
                ));
            }
            _ => {}
        }
        let card = Card::new(me, next);
        let onto = self.check_position(i, cell, card.piece, token.card().is_some())?;
        Ok(Action::Place {
            player: me,
            card,
            to: cell,
            down: token.card().is_none(),
            onto,
        })
    }

    /// Where a card may go (EP-FIRST, EP-PLACE-ADJ, EP-PLACE-ONTOP,
    /// EP-KING-NEAR, EP-KING-NOCHECK, EP-MOVE-SELFCHECK). Returns whether the
    /// card goes onto a vacant square.
    fn check_position(
        &self,
        i: usize,
        cell: Cell,
        piece: Piece,
        up: bool,
    ) -> Result<bool, Violation> {
        let me = self.players[i];
        let v = |kind, rule, msg: String| violation(kind, rule, me, vec![cell], msg);
        let onto = match self.board.get(cell) {
            Sq::Piece(c) => {
                return Err(v(
                    FlagKind::IllegalPlacement,
                    "EP-PLACE-ONTOP",
                    format!(
                        "Nothing is placed on a face-up card: the {} at {cell} was covered",
                        c.describe()
                    ),
                ));
            }
            Sq::Vacant if !up => {
                return Err(v(
                    FlagKind::IllegalPlacement,
                    "EP-PLACE-ONTOP",
                    format!("Nothing is placed face-down onto a vacant square ({cell})"),
                ));
            }
            Sq::Vacant => true,
            Sq::Empty => false,
        };
        if self.cards > 0 && !onto && !self.has_neighbour(cell) {
            return Err(v(
                FlagKind::IllegalPlacement,
                "EP-PLACE-ADJ",
                format!(
                    "The card at {cell} touches no other card: a new card must touch the board, side or corner"
                ),
            ));
        }
        let card = Card::new(me, piece);
        if up {
            if let Some(k) = self.touches_enemy_king(me, cell) {
                return Err(v(
                    FlagKind::IllegalPlacement,
                    "EP-KING-NEAR",
                    format!(
                        "No piece may be placed face-up touching {}'s king: take the {} at {cell} back{}",
                        k.title(),
                        card.describe(),
                        if piece == Piece::Pawn {
                            " (face-down it may stay)"
                        } else {
                            ""
                        }
                    ),
                ));
            }
            if piece != Piece::King && self.attacks_enemy_king(me, cell, card) {
                return Err(v(
                    FlagKind::IllegalPlacement,
                    "EP-KING-NOCHECK",
                    format!(
                        "A new piece may not give check as it is placed: the {} at {cell} attacks a king",
                        card.describe()
                    ),
                ));
            }
        }
        let placed = if up { Sq::Piece(card) } else { Sq::Vacant };
        let king_to = (piece == Piece::King).then_some(cell);
        if self.exposes(i, &[(cell, placed)], king_to) {
            return Err(v(
                FlagKind::IllegalPlacement,
                "EP-MOVE-SELFCHECK",
                if piece == Piece::King {
                    format!("A king is never placed on an attacked square: {cell} is attacked")
                } else {
                    format!(
                        "That leaves {}'s king in check: take the card at {cell} back",
                        me.title()
                    )
                },
            ));
        }
        Ok(onto)
    }

    /// EP-KING-SUMMON / EP-KING-ANSWER for a king placed face-up at `cell`.
    fn check_summon(&self, cell: Cell) -> Result<Action, Violation> {
        let i = self.turn;
        let me = self.players[i];
        let v = |kind, rule, msg: String| violation(kind, rule, me, vec![cell], msg);
        if self.king[i].is_some() {
            return Err(v(
                FlagKind::WrongCard,
                "EP-DECK",
                format!(
                    "{}'s king is already on the board: take the second king at {cell} off",
                    me.title()
                ),
            ));
        }
        if !self.must_summon[i] && self.vacant < 6 {
            return Err(v(
                FlagKind::IllegalPlacement,
                "EP-KING-SUMMON",
                format!(
                    "A king may be summoned only while 6 or more vacant squares are on the board (now {}): take the king at {cell} back",
                    self.vacant
                ),
            ));
        }
        let onto = self.check_position(i, cell, Piece::King, true)?;
        Ok(Action::Summon {
            player: me,
            to: cell,
            onto,
        })
    }

    /// EP-KING-ESCAPE: a face-down card right after the king.
    pub(super) fn check_escape(&self, cell: Cell) -> Result<Action, Violation> {
        let i = self.turn;
        let me = self.players[i];
        let Some(&piece) = self.plans[i].get(self.next[i]) else {
            return Err(violation(
                FlagKind::IllegalPlacement,
                "EP-KING-ESCAPE",
                me,
                vec![cell],
                format!(
                    "{}'s Battleplan is empty, so there is no escape square",
                    me.title()
                ),
            ));
        };
        self.check_position(i, cell, Piece::Pawn, false)?;
        Ok(Action::Escape {
            player: me,
            card: Card::new(me, piece),
            to: cell,
        })
    }

    /// Checks an attempted move of the piece at `from` to `to`, in a state
    /// with no escape square pending.
    pub(super) fn check_move(&self, from: Cell, to: Cell) -> Result<Action, Violation> {
        let i = self.turn;
        let me = self.players[i];
        // The table may show a card where the rules hold none any more: a
        // player's cards turned face-down by an elimination that closing the
        // turn before caused.
        let Sq::Piece(card) = self.board.get(from) else {
            return Err(violation(
                FlagKind::Unexplained,
                "EP-MOVE-EXIST",
                me,
                vec![from, to],
                format!("No piece stands at {from} to move"),
            ));
        };
        let v = |kind, rule, msg: String| violation(kind, rule, card.colour, vec![from, to], msg);
        let name = card.piece.name();
        if card.colour != me {
            return Err(v(
                FlagKind::WrongPlayer,
                "EP-MOVE-OWN",
                format!(
                    "It is {}'s turn and players move only their own pieces: put the {} back on {from}",
                    me.title(),
                    card.describe()
                ),
            ));
        }
        if self.must_summon[i] && self.king[i].is_none() {
            return Err(v(
                FlagKind::KingRequired,
                "EP-KING-ANSWER",
                format!(
                    "An opponent's king is on the board: {} must summon the king this turn",
                    me.title()
                ),
            ));
        }
        if card.piece == Piece::Pawn {
            return Err(v(
                FlagKind::IllegalMove,
                "EP-MOVE-PAWN",
                format!("Pawns never move: put the pawn back on {from}"),
            ));
        }
        let captured = match self.board.get(to) {
            Sq::Empty => {
                return Err(v(
                    FlagKind::IllegalMove,
                    "EP-MOVE-EXIST",
                    format!("Moving never creates a square: there was no card at {to}"),
                ));
            }
            Sq::Vacant => None,
            Sq::Piece(t) if t.colour == me => {
                return Err(v(
                    FlagKind::IllegalMove,
                    "EP-MOVE-DEST",
                    format!(
                        "A piece cannot land on its own side's {} at {to}",
                        t.piece.name()
                    ),
                ));
            }
            // "This also means a king is never captured" (EP-MOVE-SELFCHECK).
            Sq::Piece(t) if t.piece == Piece::King => {
                return Err(v(
                    FlagKind::IllegalMove,
                    "EP-MOVE-SELFCHECK",
                    format!(
                        "A king is never captured: put the {} back on {from}",
                        card.describe()
                    ),
                ));
            }
            Sq::Piece(t) => Some(t),
        };
        match reach(&self.board, from, card.piece, to) {
            Ok(()) => {}
            Err(Unreachable::Shape) => {
                return Err(v(
                    FlagKind::IllegalMove,
                    "EP-MOVE-CHESS",
                    format!("A {name} does not move like that ({from} to {to})"),
                ));
            }
            Err(Unreachable::Gap(c)) => {
                return Err(v(
                    FlagKind::IllegalMove,
                    "EP-MOVE-EXIST",
                    format!(
                        "The {name} cannot cross the gap at {c}: a piece moves only over existing squares"
                    ),
                ));
            }
            Err(Unreachable::Blocked(c)) => {
                return Err(v(
                    FlagKind::IllegalMove,
                    "EP-MOVE-EXIST",
                    format!("The {name} cannot pass through the occupied square at {c}"),
                ));
            }
            Err(Unreachable::KnightGap(c)) => {
                return Err(v(
                    FlagKind::IllegalMove,
                    "EP-MOVE-KNIGHT",
                    format!(
                        "Knight cannot jump the gap at {c}: neither L-shaped path from {from} to {to} is whole"
                    ),
                ));
            }
        }
        let king_to = (card.piece == Piece::King).then_some(to);
        if self.exposes(i, &[(from, Sq::Vacant), (to, Sq::Piece(card))], king_to) {
            return Err(v(
                FlagKind::IllegalMove,
                "EP-MOVE-SELFCHECK",
                format!(
                    "That leaves {}'s king in check: put the {name} back on {from}",
                    me.title()
                ),
            ));
        }
        Ok(Action::Move {
            player: me,
            card,
            from,
            to,
            captured,
        })
    }

    /// Whether `action` is legal now, and if not, why. The same judgement the
    /// referee makes of a table showing it.
    pub fn check(&self, action: Action) -> Result<(), Violation> {
        if self.over.is_some() {
            return Err(violation(
                FlagKind::Unexplained,
                "EP-MATE",
                action.player(),
                vec![],
                "The game is over".into(),
            ));
        }
        let state = if self.escape_pending && !matches!(action, Action::Escape { .. }) {
            self.closed().state
        } else {
            self.clone()
        };
        let got = match action {
            Action::Move { from, to, card, .. } => {
                if state.board.get(from) != Sq::Piece(card) {
                    return Err(violation(
                        FlagKind::Unexplained,
                        "EP-MOVE-EXIST",
                        action.player(),
                        vec![from],
                        format!("No {card} stands on {from}"),
                    ));
                }
                state.check_move(from, to)?
            }
            Action::Place { card, to, down, .. } => {
                state.check_place(to, if down { Token::Down } else { Token::Up(card) })?
            }
            Action::Summon { player, to, .. } => {
                state.check_place(to, Token::Up(Card::new(player, Piece::King)))?
            }
            Action::Escape { to, .. } => {
                if !state.escape_pending {
                    return Err(violation(
                        FlagKind::IllegalPlacement,
                        "EP-KING-ESCAPE",
                        action.player(),
                        vec![to],
                        "An escape square follows only the king's summoning".into(),
                    ));
                }
                state.check_escape(to)?
            }
        };
        if got == action {
            Ok(())
        } else {
            Err(violation(
                FlagKind::Unexplained,
                "EP-TURN",
                action.player(),
                vec![],
                format!("{action} is not {got}"),
            ))
        }
    }

    pub(super) fn cells_of(action: Action) -> impl Iterator<Item = Cell> {
        action.cells().into_iter().flatten()
    }
}
