//! The mock input device: a virtual table driven by the keyboard.
//!
//! [`MockTable`] is the cloth as a state machine, free of any UI: the view
//! maps its keys to [`MockKey`]s, calls [`MockTable::handle`] and reports
//! what comes back. Each cell holds a *stack* of cards (a piece placed on a
//! face-down card covers it); a camera, and so the referee, sees only the top
//! card of each cell. Every card remembers its face, so a card turned
//! face-down can be turned up again.
//!
//! **Hands over the table.** While a card is held (picked up) or a cell is
//! marked for a swap (a hand on that card), the table is not settled: the
//! observation is [`Observation::Busy`] and changes made meanwhile are
//! reported as [`MockOutcome::Busy`]. The table is reported once both hands
//! are free. That is what lets one action made of several keys reach the
//! referee as one settled table:
//!
//! - place: `u` (face-up) or `d` (face-down) at the cell;
//! - move: `s` at the piece, `s` at the face-down card (SWAP);
//! - capture: `s` at the piece, then at the captured card `f` (it turns
//!   face-down) and `s` (SWAP): the piece lands there, the captured card
//!   comes back face-down. `s` `s` first and `f` at the origin afterwards
//!   works too, but the table between shows a missed FLIP for a moment;
//! - missed FLIP: `s` `s` only; missed SWAP: `space` at the piece, `space`
//!   at the face-down card (the piece stacks on it, the origin is left
//!   empty), mended as the flag says: `Tab` at the piece takes the card
//!   from under it, `space` at the origin puts it there; a card out of
//!   order: `c` until it is shown, then `u`.
//!
//! **Chessboards** ([`MockTable::chessboard`], DoubleCross) hold one piece a
//! square: a piece put down on another captures it. **Enochian boards**
//! ([`MockTable::enochian`]) add throne pairs: a piece put down on a piece of
//! its own team joins it (the cell reports [`Token::pair`]; the referee
//! judges whether that join is legal), a piece put on a pair of the other
//! team captures both, and `space` on a pair lifts one card — the partner
//! first; `Tab` chooses the other.

use std::collections::BTreeMap;

use crate::observation::Observation;
use crate::table::{Beneath, Card, Cell, Colour, Piece, Table, Token};

/// One key of the mock device. The view maps its own key codes to these
/// ([`MockKey::from_char`] for the character keys of [`HELP`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MockKey {
    Up,
    Down,
    Left,
    Right,
    /// Put the card to place face-up on the cursor cell.
    PlaceUp,
    /// Put the card to place face-down on the cursor cell.
    PlaceDown,
    /// Pick up the top card of the cursor cell, or put the held card down
    /// there.
    PickPut,
    /// Turn the top card of the cursor cell over.
    Flip,
    /// Mark the cursor cell; at another cell, swap the two top cards; at the
    /// marked cell, unmark.
    Swap,
    /// PickPut the top card of the cursor cell off the table.
    Remove,
    /// Choose another card to place.
    CycleCard,
    /// On an Enochian throne pair: choose which of the two cards
    /// [`MockKey::PickPut`] and [`MockKey::Remove`] take.
    OtherInCell,
    /// Put the held card back, else drop the mark, else go back to the next
    /// card.
    Cancel,
}

impl MockKey {
    /// The key a typed character stands for, as labelled in [`HELP`]. Arrow
    /// keys, Enter, Del and Esc have no character: the view maps them itself.
    pub fn from_char(c: char) -> Option<MockKey> {
        Some(match c {
            'k' => MockKey::Up,
            'j' => MockKey::Down,
            'h' => MockKey::Left,
            'l' => MockKey::Right,
            'u' => MockKey::PlaceUp,
            'd' => MockKey::PlaceDown,
            ' ' | 'p' => MockKey::PickPut,
            'f' => MockKey::Flip,
            's' => MockKey::Swap,
            'x' => MockKey::Remove,
            'c' => MockKey::CycleCard,
            _ => return None,
        })
    }
}

/// The keys, for the help overlay: label and what the key does.
pub const HELP: &[(&str, &str)] = &[
    (
        "← ↑ → ↓  h j k l",
        "move the cursor (anywhere, also beyond the cards)",
    ),
    (
        "u  Enter",
        "place the card to place face-up here (on an empty cell or on top of what lies here)",
    ),
    ("d", "place the card to place face-down here"),
    (
        "space  p",
        "pick up the top card here; with a card in hand, put it down here, on top",
    ),
    ("f", "flip the top card here"),
    (
        "s",
        "swap: mark this card; at another cell, swap the two top cards; here again, unmark",
    ),
    ("x  Del", "take the top card here off the table"),
    (
        "Tab",
        "take the card from under the piece here (to mend a missed SWAP: then space where it belongs)",
    ),
    (
        "c",
        "choose another card to place: the mover's, then the other colours', then the next card again",
    ),
    (
        "Esc",
        "put the held card back; else drop the mark; else place the next card again",
    ),
];

/// The keys of a chessboard ([`MockTable::chessboard`]), for the help
/// overlay.
pub const CHESS_HELP: &[(&str, &str)] = &[
    ("arrows hjkl", "move the cursor over the board"),
    (
        "space  p",
        "pick up here; put the piece in hand down here (captures)",
    ),
    ("x  Del", "take the piece here off (a removal, en passant)"),
    (
        "c",
        "exchange the piece in hand or here: P→Q→R→B→N→P (promotion)",
    ),
    ("c (empty)", "choose the piece u puts down"),
    (
        "u  Enter",
        "put down the piece taken off last (or the one chosen)",
    ),
    ("Esc", "put the piece in hand back; else forget the choice"),
];

/// The keys of an Enochian board ([`MockTable::enochian`]), for the help
/// overlay.
pub const ENOCHIAN_HELP: &[(&str, &str)] = &[
    ("arrows hjkl", "move the cursor over the board"),
    (
        "space  p",
        "pick up; put down (takes an enemy, joins its own team)",
    ),
    ("Tab", "on a throne pair: choose the card space lifts"),
    (
        "x  Del",
        "take the piece here off (of a pair: the one space lifts)",
    ),
    (
        "c",
        "exchange the piece in hand or here: P→Q→R→B→N→P (promotion)",
    ),
    ("c (empty)", "choose the piece u puts down"),
    (
        "u  Enter",
        "put down the piece taken off last (or the one chosen)",
    ),
    ("Esc", "put the piece in hand back; else forget the choice"),
];

/// A card on the virtual cloth or in hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MockCard {
    face: Option<Card>,
    up: bool,
}

impl MockCard {
    pub const fn up(card: Card) -> MockCard {
        MockCard {
            face: Some(card),
            up: true,
        }
    }

    pub const fn down(card: Card) -> MockCard {
        MockCard {
            face: Some(card),
            up: false,
        }
    }

    /// The cards of a token of a start table, bottom first: `##` is a
    /// face-down card whose face the mock does not know; `??` a face-up
    /// card it cannot read; a throne pair is its king with the partner on
    /// top (lifted first, as the partner usually leaves the throne).
    fn from_token(t: Token) -> Vec<MockCard> {
        match t {
            Token::Up(c) => vec![MockCard::up(c)],
            Token::Pair(a, b) => vec![MockCard::up(a), MockCard::up(b)],
            Token::Down => vec![MockCard {
                face: None,
                up: false,
            }],
            Token::Unreadable => vec![MockCard {
                face: None,
                up: true,
            }],
        }
    }

    /// What is printed on the card, if the mock knows.
    pub fn face(self) -> Option<Card> {
        self.face
    }

    pub fn is_up(self) -> bool {
        self.up
    }

    /// What a camera sees of the card.
    pub fn token(self) -> Token {
        match (self.up, self.face) {
            (false, _) => Token::Down,
            (true, Some(c)) => Token::Up(c),
            (true, None) => Token::Unreadable,
        }
    }
}

/// What a key did.
#[derive(Clone, Debug, PartialEq)]
pub enum MockOutcome {
    /// The table changed (or became settled again) and is settled: report
    /// this observation.
    Table(Observation),
    /// The table is not settled (a card is held or a cell marked): report
    /// [`Observation::Busy`].
    Busy,
    /// Only the cursor, the mark or the card to place changed: redraw,
    /// nothing to report.
    Cursor,
    /// The key did nothing here, and why.
    Nothing(String),
}

/// The virtual table. See the module documentation.
#[derive(Clone, Debug)]
pub struct MockTable {
    /// Bottom card first; never an empty stack.
    stacks: BTreeMap<Cell, Vec<MockCard>>,
    cursor: Cell,
    held: Option<(MockCard, Cell)>,
    /// The held card was taken from under the top card of its cell (Tab):
    /// Esc puts it back there, under.
    held_from_under: bool,
    marked: Option<Cell>,
    /// The card chosen with [`MockKey::CycleCard`] instead of the next one.
    chosen: Option<Card>,
    /// The colours [`MockKey::CycleCard`] offers, in turn order.
    colours: Vec<Colour>,
    /// A fixed 8x8 chessboard: see the module documentation.
    chess: bool,
    /// Chessboard mode: the pieces taken off the board, the last one last,
    /// as players keep them beside the board to put back.
    off: Vec<Card>,
    /// Cards the mover holds (a Battleplan's rest, a Twelve supply):
    /// [`MockKey::CycleCard`] offers them first, then any other card, so a
    /// wrong card can still be tried.
    preferred: Vec<Card>,
    /// An Enochian board: two pieces of one team may share a square.
    pairs: bool,
}

/// The team of an Enochian army: Blue and Black are Air, Red and Yellow
/// Earth (the other colours have none).
fn team(c: Colour) -> Option<u8> {
    match c {
        Colour::Blue | Colour::Black => Some(0),
        Colour::Red | Colour::Yellow => Some(1),
        Colour::White => None,
    }
}

fn same_team(a: Card, b: Card) -> bool {
    team(a.colour).is_some() && team(a.colour) == team(b.colour)
}

/// The squares of a chessboard: columns and rows 0..8 (rank 8 on row 0).
const BOARD: std::ops::Range<i32> = 0..8;

/// The type a piece is exchanged for, in the order players look for the
/// promoted piece: a pawn becomes a queen first; the cycle comes back to a
/// pawn so that a promotion can be put back. A King is never exchanged.
fn exchanged(p: Piece) -> Option<Piece> {
    Some(match p {
        Piece::Pawn => Piece::Queen,
        Piece::Queen => Piece::Rook,
        Piece::Rook => Piece::Bishop,
        Piece::Bishop => Piece::Knight,
        Piece::Knight => Piece::Pawn,
        Piece::King => return None,
    })
}

impl MockTable {
    /// The start position's top tokens, each a one-card stack; the cursor on
    /// its first card (or at (0,0) on an empty table).
    pub fn new(start: &Table) -> MockTable {
        MockTable {
            stacks: start
                .iter()
                .map(|(c, t)| (c, MockCard::from_token(t)))
                .collect(),
            cursor: start.cells().first().map_or(Cell::default(), |(c, _)| *c),
            held: None,
            held_from_under: false,
            marked: None,
            chosen: None,
            colours: Colour::ALL.to_vec(),
            chess: false,
            off: Vec::new(),
            preferred: Vec::new(),
            pairs: false,
        }
    }

    /// A fixed 8x8 chessboard holding `start` (DoubleCross): the cursor on
    /// e2, the white king's pawn, where a game usually begins.
    pub fn chessboard(start: &Table) -> MockTable {
        let mut m = MockTable::new(start).with_colours(&[Colour::White, Colour::Black]);
        m.chess = true;
        m.cursor = Cell::new(4, 6);
        m
    }

    /// An Enochian board holding `start` (its throne pairs as two cards):
    /// a chessboard whose pieces join those of their own team instead of
    /// capturing them. The cursor on e2, before Blue's throne.
    pub fn enochian(start: &Table) -> MockTable {
        let mut m = MockTable::chessboard(start).with_colours(&[
            Colour::Blue,
            Colour::Red,
            Colour::Black,
            Colour::Yellow,
        ]);
        m.pairs = true;
        m
    }

    /// The same kind of board, holding `start` and nothing else (a resumed
    /// game: what lay in hand or beside the board is not journaled).
    pub fn restarted(&self, start: &Table) -> MockTable {
        let mut m = if self.pairs {
            MockTable::enochian(start)
        } else if self.chess {
            MockTable::chessboard(start)
        } else {
            MockTable::new(start)
        };
        m.colours = self.colours.clone();
        m
    }

    /// [`MockTable::restarted`], with the cards that lay under the top ones
    /// (as [`MockTable::beneath`] gave them): a resumed game's stacks.
    pub fn restarted_with(&self, start: &Table, beneath: &Beneath) -> MockTable {
        let mut m = self.restarted(start);
        for (cell, under) in beneath {
            let Some(stack) = m.stacks.get_mut(cell) else {
                // Nothing shows there: a card under nothing is no stack.
                continue;
            };
            let mut cards: Vec<MockCard> = under
                .iter()
                .flat_map(|&t| MockCard::from_token(t))
                .collect();
            cards.append(stack);
            *stack = cards;
        }
        m
    }

    /// The cards under each cell's top card, bottom first: what
    /// [`MockTable::table`] does not show (a piece put on a face-down card).
    /// A chessboard shows all it holds (a throne pair is both cards).
    pub fn beneath(&self) -> Beneath {
        if self.chess {
            return Beneath::new();
        }
        self.stacks
            .iter()
            .filter(|(_, s)| s.len() > 1)
            .map(|(&c, s)| (c, s[..s.len() - 1].iter().map(|m| m.token()).collect()))
            .collect()
    }

    /// Whether this is a chessboard (see [`MockTable::chessboard`]).
    pub fn is_chessboard(&self) -> bool {
        self.chess
    }

    /// Whether pieces of one team join as throne pairs (see
    /// [`MockTable::enochian`]).
    pub fn has_pairs(&self) -> bool {
        self.pairs
    }

    /// On a throne pair, the card [`MockKey::PickPut`] would lift here and
    /// the one that would stay.
    pub fn pair_here(&self) -> Option<(Card, Card)> {
        match self.stack(self.cursor) {
            [stay, lift] if self.chess => Some((lift.face?, stay.face?)),
            _ => None,
        }
    }

    /// Chessboard mode: the pieces taken off the board, the last one last.
    pub fn off_board(&self) -> &[Card] {
        &self.off
    }

    /// The keys of this table, for the help overlay.
    pub fn help(&self) -> &'static [(&'static str, &'static str)] {
        if self.pairs {
            ENOCHIAN_HELP
        } else if self.chess {
            CHESS_HELP
        } else {
            HELP
        }
    }

    /// Limits the cards [`MockKey::CycleCard`] offers to these colours (the
    /// game's players, in turn order). Without it, all five colours.
    /// The cards the mover holds, offered first when choosing a card.
    pub fn set_preferred(&mut self, cards: Vec<Card>) {
        self.preferred = cards;
    }

    pub fn with_colours(mut self, colours: &[Colour]) -> MockTable {
        self.colours = colours.to_vec();
        self
    }

    pub fn cursor(&self) -> Cell {
        self.cursor
    }

    /// The cell marked as the first of a swap.
    pub fn marked(&self) -> Option<Cell> {
        self.marked
    }

    /// The card in hand and the cell it was picked up from.
    pub fn held(&self) -> Option<(MockCard, Cell)> {
        self.held
    }

    /// The top card of a cell: what a camera sees there.
    pub fn top(&self, cell: Cell) -> Option<MockCard> {
        self.stack(cell).last().copied()
    }

    /// The cards of a cell, bottom first.
    pub fn stack(&self, cell: Cell) -> &[MockCard] {
        self.stacks.get(&cell).map_or(&[], Vec::as_slice)
    }

    /// The card [`MockKey::PlaceUp`] and [`MockKey::PlaceDown`] would place:
    /// the one chosen with [`MockKey::CycleCard`], else `next`.
    ///
    /// On a chessboard `next` is not used: the default is the piece taken
    /// off last.
    pub fn card_to_place(&self, next: Option<Card>) -> Option<Card> {
        if self.chess {
            return self.chosen.or(self.off.last().copied());
        }
        self.chosen.or(next)
    }

    /// Whether no card is held and no cell marked.
    pub fn is_settled(&self) -> bool {
        self.held.is_none() && self.marked.is_none()
    }

    /// What a camera sees of every cell: the top card, or on a chessboard
    /// both cards of a throne pair.
    pub fn table(&self) -> Table {
        self.stacks
            .iter()
            .filter_map(|(&c, s)| match s.as_slice() {
                [a, b] if self.chess => match (a.token(), b.token()) {
                    (Token::Up(a), Token::Up(b)) => Some((c, Token::pair(a, b))),
                    (_, top) => Some((c, top)),
                },
                _ => Some((c, s.last()?.token())),
            })
            .collect()
    }

    /// What a camera reports now.
    pub fn observation(&self) -> Observation {
        if self.is_settled() {
            Observation::Table(self.table())
        } else {
            Observation::Busy
        }
    }

    /// Top-left and bottom-right corners (inclusive) of the smallest box
    /// holding every card, the cursor, the mark and the held card's origin.
    pub fn bounds(&self) -> (Cell, Cell) {
        let cells = self
            .stacks
            .keys()
            .copied()
            .chain([self.cursor])
            .chain(self.marked)
            .chain(self.held.map(|(_, c)| c));
        cells.fold((self.cursor, self.cursor), |(lo, hi), c| {
            (
                Cell::new(lo.col.min(c.col), lo.row.min(c.row)),
                Cell::new(hi.col.max(c.col), hi.row.max(c.row)),
            )
        })
    }

    /// Handles one key. `next` is the card the player to act would place
    /// next (`None` if they have none).
    pub fn handle(&mut self, key: MockKey, next: Option<Card>) -> MockOutcome {
        if self.chess {
            return self.handle_chess(key);
        }
        let here = self.cursor;
        match key {
            MockKey::Up => self.move_cursor(0, -1),
            MockKey::Down => self.move_cursor(0, 1),
            MockKey::Left => self.move_cursor(-1, 0),
            MockKey::Right => self.move_cursor(1, 0),
            MockKey::PlaceUp | MockKey::PlaceDown => {
                let Some(card) = self.card_to_place(next) else {
                    return nothing("no card to place: the Battleplan is empty (c chooses one)");
                };
                let card = if key == MockKey::PlaceUp {
                    MockCard::up(card)
                } else {
                    MockCard::down(card)
                };
                self.push(here, card);
                self.chosen = None;
                self.report()
            }
            MockKey::PickPut => match self.held.take() {
                Some((card, _)) => {
                    self.held_from_under = false;
                    self.push(here, card);
                    self.report()
                }
                None => match self.pop(here) {
                    Some(card) => {
                        self.held = Some((card, here));
                        self.report()
                    }
                    None => nothing("no card here to pick up"),
                },
            },
            MockKey::OtherInCell => {
                if self.held.is_some() {
                    return nothing("a card is in hand: put it down first (space)");
                }
                match self.stacks.get_mut(&here) {
                    // A piece on a vacant square: the face-down card under
                    // it comes up in the hand, the piece stays. This is how
                    // a missed SWAP is mended as its flag says.
                    Some(s) if s.len() >= 2 => {
                        let card = s.remove(s.len() - 2);
                        self.held = Some((card, here));
                        self.held_from_under = true;
                        self.report()
                    }
                    _ => nothing("Tab takes the card from under a piece: there is none here"),
                }
            }
            MockKey::Flip => {
                let Some(card) = self.stacks.get_mut(&here).and_then(|s| s.last_mut()) else {
                    return nothing("no card here to flip");
                };
                if !card.up && card.face.is_none() {
                    return nothing(
                        "this card lay face-down from the start: the mock does not know its face",
                    );
                }
                card.up = !card.up;
                self.report()
            }
            MockKey::Swap => match self.marked {
                None if self.stack(here).is_empty() => nothing("no card here to swap"),
                None => {
                    self.marked = Some(here);
                    self.report()
                }
                Some(m) if m == here => {
                    self.marked = None;
                    self.report()
                }
                Some(m) => {
                    let (a, b) = (self.pop(m), self.pop(here));
                    if let Some(a) = a {
                        self.push(here, a);
                    }
                    if let Some(b) = b {
                        self.push(m, b);
                    }
                    self.marked = None;
                    self.report()
                }
            },
            MockKey::Remove => match self.pop(here) {
                Some(_) => self.report(),
                None => nothing("no card here to remove"),
            },
            MockKey::CycleCard => {
                self.chosen = self.cycle(next);
                MockOutcome::Cursor
            }
            MockKey::Cancel => {
                if let Some((card, from)) = self.held.take() {
                    match self.stacks.get_mut(&from) {
                        Some(s) if std::mem::take(&mut self.held_from_under) => {
                            s.insert(s.len() - 1, card);
                        }
                        _ => self.push(from, card),
                    }
                    self.report()
                } else if self.marked.take().is_some() {
                    self.report()
                } else if self.chosen.take().is_some() {
                    MockOutcome::Cursor
                } else {
                    nothing("nothing to cancel")
                }
            }
        }
    }

    /// [`MockTable::handle`] on a chessboard.
    fn handle_chess(&mut self, key: MockKey) -> MockOutcome {
        let here = self.cursor;
        match key {
            MockKey::Up => self.move_cursor(0, -1),
            MockKey::Down => self.move_cursor(0, 1),
            MockKey::Left => self.move_cursor(-1, 0),
            MockKey::Right => self.move_cursor(1, 0),
            MockKey::PlaceUp => {
                let Some(card) = self.card_to_place(None) else {
                    return nothing(
                        "no piece to put down: none was taken off (c on an empty square chooses one)",
                    );
                };
                // The piece comes from the box beside the board if it is
                // there; otherwise from a spare set.
                if let Err(why) = self.can_put(here, card) {
                    return nothing(why);
                }
                if let Some(i) = self.off.iter().rposition(|&c| c == card) {
                    self.off.remove(i);
                }
                self.chosen = None;
                self.put(here, MockCard::up(card));
                self.report()
            }
            MockKey::PlaceDown | MockKey::Flip => nothing("no face-down cards on a chessboard"),
            MockKey::Swap => nothing(
                "no swaps on a chessboard: pick the piece up (space) and put it down (space)",
            ),
            MockKey::PickPut => match self.held {
                Some((card, _)) => {
                    if let Some(face) = card.face
                        && let Err(why) = self.can_put(here, face)
                    {
                        return nothing(why);
                    }
                    self.held = None;
                    self.put(here, card);
                    self.report()
                }
                None => match self.pop(here) {
                    Some(card) => {
                        self.held = Some((card, here));
                        self.report()
                    }
                    None => nothing("no piece here to pick up"),
                },
            },
            MockKey::Remove => match self.pop(here) {
                Some(card) => {
                    self.off.extend(card.face());
                    self.report()
                }
                None => nothing("no piece here to take off"),
            },
            MockKey::OtherInCell => match self.stacks.get_mut(&here) {
                Some(s) if s.len() == 2 => {
                    // The table is the same: only which card comes up next.
                    s.swap(0, 1);
                    MockOutcome::Cursor
                }
                _ => nothing("Tab chooses a card of a throne pair: there is none here"),
            },
            MockKey::CycleCard => {
                if let Some((card, from)) = self.held {
                    let Some(ex) = exchange(card) else {
                        return nothing("a King is not exchanged");
                    };
                    self.held = Some((ex, from));
                    return MockOutcome::Busy;
                }
                match self.stacks.get_mut(&here).and_then(|s| s.last_mut()) {
                    Some(card) => {
                        let Some(ex) = exchange(*card) else {
                            return nothing("a King is not exchanged");
                        };
                        *card = ex;
                        self.report()
                    }
                    None => {
                        let last_off = self.off.last().copied();
                        self.chosen = self.cycle(last_off);
                        MockOutcome::Cursor
                    }
                }
            }
            MockKey::Cancel => {
                if let Some((card, from)) = self.held.take() {
                    self.put(from, card);
                    self.report()
                } else if self.chosen.take().is_some() {
                    MockOutcome::Cursor
                } else {
                    nothing("nothing to cancel")
                }
            }
        }
    }

    /// Chessboard mode: whether `card` may be put down on `cell`. Only a
    /// third card on a throne pair of its own team has nowhere to go.
    fn can_put(&self, cell: Cell, card: Card) -> Result<(), &'static str> {
        let stack = self.stack(cell);
        let joins = |c: &MockCard| c.face.is_some_and(|f| same_team(f, card));
        if self.pairs && stack.len() >= 2 && stack.iter().all(joins) {
            return Err("two pieces at most share a throne: this pair is of the piece's own team");
        }
        Ok(())
    }

    /// Chessboard mode: `card` stands on `cell` alone, and what stood there
    /// is captured and goes off the board; on an Enochian board a lone piece
    /// of its own team stays, and the two make a throne pair.
    fn put(&mut self, cell: Cell, card: MockCard) {
        let joins = match (self.stack(cell), card.face) {
            ([one], Some(f)) => self.pairs && one.up && one.face.is_some_and(|o| same_team(o, f)),
            _ => false,
        };
        if !joins {
            while let Some(taken) = self.pop(cell) {
                self.off.extend(taken.face());
            }
        }
        self.push(cell, card);
    }

    fn move_cursor(&mut self, dc: i32, dr: i32) -> MockOutcome {
        let to = self.cursor.offset(dc, dr);
        if self.chess && !(BOARD.contains(&to.col) && BOARD.contains(&to.row)) {
            return nothing("the cursor is at the edge of the board");
        }
        if !to.in_range() {
            return nothing("the cursor is at the edge of the table");
        }
        self.cursor = to;
        MockOutcome::Cursor
    }

    /// The card after the chosen one: the mover's cards (king first), then
    /// each other colour's in turn order, then none (the next card again).
    /// The next card itself is skipped: it is what "none" places.
    fn cycle(&self, next: Option<Card>) -> Option<Card> {
        let mover = next
            .map(|c| c.colour)
            .or(self.colours.first().copied())
            .unwrap_or(Colour::White);
        let at = self.colours.iter().position(|&c| c == mover);
        let colours: Vec<Colour> = match at {
            Some(i) => self.colours[i..]
                .iter()
                .chain(&self.colours[..i])
                .copied()
                .collect(),
            None => std::iter::once(mover).chain(self.colours.clone()).collect(),
        };
        let mut cards: Vec<Card> = Vec::new();
        for c in self.preferred.iter().copied().chain(
            colours
                .into_iter()
                .flat_map(|c| Piece::ALL.map(|p| Card::new(c, p))),
        ) {
            if Some(c) != next && !cards.contains(&c) {
                cards.push(c);
            }
        }
        match self.chosen.and_then(|c| cards.iter().position(|&k| k == c)) {
            Some(i) => cards.get(i + 1).copied(),
            None => cards.first().copied(),
        }
    }

    fn push(&mut self, cell: Cell, card: MockCard) {
        self.stacks.entry(cell).or_default().push(card);
    }

    fn pop(&mut self, cell: Cell) -> Option<MockCard> {
        let stack = self.stacks.get_mut(&cell)?;
        let card = stack.pop();
        if stack.is_empty() {
            self.stacks.remove(&cell);
        }
        card
    }

    fn report(&self) -> MockOutcome {
        match self.observation() {
            Observation::Busy => MockOutcome::Busy,
            obs => MockOutcome::Table(obs),
        }
    }
}

/// A piece card exchanged for the next type ([`exchanged`]), face-up.
fn exchange(card: MockCard) -> Option<MockCard> {
    let face = card.face?;
    let piece = exchanged(face.piece)?;
    Some(MockCard::up(Card::new(face.colour, piece)))
}

fn nothing(why: &str) -> MockOutcome {
    MockOutcome::Nothing(why.to_string())
}

#[cfg(test)]
mod tests {
    use super::MockKey::*;
    use super::*;
    use crate::event::{ActionEvent, EventBody, Flag, FlagKind, How};
    use crate::games::enprise::{EnPrise, Options, parse_battleplan};
    use crate::referee::Referee;

    const WN: Card = Card::new(Colour::White, Piece::Knight);
    const WP: Card = Card::new(Colour::White, Piece::Pawn);
    const BN: Card = Card::new(Colour::Black, Piece::Knight);
    const WB: Card = Card::new(Colour::White, Piece::Bishop);
    const BP: Card = Card::new(Colour::Black, Piece::Pawn);

    /// The mock driven by keys, every report judged by a referee.
    struct Play {
        mock: MockTable,
        referee: Referee<EnPrise>,
        step: usize,
    }

    impl Play {
        fn new() -> Play {
            let plan = |text| parse_battleplan(text, Colour::White).unwrap();
            let white = plan("N P P B Q R P P N P B P R P P");
            let black = plan("P N P P B Q P R P N P B P R P");
            let players = [Colour::White, Colour::Black];
            let mut referee = Referee::new(EnPrise::new(
                &players,
                vec![white, black],
                Options::default(),
            ));
            assert_eq!(referee.start().len(), 1);
            Play {
                mock: MockTable::new(&Table::new()).with_colours(&players),
                referee,
                step: 0,
            }
        }

        fn next(&self) -> Option<Card> {
            let g = self.referee.game();
            let c = g.to_move();
            let (plan, i) = g.battleplan(c)?;
            plan.get(i).map(|&p| Card::new(c, p))
        }

        /// Presses the keys and returns the referee's events.
        fn keys(&mut self, keys: &[MockKey]) -> Vec<EventBody> {
            let mut out = Vec::new();
            for &k in keys {
                let obs = match self.mock.handle(k, self.next()) {
                    MockOutcome::Table(obs) => obs,
                    MockOutcome::Busy => Observation::Busy,
                    MockOutcome::Cursor => continue,
                    MockOutcome::Nothing(why) => panic!("{k:?} did nothing: {why}"),
                };
                out.extend(
                    self.referee
                        .observe(self.step, &obs)
                        .into_iter()
                        .map(|e| e.body),
                );
                self.step += 1;
            }
            out
        }

        /// Moves the cursor to (col, row) with the arrow keys.
        fn goto(&mut self, col: i32, row: i32) {
            let c = self.mock.cursor();
            let (dc, dr) = (col - c.col, row - c.row);
            let h = if dc < 0 { Left } else { Right };
            let v = if dr < 0 { Up } else { Down };
            let mut keys = vec![h; dc.unsigned_abs() as usize];
            keys.extend(vec![v; dr.unsigned_abs() as usize]);
            assert!(self.keys(&keys).is_empty());
            assert_eq!(self.mock.cursor(), Cell::new(col, row));
        }

        /// Goes to (col, row) and presses the keys there.
        fn at(&mut self, col: i32, row: i32, keys: &[MockKey]) -> Vec<EventBody> {
            self.goto(col, row);
            self.keys(keys)
        }

        /// A legal placement: exactly one action event.
        fn act(&mut self, col: i32, row: i32, keys: &[MockKey]) -> ActionEvent {
            one_action(self.at(col, row, keys))
        }

        /// A move or capture with SWAP, through the mark.
        fn swap(&mut self, from: (i32, i32), to: (i32, i32), at_to: &[MockKey]) -> Vec<EventBody> {
            let mut ev = self.at(from.0, from.1, &[Swap]);
            ev.extend(self.at(to.0, to.1, at_to));
            ev
        }

        /// The opening used by the mistake tests: after it, white's knight
        /// at (0,0) can take the black pawn at (2,1), and the black knight
        /// at (2,0) can move to the vacant square at (0,1).
        fn opening() -> Play {
            let mut p = Play::new();
            p.act(0, 0, &[PlaceUp]);
            p.act(1, 0, &[PlaceDown]);
            p.act(0, 1, &[PlaceDown]);
            p.act(2, 0, &[PlaceUp]);
            p.act(1, 1, &[PlaceDown]);
            p.act(2, 1, &[PlaceUp]);
            p
        }
    }

    /// After [`Play::opening`], White's knight takes the black pawn and
    /// Black's knight is carried onto the vacant (0,1) with no SWAP: the
    /// flag it raises.
    fn missed_swap() -> (Play, Flag) {
        let mut p = Play::opening();
        p.at(0, 0, &[Swap]);
        p.at(2, 1, &[Flip, Swap]);
        // Black's knight carried to (0,1), stacked on the face-down card.
        assert!(p.at(2, 0, &[PickPut]).is_empty());
        let f = one_flag(p.at(0, 1, &[PickPut]));
        (p, f)
    }

    /// The events of the step that mends [`missed_swap`]: the flag
    /// cleared, and the knight's move (2,0) -> (0,1).
    fn assert_swap_mended(ev: Vec<EventBody>) {
        assert_eq!(
            ev[0],
            EventBody::Cleared {
                kind: FlagKind::MissedSwap,
                how: How::Mended
            }
        );
        let a = one_action(ev[1..].to_vec());
        assert_eq!(
            (a.action.as_str(), a.from, a.to),
            ("move", Some(Cell::new(2, 0)), Some(Cell::new(0, 1)))
        );
    }

    fn one_action(ev: Vec<EventBody>) -> ActionEvent {
        match <[EventBody; 1]>::try_from(ev) {
            Ok([EventBody::Action(a)]) => a,
            other => panic!("expected one action, got {other:?}"),
        }
    }

    fn one_flag(ev: Vec<EventBody>) -> Flag {
        match <[EventBody; 1]>::try_from(ev) {
            Ok([EventBody::Flag(f)]) => f,
            other => panic!("expected one flag, got {other:?}"),
        }
    }

    fn summary(a: &ActionEvent) -> (&str, &str, Option<Card>, Option<Cell>, Option<Cell>) {
        (&a.player, a.action.as_str(), a.card, a.from, a.to)
    }

    #[test]
    fn a_short_game_with_placements_a_move_and_a_capture_raises_no_flag() {
        let mut p = Play::new();
        let c = |col, row| Some(Cell::new(col, row));
        let a = p.act(0, 0, &[PlaceUp]);
        assert_eq!(summary(&a), ("white", "place", Some(WN), None, c(0, 0)));
        let a = p.act(1, 0, &[PlaceDown]);
        assert_eq!(
            summary(&a),
            ("black", "place_vacant", Some(BP), None, c(1, 0))
        );
        let a = p.act(0, 1, &[PlaceDown]);
        assert_eq!(
            summary(&a),
            ("white", "place_vacant", Some(WP), None, c(0, 1))
        );
        let a = p.act(2, 0, &[PlaceUp]);
        assert_eq!(summary(&a), ("black", "place", Some(BN), None, c(2, 0)));
        let a = p.act(1, 1, &[PlaceDown]);
        assert_eq!(
            summary(&a),
            ("white", "place_vacant", Some(WP), None, c(1, 1))
        );
        let a = p.act(2, 1, &[PlaceUp]);
        assert_eq!(summary(&a), ("black", "place", Some(BP), None, c(2, 1)));

        // White's knight takes the pawn: mark, flip the pawn, swap.
        let a = one_action(p.swap((0, 0), (2, 1), &[Flip, Swap]));
        assert_eq!(
            summary(&a),
            ("white", "capture", Some(WN), c(0, 0), c(2, 1))
        );
        assert_eq!(a.captured, Some(BP));
        assert_eq!(p.mock.top(Cell::new(0, 0)), Some(MockCard::down(BP)));

        // Black's knight moves to the vacant square: SWAP.
        let a = one_action(p.swap((2, 0), (0, 1), &[Swap]));
        assert_eq!(summary(&a), ("black", "move", Some(BN), c(2, 0), c(0, 1)));
        assert_eq!(p.mock.top(Cell::new(2, 0)), Some(MockCard::down(WP)));

        // White's bishop occupies a vacant square: it stacks on top.
        let a = p.act(1, 0, &[PlaceUp]);
        assert_eq!(summary(&a), ("white", "occupy", Some(WB), None, c(1, 0)));
        assert_eq!(
            p.mock.stack(Cell::new(1, 0)),
            &[MockCard::down(BP), MockCard::up(WB)]
        );
        assert_eq!(p.referee.open_flag(), None);
        assert_eq!(p.referee.game().card_count(), 6);
        assert_eq!(
            Observation::Table(p.referee.expected_table().clone()),
            p.mock.observation()
        );
    }

    #[test]
    fn swap_then_flip_at_the_origin_is_a_missed_flip_mended() {
        let mut p = Play::opening();
        let f = one_flag(p.swap((0, 0), (2, 1), &[Swap]));
        assert_eq!(
            (f.kind, f.cells, f.rule.as_str()),
            (
                FlagKind::MissedFlip,
                vec![Cell::new(0, 0)],
                "EP-MISSED-FLIP"
            )
        );
        let ev = p.at(0, 0, &[Flip]);
        assert_eq!(
            ev[0],
            EventBody::Cleared {
                kind: FlagKind::MissedFlip,
                how: How::Mended
            }
        );
        let a = one_action(ev[1..].to_vec());
        assert_eq!((a.action.as_str(), a.captured), ("capture", Some(BP)));
    }

    #[test]
    fn a_piece_put_on_the_vacant_square_without_swap_is_a_missed_swap() {
        let (mut p, f) = missed_swap();
        assert_eq!(
            (f.kind, f.cells, f.rule.as_str()),
            (
                FlagKind::MissedSwap,
                vec![Cell::new(2, 0)],
                "EP-MISSED-SWAP"
            )
        );
        assert_eq!(p.mock.stack(Cell::new(0, 1)).len(), 2);
        assert!(p.mock.stack(Cell::new(2, 0)).is_empty());
        // Mended: knight in hand, the face-down card swapped to the origin,
        // the knight put down again.
        assert!(p.at(0, 1, &[PickPut, Swap]).is_empty());
        assert!(p.at(2, 0, &[Swap]).is_empty());
        assert_swap_mended(p.at(0, 1, &[PickPut]));
    }

    /// The flag says to put the face-down card from under the piece back
    /// where the piece stood: Tab lifts it from under the piece, space puts
    /// it there, and nothing in between is judged.
    #[test]
    fn a_missed_swap_is_mended_by_taking_the_card_from_under_the_piece() {
        let (mut p, f) = missed_swap();
        assert_eq!(f.kind, FlagKind::MissedSwap);
        // Lifted and put back with Esc: under the knight again, as it was.
        let before = p.mock.stack(Cell::new(0, 1)).to_vec();
        assert!(p.keys(&[OtherInCell]).is_empty());
        assert_eq!(p.mock.stack(Cell::new(0, 1)), &[MockCard::up(BN)]);
        assert!(p.keys(&[Cancel]).is_empty());
        assert_eq!(p.mock.stack(Cell::new(0, 1)), before.as_slice());
        // Lifted and put where the knight stood.
        assert!(p.keys(&[OtherInCell]).is_empty());
        assert_swap_mended(p.at(2, 0, &[PickPut]));
        assert_eq!(p.referee.open_flag(), None);
        // One card alone: nothing under it.
        assert!(matches!(
            p.mock.handle(OtherInCell, None),
            MockOutcome::Nothing(_)
        ));
    }

    #[test]
    fn a_card_out_of_order_is_a_wrong_card_and_removing_it_takes_it_back() {
        let mut p = Play::new();
        // wK, then wQ: White's next card is the knight.
        assert!(p.keys(&[CycleCard, CycleCard]).is_empty());
        assert_eq!(
            p.mock.card_to_place(p.next()),
            Some(Card::new(Colour::White, Piece::Queen))
        );
        let f = one_flag(p.keys(&[PlaceUp]));
        assert_eq!(
            (f.kind, f.cells, f.rule.as_str()),
            (FlagKind::WrongCard, vec![Cell::new(0, 0)], "EP-PLACE-ORDER")
        );
        assert_eq!(p.mock.card_to_place(p.next()), Some(WN), "back to next");
        assert_eq!(
            p.keys(&[Remove]),
            vec![EventBody::Cleared {
                kind: FlagKind::WrongCard,
                how: How::TakenBack
            }]
        );
        assert_eq!(p.act(0, 0, &[PlaceUp]).action, "place");
    }

    #[test]
    fn a_card_touching_nothing_is_an_illegal_placement() {
        let mut p = Play::new();
        p.act(0, 0, &[PlaceUp]);
        let f = one_flag(p.at(5, 5, &[PlaceDown]));
        assert_eq!(
            (f.kind, f.cells, f.rule.as_str()),
            (
                FlagKind::IllegalPlacement,
                vec![Cell::new(5, 5)],
                "EP-PLACE-ADJ"
            )
        );
    }

    #[test]
    fn a_knight_across_a_gap_is_an_illegal_move() {
        let mut p = Play::new();
        p.act(0, 0, &[PlaceUp]);
        p.act(0, 1, &[PlaceDown]);
        p.act(1, 2, &[PlaceDown]);
        p.act(-1, 0, &[PlaceUp]);
        // (0,0) to (1,2): (0,2) and (1,1) are missing, so neither L exists.
        let f = one_flag(p.swap((0, 0), (1, 2), &[Swap]));
        assert_eq!(
            (f.kind, f.rule.as_str()),
            (FlagKind::IllegalMove, "EP-MOVE-KNIGHT")
        );
        assert!(f.cells.contains(&Cell::new(0, 0)), "{f:?}");
    }

    fn start() -> MockTable {
        let t = Table::parse_grid("wN ##\n.. bQ", Cell::default()).unwrap();
        MockTable::new(&t)
    }

    fn obs(grid: &str) -> MockOutcome {
        MockOutcome::Table(Observation::Table(
            Table::parse_grid(grid, Cell::default()).unwrap(),
        ))
    }

    #[test]
    fn the_cursor_goes_anywhere_and_reports_nothing() {
        let mut m = start();
        assert_eq!(m.cursor(), Cell::new(0, 0));
        for k in [Up, Left, Left] {
            assert_eq!(m.handle(k, None), MockOutcome::Cursor);
        }
        assert_eq!(m.cursor(), Cell::new(-2, -1));
        assert_eq!(m.handle(Down, None), MockOutcome::Cursor);
        assert_eq!(m.handle(Right, None), MockOutcome::Cursor);
        assert_eq!(m.cursor(), Cell::new(-1, 0));
        assert_eq!(m.bounds(), (Cell::new(-1, 0), Cell::new(1, 1)));
        assert!(
            matches!(m.handle(PickPut, None), MockOutcome::Nothing(w) if w.contains("pick up"))
        );
    }

    #[test]
    fn a_mark_is_a_hand_on_the_table_until_dropped() {
        let mut m = start();
        m.handle(Down, None);
        assert!(matches!(m.handle(Swap, None), MockOutcome::Nothing(w) if w.contains("swap")));
        m.handle(Right, None);
        assert_eq!(m.handle(Swap, None), MockOutcome::Busy);
        assert_eq!(m.marked(), Some(Cell::new(1, 1)));
        assert_eq!(m.observation(), Observation::Busy);
        assert_eq!(m.handle(Swap, None), obs("wN ##\n.. bQ"));
        assert_eq!(m.marked(), None);
        m.handle(Swap, None);
        assert_eq!(m.handle(Cancel, None), obs("wN ##\n.. bQ"));
        assert_eq!(m.marked(), None);
        // A swap with an empty cell carries the card there.
        m.handle(Swap, None);
        m.handle(Left, None);
        assert_eq!(m.handle(Swap, None), obs("wN ##\nbQ .."));
    }

    #[test]
    fn a_held_card_is_busy_and_cancel_puts_it_back() {
        let mut m = start();
        assert_eq!(m.handle(PickPut, None), MockOutcome::Busy);
        assert_eq!(m.held(), Some((MockCard::up(WN), Cell::new(0, 0))));
        assert_eq!(m.observation(), Observation::Busy);
        assert!(m.stack(Cell::new(0, 0)).is_empty());
        m.handle(Down, None);
        assert_eq!(m.handle(Cancel, None), obs("wN ##\n.. bQ"));
        assert_eq!(m.held(), None);
        assert!(matches!(m.handle(Cancel, None), MockOutcome::Nothing(_)));
        // Picked up and put down where it was: the same table.
        m.handle(Up, None);
        m.handle(PickPut, None);
        assert_eq!(m.handle(PickPut, None), obs("wN ##\n.. bQ"));
    }

    #[test]
    fn cards_stack_and_only_the_top_is_seen() {
        let mut m = MockTable::new(&Table::new());
        assert_eq!(m.handle(PlaceDown, Some(BP)), obs("##"));
        assert_eq!(m.handle(PlaceUp, Some(WN)), obs("wN"));
        assert_eq!(
            m.stack(Cell::new(0, 0)),
            &[MockCard::down(BP), MockCard::up(WN)]
        );
        assert_eq!(m.handle(PickPut, None), MockOutcome::Busy);
        assert_eq!(m.top(Cell::new(0, 0)), Some(MockCard::down(BP)));
        assert_eq!(m.handle(PickPut, None), obs("wN"));
        assert_eq!(m.handle(Remove, None), obs("##"));
        assert_eq!(m.handle(Remove, None), obs(""));
        assert!(matches!(m.handle(Remove, None), MockOutcome::Nothing(_)));
        assert!(
            matches!(m.handle(PlaceUp, None), MockOutcome::Nothing(w) if w.contains("no card"))
        );
    }

    #[test]
    fn a_placed_card_remembers_its_face_but_a_start_card_does_not() {
        let mut m = start();
        m.handle(Right, None);
        assert!(matches!(m.handle(Flip, None), MockOutcome::Nothing(w) if w.contains("face")));
        m.handle(Down, None);
        assert_eq!(m.handle(Flip, None), obs("wN ##\n.. ##"));
        assert_eq!(m.handle(Flip, None), obs("wN ##\n.. bQ"));
        m.handle(Right, None);
        m.handle(PlaceDown, Some(BN));
        assert_eq!(m.handle(Flip, None), obs("wN ## ..\n.. bQ bN"));
    }

    #[test]
    fn cycle_card_offers_the_cards_the_mover_holds_first() {
        let wq = Card::new(Colour::White, Piece::Queen);
        let wr = Card::new(Colour::White, Piece::Rook);
        let wb = Card::new(Colour::White, Piece::Bishop);
        let mut m = MockTable::new(&Table::new()).with_colours(&[Colour::White, Colour::Black]);
        m.set_preferred(vec![wq, wr, wb]);
        let mut seen = Vec::new();
        for _ in 0..3 {
            m.handle(CycleCard, Some(wq));
            seen.push(m.card_to_place(Some(wq)).unwrap());
        }
        // The next card itself is not offered again; then any other card.
        assert_eq!(seen, [wr, wb, Card::new(Colour::White, Piece::King)]);
    }

    #[test]
    fn cycle_card_offers_the_movers_cards_then_the_others_then_the_next() {
        let mut m = MockTable::new(&Table::new()).with_colours(&[Colour::White, Colour::Black]);
        let mut seen = Vec::new();
        loop {
            assert_eq!(m.handle(CycleCard, Some(BP)), MockOutcome::Cursor);
            match m.card_to_place(Some(BP)) {
                Some(BP) => break,
                c => seen.push(c.unwrap()),
            }
        }
        assert_eq!(seen.len(), 11, "{seen:?}");
        assert_eq!(seen[0], Card::new(Colour::Black, Piece::King));
        assert_eq!(seen[5], Card::new(Colour::White, Piece::King));
        assert!(seen.iter().all(|c| c.colour != Colour::Red));
        m.handle(CycleCard, Some(BP));
        assert_eq!(m.handle(Cancel, Some(BP)), MockOutcome::Cursor);
        assert_eq!(m.card_to_place(Some(BP)), Some(BP));
        // With an empty Battleplan, a chosen card can still be placed.
        m.handle(CycleCard, None);
        assert_eq!(
            m.handle(PlaceUp, None),
            obs("wK"),
            "the first colour's king"
        );
        assert_eq!(m.card_to_place(None), None, "placing uses the choice up");
    }

    // The chessboard mode (DoubleCross).

    use crate::games::Game;
    use crate::games::doublecross::{DoubleCross, Options as DcOptions};

    fn board(grid: &str) -> MockTable {
        MockTable::chessboard(&Table::parse_grid(grid, Cell::default()).unwrap())
    }

    /// Goes to the square named (`e4`) with the arrow keys.
    fn go(m: &mut MockTable, square: &str) {
        let b = square.as_bytes();
        let to = Cell::new(i32::from(b[0] - b'a'), 8 - i32::from(b[1] - b'0'));
        while m.cursor() != to {
            let c = m.cursor();
            let k = if c.col < to.col {
                Right
            } else if c.col > to.col {
                Left
            } else if c.row < to.row {
                Down
            } else {
                Up
            };
            assert_eq!(m.handle(k, None), MockOutcome::Cursor);
        }
    }

    fn top_at(m: &MockTable, square: &str) -> Option<Card> {
        let b = square.as_bytes();
        let cell = Cell::new(i32::from(b[0] - b'a'), 8 - i32::from(b[1] - b'0'));
        m.top(cell).and_then(MockCard::face)
    }

    const EMPTY_ROWS: &str = ".. .. .. .. .. .. .. ..";

    /// An 8x8 grid from its ranks 8 to 1, `..` where a rank is not given.
    fn grid(ranks: &[(u8, &str)]) -> String {
        (1..=8u8)
            .rev()
            .map(|r| {
                ranks
                    .iter()
                    .find(|(k, _)| *k == r)
                    .map_or(EMPTY_ROWS, |(_, row)| row)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    const WQ: Card = Card::new(Colour::White, Piece::Queen);
    const WK: Card = Card::new(Colour::White, Piece::King);
    const BQ: Card = Card::new(Colour::Black, Piece::Queen);

    #[test]
    fn a_chessboard_starts_on_e2_and_keeps_the_cursor_on_the_board() {
        let start = DoubleCross::new(DcOptions::default()).table();
        let mut m = MockTable::chessboard(&start);
        assert!(m.is_chessboard());
        assert_eq!(m.cursor().square().as_deref(), Some("e2"));
        assert_eq!(top_at(&m, "e2"), Some(WP));
        go(&mut m, "h1");
        assert!(
            matches!(m.handle(Right, None), MockOutcome::Nothing(w) if w.contains("edge of the board"))
        );
        assert!(matches!(m.handle(Down, None), MockOutcome::Nothing(_)));
        go(&mut m, "a8");
        assert!(matches!(m.handle(Up, None), MockOutcome::Nothing(_)));
        assert!(matches!(m.handle(Left, None), MockOutcome::Nothing(_)));
        // Nothing lies face-down on a chessboard, and pieces do not swap.
        for k in [PlaceDown, Flip, Swap] {
            assert!(
                matches!(m.handle(k, None), MockOutcome::Nothing(_)),
                "{k:?}"
            );
        }
        assert_eq!(m.observation(), Observation::Table(start));
    }

    #[test]
    fn a_piece_put_on_an_occupied_square_captures_it() {
        let mut m = board(&grid(&[
            (8, ".. .. .. bQ bK .. .. .."),
            (1, ".. .. .. wQ wK .. .. .."),
        ]));
        go(&mut m, "d1");
        assert_eq!(m.handle(PickPut, None), MockOutcome::Busy);
        assert_eq!(m.held().map(|(c, _)| c.face()), Some(Some(WQ)));
        go(&mut m, "d8");
        let after = grid(&[
            (8, ".. .. .. wQ bK .. .. .."),
            (1, ".. .. .. .. wK .. .. .."),
        ]);
        assert_eq!(m.handle(PickPut, None), obs(&after));
        assert_eq!(m.stack(m.cursor()).len(), 1, "nothing stacks");
        assert_eq!(m.off_board(), &[BQ]);
        // A change of mind: the white queen back to d1, and u puts the
        // captured one back where it stood.
        assert_eq!(m.card_to_place(None), Some(BQ));
        m.handle(PickPut, None);
        go(&mut m, "d1");
        m.handle(PickPut, None);
        go(&mut m, "d8");
        let start = grid(&[
            (8, ".. .. .. bQ bK .. .. .."),
            (1, ".. .. .. wQ wK .. .. .."),
        ]);
        assert_eq!(m.handle(PlaceUp, None), obs(&start));
        assert!(m.off_board().is_empty());
        assert_eq!(m.card_to_place(None), None);
        assert!(
            matches!(m.handle(PlaceUp, None), MockOutcome::Nothing(w) if w.contains("no piece"))
        );
    }

    #[test]
    fn x_takes_a_piece_off_and_esc_puts_a_held_piece_back() {
        let start = grid(&[
            (8, ".. .. .. .. bK .. .. .."),
            (1, ".. .. .. wQ wK .. .. .."),
        ]);
        let mut m = board(&start);
        go(&mut m, "d1");
        let without = grid(&[
            (8, ".. .. .. .. bK .. .. .."),
            (1, ".. .. .. .. wK .. .. .."),
        ]);
        assert_eq!(m.handle(Remove, None), obs(&without));
        assert_eq!(m.off_board(), &[WQ]);
        assert!(matches!(m.handle(Remove, None), MockOutcome::Nothing(_)));
        assert_eq!(m.handle(PlaceUp, None), obs(&start));
        go(&mut m, "e1");
        m.handle(PickPut, None);
        go(&mut m, "e4");
        assert_eq!(m.handle(Cancel, None), obs(&start));
        assert_eq!(top_at(&m, "e1"), Some(WK));
    }

    #[test]
    fn c_exchanges_a_piece_for_the_next_type_and_never_a_king() {
        let mut m = board(&grid(&[
            (7, ".. .. .. .. wP .. .. .."),
            (1, ".. .. .. .. wK .. .. .."),
        ]));
        // Promotion in hand: the pawn comes up from e7, a queen goes down.
        go(&mut m, "e7");
        m.handle(PickPut, None);
        assert_eq!(m.handle(CycleCard, None), MockOutcome::Busy);
        go(&mut m, "e8");
        let queened = grid(&[
            (8, ".. .. .. .. wQ .. .. .."),
            (1, ".. .. .. .. wK .. .. .."),
        ]);
        assert_eq!(m.handle(PickPut, None), obs(&queened));
        // In place: Q → R → B → N → P → Q.
        let mut seen = Vec::new();
        for _ in 0..5 {
            assert!(matches!(m.handle(CycleCard, None), MockOutcome::Table(_)));
            seen.push(top_at(&m, "e8").unwrap().piece.letter());
        }
        assert_eq!(seen.iter().collect::<String>(), "RBNPQ");
        go(&mut m, "e1");
        assert!(matches!(m.handle(CycleCard, None), MockOutcome::Nothing(w) if w.contains("King")));
        // On an empty square c chooses the piece u puts down.
        go(&mut m, "a3");
        assert_eq!(m.handle(CycleCard, None), MockOutcome::Cursor);
        assert_eq!(m.card_to_place(None), Some(WK));
        m.handle(CycleCard, None);
        assert_eq!(m.card_to_place(None), Some(WQ));
        assert_eq!(m.handle(Cancel, None), MockOutcome::Cursor);
        assert_eq!(m.card_to_place(None), None);
    }

    #[test]
    fn en_prise_tables_stay_stacks_of_cards() {
        // The card board is not a chessboard: a card put on another stacks.
        let mut m = start();
        assert!(!m.is_chessboard());
        assert_eq!(m.help(), HELP);
        m.handle(PickPut, None);
        m.handle(Right, None);
        assert_eq!(m.handle(PickPut, None), obs(".. wN\n.. bQ"));
        assert_eq!(m.stack(Cell::new(1, 0)).len(), 2);
        assert!(m.off_board().is_empty());
    }

    // The Enochian board: throne pairs.

    const UK: Card = Card::new(Colour::Blue, Piece::King);
    const UN: Card = Card::new(Colour::Blue, Piece::Knight);
    const UB: Card = Card::new(Colour::Blue, Piece::Bishop);
    const BB: Card = Card::new(Colour::Black, Piece::Bishop);
    const RQ: Card = Card::new(Colour::Red, Piece::Queen);
    const RR: Card = Card::new(Colour::Red, Piece::Rook);

    fn sq_cell(square: &str) -> Cell {
        let b = square.as_bytes();
        Cell::new(i32::from(b[0] - b'a'), 8 - i32::from(b[1] - b'0'))
    }

    fn enochian(ranks: &[(u8, &str)], pairs: &[(&str, Token)]) -> MockTable {
        let mut t = Table::parse_grid(&grid(ranks), Cell::default()).unwrap();
        for (sq, tok) in pairs {
            t.set(sq_cell(sq), Some(*tok));
        }
        MockTable::enochian(&t)
    }

    fn token_at(m: &MockTable, square: &str) -> Option<Token> {
        m.table().get(sq_cell(square))
    }

    #[test]
    fn a_start_pair_is_two_cards_and_reports_as_a_pair() {
        let m = enochian(&[], &[("e1", Token::pair(UN, UK))]);
        assert!(m.has_pairs() && m.is_chessboard());
        assert_eq!(m.help(), ENOCHIAN_HELP);
        let e1 = sq_cell("e1");
        assert_eq!(m.stack(e1), &[MockCard::up(UK), MockCard::up(UN)]);
        assert_eq!(token_at(&m, "e1"), Some(Token::Pair(UK, UN)));
    }

    #[test]
    fn a_piece_put_on_its_own_team_joins_it_as_a_pair() {
        // Own army: the bishop onto its king's throne.
        let mut m = enochian(&[(1, ".. .. .. uB uK .. .. ..")], &[]);
        go(&mut m, "d1");
        assert_eq!(m.handle(PickPut, None), MockOutcome::Busy);
        go(&mut m, "e1");
        let MockOutcome::Table(Observation::Table(t)) = m.handle(PickPut, None) else {
            panic!("a settled table")
        };
        assert_eq!(t.get(sq_cell("e1")), Some(Token::Pair(UK, UB)));
        assert!(m.off_board().is_empty(), "nothing captured");
        // The ally's piece joins too (the referee judges whether it may).
        let mut m = enochian(&[(1, ".. .. .. bB uK .. .. ..")], &[]);
        go(&mut m, "d1");
        m.handle(PickPut, None);
        go(&mut m, "e1");
        m.handle(PickPut, None);
        assert_eq!(token_at(&m, "e1"), Some(Token::Pair(UK, BB)));
        // A third piece of the team has no room.
        let mut m = enochian(
            &[(1, ".. .. .. uB .. .. .. ..")],
            &[("e1", Token::pair(UK, UN))],
        );
        go(&mut m, "d1");
        m.handle(PickPut, None);
        go(&mut m, "e1");
        assert!(
            matches!(m.handle(PickPut, None), MockOutcome::Nothing(w) if w.contains("two pieces"))
        );
        assert!(m.held().is_some(), "the bishop stays in hand");
    }

    #[test]
    fn lifting_one_card_of_a_pair_leaves_the_other() {
        let mut m = enochian(&[], &[("e1", Token::pair(UK, UN))]);
        go(&mut m, "e1");
        assert_eq!(m.pair_here(), Some((UN, UK)), "the partner comes first");
        // The knight leaves: the king stays alone.
        m.handle(PickPut, None);
        assert_eq!(m.held().map(|(c, _)| c.face()), Some(Some(UN)));
        go(&mut m, "f3");
        m.handle(PickPut, None);
        assert_eq!(token_at(&m, "e1"), Some(Token::Up(UK)));
        assert_eq!(token_at(&m, "f3"), Some(Token::Up(UN)));
        // Tab chooses the king instead; the table does not change.
        let mut m = enochian(&[], &[("e1", Token::pair(UK, UN))]);
        go(&mut m, "e1");
        assert_eq!(m.handle(OtherInCell, None), MockOutcome::Cursor);
        assert_eq!(m.pair_here(), Some((UK, UN)));
        m.handle(PickPut, None);
        assert_eq!(m.held().map(|(c, _)| c.face()), Some(Some(UK)));
        go(&mut m, "e2");
        m.handle(PickPut, None);
        assert_eq!(token_at(&m, "e1"), Some(Token::Up(UN)));
        assert_eq!(token_at(&m, "e2"), Some(Token::Up(UK)));
        // And the king comes back: the pair again.
        m.handle(PickPut, None);
        go(&mut m, "e1");
        m.handle(PickPut, None);
        assert_eq!(token_at(&m, "e1"), Some(Token::Pair(UK, UN)));
        // x takes one card off, the one Tab chose.
        assert_eq!(m.pair_here(), Some((UK, UN)));
        m.handle(Remove, None);
        assert_eq!(token_at(&m, "e1"), Some(Token::Up(UN)));
        assert_eq!(m.off_board(), &[UK]);
        assert!(matches!(
            m.handle(OtherInCell, None),
            MockOutcome::Nothing(_)
        ));
    }

    #[test]
    fn capturing_a_pair_removes_both() {
        let mut m = enochian(
            &[(4, ".. .. .. .. rR .. .. ..")],
            &[("e1", Token::pair(UK, UN))],
        );
        go(&mut m, "e4");
        m.handle(PickPut, None);
        go(&mut m, "e1");
        m.handle(PickPut, None);
        assert_eq!(token_at(&m, "e1"), Some(Token::Up(RR)));
        assert_eq!(m.stack(m.cursor()).len(), 1);
        assert_eq!(m.off_board(), &[UN, UK]);
        // An enemy on a lone piece captures it, as on any chessboard.
        let mut m = enochian(&[(3, ".. .. rQ uB .. .. .. ..")], &[]);
        go(&mut m, "c3");
        m.handle(PickPut, None);
        go(&mut m, "d3");
        m.handle(PickPut, None);
        assert_eq!(token_at(&m, "d3"), Some(Token::Up(RQ)));
        assert_eq!(m.off_board(), &[UB]);
    }

    #[test]
    fn a_doublecross_board_never_pairs() {
        let mut m = board(&grid(&[(1, ".. .. .. wQ wK .. .. ..")]));
        assert!(!m.has_pairs());
        go(&mut m, "d1");
        m.handle(PickPut, None);
        go(&mut m, "e1");
        m.handle(PickPut, None);
        assert_eq!(top_at(&m, "e1"), Some(WQ));
        assert_eq!(m.off_board(), &[WK]);
        assert!(matches!(
            m.handle(OtherInCell, None),
            MockOutcome::Nothing(_)
        ));
    }

    /// The mock board driven by keys against a DoubleCross referee: draws
    /// are inputs, everything else is the board.
    struct DcPlay {
        mock: MockTable,
        referee: Referee<DoubleCross>,
        step: usize,
    }

    impl DcPlay {
        fn new() -> DcPlay {
            let mut referee = Referee::new(DoubleCross::new(DcOptions::default()));
            referee.start();
            DcPlay {
                mock: MockTable::chessboard(referee.expected_table()),
                referee,
                step: 0,
            }
        }

        fn observe(&mut self, obs: &Observation) -> Vec<EventBody> {
            self.step += 1;
            self.referee
                .observe(self.step, obs)
                .into_iter()
                .map(|e| e.body)
                .collect()
        }

        fn draw(&mut self, card: &str) {
            let ev = self.observe(&Observation::Draw(card.into()));
            assert!(
                ev.iter()
                    .any(|e| matches!(e, EventBody::Action(a) if a.action == crate::event::ActionKind::Draw)),
                "{ev:?}"
            );
        }

        /// At `square`, presses the keys; the referee's events.
        fn at(&mut self, square: &str, keys: &[MockKey]) -> Vec<EventBody> {
            go(&mut self.mock, square);
            let mut out = Vec::new();
            for &k in keys {
                match self.mock.handle(k, None) {
                    MockOutcome::Table(obs) => out.extend(self.observe(&obs)),
                    MockOutcome::Busy => out.extend(self.observe(&Observation::Busy)),
                    MockOutcome::Cursor => {}
                    MockOutcome::Nothing(why) => panic!("{k:?} did nothing: {why}"),
                }
            }
            out
        }

        /// Picks the piece on `from` up and puts it down on `to`.
        fn play(&mut self, from: &str, to: &str) -> Vec<EventBody> {
            let mut ev = self.at(from, &[PickPut]);
            ev.extend(self.at(to, &[PickPut]));
            ev
        }
    }

    #[test]
    fn en_passant_on_the_mock_board_is_a_move_and_the_victim_taken_off() {
        let mut p = DcPlay::new();
        p.draw("wP");
        assert_eq!(one_action(p.play("e2", "e4")).action, "move");
        p.draw("bP");
        one_action(p.play("a7", "a6"));
        p.draw("wP");
        one_action(p.play("e4", "e5"));
        p.draw("bP");
        one_action(p.play("d7", "d5"));
        p.draw("wP");
        // The pawn to d6 first: the victim still stands, a part of the
        // action (the referee waits); x on d5 completes it.
        let ev = p.play("e5", "d6");
        assert!(
            ev.iter().all(|e| !matches!(e, EventBody::Action(_))),
            "{ev:?}"
        );
        let ev = p.at("d5", &[Remove]);
        let a = ev
            .iter()
            .find_map(|e| match e {
                EventBody::Action(a) => Some(a.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{ev:?}"));
        assert_eq!(a.action, "en_passant");
        assert_eq!(a.squares, ["e5", "d6"]);
        assert_eq!(p.referee.open_flag(), None);
        assert_eq!(
            Observation::Table(p.referee.expected_table().clone()),
            p.mock.observation()
        );
    }

    #[test]
    fn a_promotion_exchanged_in_hand_is_one_legal_action() {
        let mut p = DcPlay::new();
        // Either player may move a White pawn: five White Pawn cards run
        // the b-pawn up to a7, taking the pawn there.
        for (from, to) in [("b2", "b4"), ("b4", "b5"), ("b5", "b6")] {
            p.draw("wP");
            one_action(p.play(from, to));
        }
        p.draw("wP");
        let a = one_action(p.play("b6", "a7"));
        assert_eq!(a.captured, Some(Card::new(Colour::Black, Piece::Pawn)));
        p.draw("wP");
        // axb8 takes the knight and promotes: c in hand makes the queen.
        let mut ev = p.at("a7", &[PickPut, CycleCard]);
        ev.extend(p.at("b8", &[PickPut]));
        let a = one_action(ev);
        assert_eq!(
            (a.action.as_str(), a.promotion),
            ("promote", Some(WQ)),
            "{a:?}"
        );
        assert_eq!(p.referee.open_flag(), None);
    }
}
