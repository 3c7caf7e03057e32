//! The physical vocabulary: cells, cards, faces, and the sparse table that
//! every input reports and every game expects.
//!
//! A [`Table`] is what lies on the cloth: the *top* card of each cell, seen
//! face-up or face-down. It knows nothing about rules; a game turns its own
//! state into the table the players must leave, and the referee compares
//! tables.

use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Serialize};

/// A cell of the table, `[col, row]`: columns grow to the right, rows grow
/// downward. Ordered row-major so that a sorted table reads like the grid.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Cell {
    pub col: i32,
    pub row: i32,
}

impl Cell {
    /// Coordinates stay within ±LIMIT: far beyond any table, and far enough
    /// from `i32`'s ends that translating one table onto another never
    /// overflows.
    pub const LIMIT: i32 = 1 << 20;

    pub fn in_range(self) -> bool {
        let r = -Cell::LIMIT..=Cell::LIMIT;
        r.contains(&self.col) && r.contains(&self.row)
    }

    pub const fn new(col: i32, row: i32) -> Self {
        Cell { col, row }
    }

    pub const fn offset(self, dc: i32, dr: i32) -> Self {
        Cell {
            col: self.col + dc,
            row: self.row + dr,
        }
    }

    /// The translation that carries `other` onto `self`.
    pub const fn minus(self, other: Cell) -> Cell {
        Cell {
            col: self.col - other.col,
            row: self.row - other.row,
        }
    }

    pub const fn plus(self, d: Cell) -> Cell {
        Cell {
            col: self.col + d.col,
            row: self.row + d.row,
        }
    }

    /// Chebyshev distance: 1 for the 8-neighbourhood.
    pub fn king_distance(self, other: Cell) -> i32 {
        (self.col - other.col)
            .abs()
            .max((self.row - other.row).abs())
    }

    pub fn is_zero(self) -> bool {
        self.col == 0 && self.row == 0
    }

    /// Size of a translation, for preferring the smallest shift.
    pub fn norm(self) -> i32 {
        self.col.abs() + self.row.abs()
    }

    /// The algebraic square of an 8x8 board drawn rank 8 at the top, when the
    /// cell lies on it.
    pub fn square(self) -> Option<String> {
        if (0..8).contains(&self.col) && (0..8).contains(&self.row) {
            let file = (b'a' + self.col as u8) as char;
            Some(format!("{file}{}", 8 - self.row))
        } else {
            None
        }
    }
}

impl Ord for Cell {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.row, self.col).cmp(&(other.row, other.col))
    }
}

impl PartialOrd for Cell {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{})", self.col, self.row)
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{})", self.col, self.row)
    }
}

impl Serialize for Cell {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        [self.col, self.row].serialize(s)
    }
}

impl<'de> Deserialize<'de> for Cell {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let [col, row] = <[i32; 2]>::deserialize(d)?;
        Ok(Cell { col, row })
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Colour {
    White,
    Black,
    Red,
    Blue,
    Yellow,
}

impl Colour {
    pub const ALL: [Colour; 5] = [
        Colour::White,
        Colour::Black,
        Colour::Red,
        Colour::Blue,
        Colour::Yellow,
    ];

    pub fn letter(self) -> char {
        match self {
            Colour::White => 'w',
            Colour::Black => 'b',
            Colour::Red => 'r',
            Colour::Blue => 'u',
            Colour::Yellow => 'y',
        }
    }

    pub fn from_letter(c: char) -> Option<Colour> {
        Colour::ALL.into_iter().find(|k| k.letter() == c)
    }

    pub fn name(self) -> &'static str {
        match self {
            Colour::White => "white",
            Colour::Black => "black",
            Colour::Red => "red",
            Colour::Blue => "blue",
            Colour::Yellow => "yellow",
        }
    }

    pub fn from_name(s: &str) -> Option<Colour> {
        Colour::ALL.into_iter().find(|k| k.name() == s)
    }

    /// "White", for sentences.
    pub fn title(self) -> &'static str {
        match self {
            Colour::White => "White",
            Colour::Black => "Black",
            Colour::Red => "Red",
            Colour::Blue => "Blue",
            Colour::Yellow => "Yellow",
        }
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Piece {
    King,
    Queen,
    Rook,
    Bishop,
    Knight,
    Pawn,
}

impl Piece {
    pub const ALL: [Piece; 6] = [
        Piece::King,
        Piece::Queen,
        Piece::Rook,
        Piece::Bishop,
        Piece::Knight,
        Piece::Pawn,
    ];

    pub fn letter(self) -> char {
        match self {
            Piece::King => 'K',
            Piece::Queen => 'Q',
            Piece::Rook => 'R',
            Piece::Bishop => 'B',
            Piece::Knight => 'N',
            Piece::Pawn => 'P',
        }
    }

    pub fn from_letter(c: char) -> Option<Piece> {
        Piece::ALL.into_iter().find(|p| p.letter() == c)
    }

    pub fn name(self) -> &'static str {
        match self {
            Piece::King => "king",
            Piece::Queen => "queen",
            Piece::Rook => "rook",
            Piece::Bishop => "bishop",
            Piece::Knight => "knight",
            Piece::Pawn => "pawn",
        }
    }
}

/// Reads a list of one colour's pieces, as players write a Battleplan or a
/// supply: letters (`"N P B"`, or `"NPB"` run together) or tokens of that
/// colour (`"wN wP wB"`). The games check the counts.
pub fn parse_pieces(text: &str, colour: Colour) -> Result<Vec<Piece>, BadPiece> {
    // "NPPBQRPPNPBPRPP" is as good as "N P P B ...": easier to type.
    let trimmed = text.trim();
    let compact = !trimmed.contains(char::is_whitespace) && trimmed.len() > 2;
    let tokens: Vec<String> = if compact {
        trimmed.chars().map(String::from).collect()
    } else {
        trimmed.split_whitespace().map(String::from).collect()
    };
    tokens
        .into_iter()
        .map(|tok| {
            let letter = match tok.chars().collect::<Vec<_>>()[..] {
                [p] => p,
                [c, p] if Colour::from_letter(c) == Some(colour) => p,
                _ => return Err(BadPiece(tok)),
            };
            Piece::from_letter(letter).ok_or(BadPiece(tok))
        })
        .collect()
}

/// The cards under each cell's top card, bottom first: what a table of
/// stacked cards hides (a piece put on a face-down card). The referee
/// judges the top cards only; the journal keeps these so that a resumed
/// mock table has its stacks again.
pub type Beneath = std::collections::BTreeMap<Cell, Vec<Token>>;

/// A word in a list of pieces that is no piece of the list's colour.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad piece {0:?}: write piece letters K Q R B N P, such as \"Q R B\"")]
pub struct BadPiece(pub String);

/// A card's face: its colour and the piece printed on it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card {
    pub colour: Colour,
    pub piece: Piece,
}

impl Card {
    pub const fn new(colour: Colour, piece: Piece) -> Self {
        Card { colour, piece }
    }

    /// "white knight", for sentences.
    pub fn describe(self) -> String {
        format!("{} {}", self.colour.name(), self.piece.name())
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.colour.letter(), self.piece.letter())
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.colour.letter(), self.piece.letter())
    }
}

impl Serialize for Card {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        match Token::parse(&s) {
            Ok(Some(Token::Up(card))) => Ok(card),
            _ => Err(serde::de::Error::custom(format!("not a card token: {s:?}"))),
        }
    }
}

/// What an observer sees in an occupied cell.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Token {
    /// `##`: a card lying face-down.
    Down,
    /// A face-up card.
    Up(Card),
    /// `??`: a card is there but could not be read with confidence. Inputs
    /// report it; the referee never judges a table that holds one.
    Unreadable,
    /// Two face-up cards in one cell: an Enochian throne holding its king
    /// and one partner (`uK+uN`). Built by [`Token::pair`], which puts a
    /// king first, so that the order the cards were read in never matters.
    Pair(Card, Card),
}

/// A token that is not one of `..`, `##`, `??` or colour + piece.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad token {token:?}: {why}")]
pub struct TokenError {
    pub token: String,
    pub why: &'static str,
}

impl Token {
    /// Parses one grid token; `Ok(None)` is `..`, an empty cell.
    pub fn parse(s: &str) -> Result<Option<Token>, TokenError> {
        let bad = |why| TokenError {
            token: s.to_string(),
            why,
        };
        let mut chars = s.chars();
        let (Some(a), Some(b), None) = (chars.next(), chars.next(), chars.next()) else {
            return Err(bad("tokens are two characters, such as wN, ## or .."));
        };
        match (a, b) {
            ('.', '.') => Ok(None),
            ('#', '#') => Ok(Some(Token::Down)),
            ('?', '?') => Ok(Some(Token::Unreadable)),
            _ => {
                let colour = Colour::from_letter(a)
                    .ok_or_else(|| bad("the colour must be one of w b r u y"))?;
                let piece = Piece::from_letter(b)
                    .ok_or_else(|| bad("the piece must be one of K Q R B N P"))?;
                Ok(Some(Token::Up(Card { colour, piece })))
            }
        }
    }

    /// The face-up card of the cell; for a pair, the first (the king).
    pub fn card(self) -> Option<Card> {
        match self {
            Token::Up(c) | Token::Pair(c, _) => Some(c),
            _ => None,
        }
    }

    /// Two cards sharing a cell, in canonical order: a king first, else
    /// the lower card first.
    pub fn pair(a: Card, b: Card) -> Token {
        let key = |c: Card| (c.piece != Piece::King, c);
        if key(a) <= key(b) {
            Token::Pair(a, b)
        } else {
            Token::Pair(b, a)
        }
    }

    /// Parses a throne pair such as `uK+uN`.
    pub fn parse_pair(s: &str) -> Result<Token, TokenError> {
        let bad = |why| TokenError {
            token: s.to_string(),
            why,
        };
        let (a, b) = s
            .split_once('+')
            .ok_or_else(|| bad("a pair is two cards joined by +, such as uK+uN"))?;
        let card = |t: &str| match Token::parse(t.trim()) {
            Ok(Some(Token::Up(c))) => Ok(c),
            _ => Err(bad("a pair is two face-up cards, such as uK+uN")),
        };
        Ok(Token::pair(card(a)?, card(b)?))
    }

    /// The cards showing in the cell (none for `##` and `??`).
    pub fn cards(self) -> impl Iterator<Item = Card> {
        let (a, b) = match self {
            Token::Up(c) => (Some(c), None),
            Token::Pair(a, b) => (Some(a), Some(b)),
            _ => (None, None),
        };
        a.into_iter().chain(b)
    }

    /// The token a two-character grid shows for this cell: a pair shows its
    /// first card, and the script lists the pair beside the grid.
    pub fn grid_token(self) -> Token {
        match self {
            Token::Pair(a, _) => Token::Up(a),
            t => t,
        }
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Down => f.write_str("##"),
            Token::Unreadable => f.write_str("??"),
            Token::Up(c) => write!(f, "{c}"),
            Token::Pair(a, b) => write!(f, "{a}+{b}"),
        }
    }
}

/// One difference between an expected table and an observed one, in the
/// expected table's frame.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Change {
    pub cell: Cell,
    pub before: Option<Token>,
    pub after: Option<Token>,
}

/// A sparse table: the top token of each occupied cell, kept sorted row-major
/// so that comparing two tables under a translation is one merge.
#[derive(Clone, PartialEq, Eq, Default, Hash)]
pub struct Table {
    cells: Vec<(Cell, Token)>,
}

impl fmt::Debug for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (origin, grid) = self.to_grid();
        write!(f, "Table @{origin:?}\n{grid}")
    }
}

impl FromIterator<(Cell, Token)> for Table {
    fn from_iter<I: IntoIterator<Item = (Cell, Token)>>(iter: I) -> Self {
        let mut cells: Vec<(Cell, Token)> = iter.into_iter().collect();
        cells.sort_by_key(|(c, _)| *c);
        // Later entries win, as with repeated inserts.
        let mut out: Vec<(Cell, Token)> = Vec::with_capacity(cells.len());
        for (c, t) in cells {
            match out.last_mut() {
                Some(last) if last.0 == c => last.1 = t,
                _ => out.push((c, t)),
            }
        }
        Table { cells: out }
    }
}

impl Table {
    pub fn new() -> Self {
        Table::default()
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    pub fn get(&self, cell: Cell) -> Option<Token> {
        self.cells
            .binary_search_by(|(c, _)| c.cmp(&cell))
            .ok()
            .map(|i| self.cells[i].1)
    }

    pub fn set(&mut self, cell: Cell, token: Option<Token>) {
        match (self.cells.binary_search_by(|(c, _)| c.cmp(&cell)), token) {
            (Ok(i), Some(t)) => self.cells[i].1 = t,
            (Ok(i), None) => {
                self.cells.remove(i);
            }
            (Err(i), Some(t)) => self.cells.insert(i, (cell, t)),
            (Err(_), None) => {}
        }
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Cell, Token)> + '_ {
        self.cells.iter().copied()
    }

    pub fn cells(&self) -> &[(Cell, Token)] {
        &self.cells
    }

    /// The same table moved by `d`.
    pub fn shifted(&self, d: Cell) -> Table {
        Table {
            cells: self.cells.iter().map(|&(c, t)| (c.plus(d), t)).collect(),
        }
    }

    /// The same table moved so that its bounds start at (0, 0), as a
    /// camera names cells: from the cards it sees.
    pub fn at_origin(&self) -> Table {
        match self.bounds() {
            Some((lo, _)) => self.shifted(Cell::new(-lo.col, -lo.row)),
            None => self.clone(),
        }
    }

    pub fn unreadable_cells(&self) -> Vec<Cell> {
        self.iter()
            .filter(|(_, t)| *t == Token::Unreadable)
            .map(|(c, _)| c)
            .collect()
    }

    /// The cells holding two cards (Enochian thrones), which a grid alone
    /// cannot show.
    pub fn pairs(&self) -> impl Iterator<Item = (Cell, Token)> + '_ {
        self.iter().filter(|(_, t)| matches!(t, Token::Pair(..)))
    }

    /// Top-left corner and bottom-right corner, inclusive.
    pub fn bounds(&self) -> Option<(Cell, Cell)> {
        let first = self.cells.first()?.0;
        let last = self.cells.last()?.0;
        let (min_col, max_col) = self
            .cells
            .iter()
            .fold((i32::MAX, i32::MIN), |(lo, hi), (c, _)| {
                (lo.min(c.col), hi.max(c.col))
            });
        Some((Cell::new(min_col, first.row), Cell::new(max_col, last.row)))
    }

    /// How many cells differ between `self` (expected) and `observed` moved
    /// by `d`, giving up once the count passes `limit`.
    pub fn diff_count(&self, observed: &Table, d: Cell, limit: usize) -> usize {
        let mut n = 0;
        self.merge(observed, d, |_, b, a| {
            if b != a {
                n += 1;
            }
            n <= limit
        });
        n
    }

    /// Every cell where `observed`, moved by `d`, differs from `self`.
    pub fn diff(&self, observed: &Table, d: Cell) -> Vec<Change> {
        let mut out = Vec::new();
        self.merge(observed, d, |cell, before, after| {
            if before != after {
                out.push(Change {
                    cell,
                    before,
                    after,
                });
            }
            true
        });
        out
    }

    /// Walks the union of both tables in row-major order; `observed` is moved
    /// by `d` first. Translation keeps row-major order, so this is one merge.
    fn merge(
        &self,
        observed: &Table,
        d: Cell,
        mut f: impl FnMut(Cell, Option<Token>, Option<Token>) -> bool,
    ) {
        let mut a = self.cells.iter().peekable();
        let mut b = observed
            .cells
            .iter()
            .map(|&(c, t)| (c.plus(d), t))
            .peekable();
        loop {
            let go = match (a.peek(), b.peek()) {
                (None, None) => return,
                (Some(&&(ca, ta)), None) => {
                    a.next();
                    f(ca, Some(ta), None)
                }
                (None, Some(&(cb, tb))) => {
                    b.next();
                    f(cb, None, Some(tb))
                }
                (Some(&&(ca, ta)), Some(&(cb, tb))) => match ca.cmp(&cb) {
                    Ordering::Less => {
                        a.next();
                        f(ca, Some(ta), None)
                    }
                    Ordering::Greater => {
                        b.next();
                        f(cb, None, Some(tb))
                    }
                    Ordering::Equal => {
                        a.next();
                        b.next();
                        f(ca, Some(ta), Some(tb))
                    }
                },
            };
            if !go {
                return;
            }
        }
    }

    /// Parses the token grid of a table script. `origin` is the cell of the
    /// first token of the first row. Errors carry the 0-based line of the grid
    /// text they were found on.
    pub fn parse_grid(text: &str, origin: Cell) -> Result<Table, GridError> {
        let lines: Vec<&str> = text.lines().collect();
        if !origin.in_range() || lines.len() as i64 + i64::from(Cell::LIMIT) > i64::from(i32::MAX) {
            return Err(GridError {
                line: 0,
                message: format!(
                    "origin {origin} is too far out: coordinates stay within ±{}",
                    Cell::LIMIT
                ),
            });
        }
        let first = lines.iter().position(|l| !l.trim().is_empty());
        let last = lines.iter().rposition(|l| !l.trim().is_empty());
        let (Some(first), Some(last)) = (first, last) else {
            return Ok(Table::new());
        };
        let mut width = None;
        let mut cells = Vec::new();
        for (row, line_no) in (first..=last).enumerate() {
            let line = lines[line_no];
            let tokens: Vec<&str> = line.split_whitespace().collect();
            if tokens.is_empty() {
                return Err(GridError {
                    line: line_no,
                    message: "blank row inside the grid (write a row of .. for an empty row)"
                        .into(),
                });
            }
            match width {
                None => width = Some(tokens.len()),
                Some(w) if w != tokens.len() => {
                    return Err(GridError {
                        line: line_no,
                        message: format!(
                            "ragged grid: this row has {} tokens, the first row has {w}",
                            tokens.len()
                        ),
                    });
                }
                _ => {}
            }
            for (col, tok) in tokens.iter().enumerate() {
                let token = Token::parse(tok).map_err(|e| GridError {
                    line: line_no,
                    message: format!("column {}: {e}", col + 1),
                })?;
                if let Some(t) = token {
                    let cell = origin.offset(col as i32, row as i32);
                    if !cell.in_range() {
                        return Err(GridError {
                            line: line_no,
                            message: format!(
                                "cell {cell} is too far out: coordinates stay within ±{}",
                                Cell::LIMIT
                            ),
                        });
                    }
                    cells.push((cell, t));
                }
            }
        }
        Ok(cells.into_iter().collect())
    }

    /// The grid text of the table and the cell of its first token.
    pub fn to_grid(&self) -> (Cell, String) {
        let Some((lo, hi)) = self.bounds() else {
            return (Cell::default(), String::new());
        };
        (lo, self.grid_over(lo, hi))
    }

    /// The grid text of the cells from `lo` to `hi` (corners included),
    /// `..` where no card lies: a whole 8x8 board, for instance.
    pub fn grid_over(&self, lo: Cell, hi: Cell) -> String {
        let mut s = String::new();
        for row in lo.row..=hi.row {
            for col in lo.col..=hi.col {
                if col > lo.col {
                    s.push(' ');
                }
                match self.get(Cell::new(col, row)) {
                    Some(t) => s.push_str(&t.grid_token().to_string()),
                    None => s.push_str(".."),
                }
            }
            s.push('\n');
        }
        s
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GridError {
    /// 0-based line within the grid text.
    pub line: usize,
    pub message: String,
}

/// How many cards of each piece a colour has (EP-DECK, with the king): the
/// deck the printable deck prints and the mat's registry tags.
pub const DECK: [(Piece, u8); 6] = [
    (Piece::King, 1),
    (Piece::Queen, 1),
    (Piece::Rook, 2),
    (Piece::Bishop, 2),
    (Piece::Knight, 2),
    (Piece::Pawn, 8),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_round_trip_keeps_cells_and_origin() {
        let text = "wN ## ..\n.. bQ ??\n";
        let t = Table::parse_grid(text, Cell::new(-1, 3)).unwrap();
        assert_eq!(t.len(), 4);
        assert_eq!(
            t.get(Cell::new(-1, 3)),
            Some(Token::Up(Card::new(Colour::White, Piece::Knight)))
        );
        assert_eq!(t.get(Cell::new(1, 4)), Some(Token::Unreadable));
        let (origin, grid) = t.to_grid();
        assert_eq!(origin, Cell::new(-1, 3));
        assert_eq!(grid, text);
        assert_eq!(Table::parse_grid(&grid, origin).unwrap(), t);
    }

    #[test]
    fn ragged_and_bad_tokens_name_their_line() {
        let e = Table::parse_grid("wN ##\n##\n", Cell::default()).unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.message.contains("ragged"), "{}", e.message);
        let e = Table::parse_grid("\nwN xQ\n", Cell::default()).unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.message.contains("colour"), "{}", e.message);
        let e = Table::parse_grid("wN wX", Cell::default()).unwrap_err();
        assert!(e.message.contains("piece"), "{}", e.message);
    }

    #[test]
    fn diff_under_translation_is_empty_for_a_shifted_copy() {
        let t = Table::parse_grid("wN ##\n## bK", Cell::default()).unwrap();
        let moved = t.shifted(Cell::new(5, -2));
        assert_eq!(t.diff(&moved, Cell::new(-5, 2)), vec![]);
        assert_eq!(t.diff_count(&moved, Cell::default(), 100), 8);
    }

    #[test]
    fn a_table_at_origin_starts_at_cell_zero_zero() {
        let t = Table::parse_grid(".. wN\nbK ##", Cell::new(-3, 4)).unwrap();
        let at = t.at_origin();
        assert_eq!(at.bounds(), Some((Cell::new(0, 0), Cell::new(1, 1))));
        assert_eq!(at, t.shifted(Cell::new(3, -4)));
        assert_eq!(Table::default().at_origin(), Table::default());
    }

    #[test]
    fn square_names_follow_rank_eight_at_the_top() {
        assert_eq!(Cell::new(0, 7).square().as_deref(), Some("a1"));
        assert_eq!(Cell::new(4, 4).square().as_deref(), Some("e4"));
        assert_eq!(Cell::new(8, 0).square(), None);
    }
}
