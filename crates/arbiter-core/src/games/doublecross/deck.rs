//! The ChessDek cards of DoubleCross: piece cards and Joust cards, the draw
//! pile counted by card, each player's discard pile, and reshuffles
//! (DC-2.2, DC-2.3, DC-3.1, DC-3.4).
//!
//! The referee never sees the order of the pile, only what is drawn, so the
//! pile is a multiset: enough to say a drawn card is impossible.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::table::{Card, Colour, Piece};

/// The seven Joust cards (DC-9), one of each when `joust` is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Joust {
    SaveKing,
    DoubleCross,
    ReturnAnyPiece,
    RemoveAnyPawn,
    WildMove,
    LoseMove,
    SwitchSides,
}

impl Joust {
    pub const ALL: [Joust; 7] = [
        Joust::SaveKing,
        Joust::DoubleCross,
        Joust::ReturnAnyPiece,
        Joust::RemoveAnyPawn,
        Joust::WildMove,
        Joust::LoseMove,
        Joust::SwitchSides,
    ];

    /// The script name, as in `joust:wild-move`.
    pub fn name(self) -> &'static str {
        match self {
            Joust::SaveKing => "save-king",
            Joust::DoubleCross => "doublecross",
            Joust::ReturnAnyPiece => "return-any-piece",
            Joust::RemoveAnyPawn => "remove-any-pawn",
            Joust::WildMove => "wild-move",
            Joust::LoseMove => "lose-move",
            Joust::SwitchSides => "switch-sides",
        }
    }

    /// "Wild Move", for sentences.
    pub fn title(self) -> &'static str {
        match self {
            Joust::SaveKing => "Save King",
            Joust::DoubleCross => "DoubleCross",
            Joust::ReturnAnyPiece => "Return Any Piece",
            Joust::RemoveAnyPawn => "Remove Any Pawn",
            Joust::WildMove => "Wild Move",
            Joust::LoseMove => "Lose Move",
            Joust::SwitchSides => "Switch Sides",
        }
    }

    pub fn rule(self) -> &'static str {
        match self {
            Joust::SaveKing => "DC-9.1",
            Joust::DoubleCross => "DC-9.2",
            Joust::ReturnAnyPiece => "DC-9.3",
            Joust::RemoveAnyPawn => "DC-9.4",
            Joust::WildMove => "DC-9.5",
            Joust::LoseMove => "DC-9.6",
            Joust::SwitchSides => "DC-9.7",
        }
    }
}

/// A card of the ChessDek.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DcCard {
    Piece(Card),
    Joust(Joust),
}

/// A drawn card as written that is no card of the deck.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadDraw {
    #[error(
        "unknown Joust card {0:?} (joust: save-king, doublecross, return-any-piece, \
         remove-any-pawn, wild-move, lose-move or switch-sides)"
    )]
    UnknownJoust(String),
    #[error("{0:?} is no ChessDek card (w or b, then K Q R B N P, such as \"wQ\")")]
    NotAPiece(String),
    #[error(
        "{0:?} is no ChessDek card (a piece card such as \"wQ\" or a Joust card such as \"joust:wild-move\")"
    )]
    NotACard(String),
}

impl DcCard {
    /// Parses a draw as scripts and inputs write it: `wQ` or
    /// `joust:wild-move`.
    pub fn parse(s: &str) -> Result<DcCard, BadDraw> {
        let s = s.trim();
        if let Some(name) = s.strip_prefix("joust:") {
            return Joust::ALL
                .into_iter()
                .find(|j| j.name() == name)
                .map(DcCard::Joust)
                .ok_or_else(|| BadDraw::UnknownJoust(s.to_string()));
        }
        let mut chars = s.chars();
        match (chars.next(), chars.next(), chars.next()) {
            (Some(c), Some(p), None) => match (Colour::from_letter(c), Piece::from_letter(p)) {
                (Some(colour @ (Colour::White | Colour::Black)), Some(piece)) => {
                    Ok(DcCard::Piece(Card::new(colour, piece)))
                }
                _ => Err(BadDraw::NotAPiece(s.to_string())),
            },
            _ => Err(BadDraw::NotACard(s.to_string())),
        }
    }

    /// "White Queen" or "Wild Move", for sentences.
    pub fn title(self) -> String {
        match self {
            DcCard::Piece(c) => format!("{} {}", c.colour.title(), title_piece(c.piece)),
            DcCard::Joust(j) => j.title().to_string(),
        }
    }
}

pub fn title_piece(p: Piece) -> &'static str {
    match p {
        Piece::King => "King",
        Piece::Queen => "Queen",
        Piece::Rook => "Rook",
        Piece::Bishop => "Bishop",
        Piece::Knight => "Knight",
        Piece::Pawn => "Pawn",
    }
}

impl fmt::Display for DcCard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DcCard::Piece(c) => write!(f, "{c}"),
            DcCard::Joust(j) => write!(f, "joust:{}", j.name()),
        }
    }
}

/// DC-2.3: whether Joust cards are in the deck, and what becomes of a used one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JoustMode {
    #[default]
    Off,
    /// A used Joust card is set aside for good.
    Once,
    /// A used Joust card is discarded like any other.
    Recycle,
}

/// DC-2.2: one card per starting piece.
pub fn standard_counts() -> BTreeMap<Card, u32> {
    let mut counts = BTreeMap::new();
    for colour in [Colour::White, Colour::Black] {
        for (piece, n) in [
            (Piece::King, 1),
            (Piece::Queen, 1),
            (Piece::Rook, 2),
            (Piece::Bishop, 2),
            (Piece::Knight, 2),
            (Piece::Pawn, 8),
        ] {
            counts.insert(Card::new(colour, piece), n);
        }
    }
    counts
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrawPile {
    /// What the draw pile holds, by card.
    pile: BTreeMap<DcCard, u32>,
    /// Each player's discard pile, oldest first (index 0: the White player).
    discards: [Vec<DcCard>; 2],
    /// Joust cards used under `joust = "once"`.
    set_aside: Vec<DcCard>,
    /// The player holding Save King face up, if any.
    held: Option<usize>,
    /// Decks used: 1 for the first pass through the pile, one more per
    /// reshuffle (DC-3.4).
    decks_used: u32,
}

impl DrawPile {
    pub fn new(counts: &BTreeMap<Card, u32>, joust: JoustMode) -> DrawPile {
        let mut pile: BTreeMap<DcCard, u32> = counts
            .iter()
            .filter(|&(_, &n)| n > 0)
            .map(|(&c, &n)| (DcCard::Piece(c), n))
            .collect();
        if joust != JoustMode::Off {
            for j in Joust::ALL {
                pile.insert(DcCard::Joust(j), 1);
            }
        }
        DrawPile {
            pile,
            discards: [Vec::new(), Vec::new()],
            set_aside: Vec::new(),
            held: None,
            decks_used: 1,
        }
    }

    pub fn pile_len(&self) -> u32 {
        self.pile.values().sum()
    }

    pub fn in_pile(&self, card: DcCard) -> u32 {
        self.pile.get(&card).copied().unwrap_or(0)
    }

    pub fn discards(&self, player: usize) -> &[DcCard] {
        &self.discards[player]
    }

    pub fn set_aside(&self) -> &[DcCard] {
        &self.set_aside
    }

    pub fn held(&self) -> Option<usize> {
        self.held
    }

    pub fn decks_used(&self) -> u32 {
        self.decks_used
    }

    /// DC-3.4: every discard pile becomes the new draw pile; held and
    /// set-aside cards stay where they are.
    pub fn reshuffle(&mut self) {
        for pile in &mut self.discards {
            for card in pile.drain(..) {
                *self.pile.entry(card).or_default() += 1;
            }
        }
        self.decks_used += 1;
    }

    /// Takes a card from the pile; false when by count none is left there.
    pub fn take(&mut self, card: DcCard) -> bool {
        match self.pile.get_mut(&card) {
            Some(n) if *n > 0 => {
                *n -= 1;
                if *n == 0 {
                    self.pile.remove(&card);
                }
                true
            }
            _ => false,
        }
    }

    /// The end of a turn: the card to its drawer's discard pile, or aside
    /// for good (a used Joust card under `once`).
    pub fn dispose(&mut self, player: usize, card: DcCard, joust: JoustMode) {
        match card {
            DcCard::Joust(_) if joust == JoustMode::Once => self.set_aside.push(card),
            _ => self.discards[player].push(card),
        }
    }

    pub fn hold_save_king(&mut self, player: usize) {
        self.held = Some(player);
    }

    pub fn release_save_king(&mut self) {
        self.held = None;
    }

    /// A start position's deck: `drawn` cards already out of the pile
    /// (discarded by nobody in particular; they come back at a reshuffle
    /// through the White player's pile).
    pub fn remove_for_start(&mut self, card: DcCard) -> bool {
        if self.take(card) {
            self.discards[0].push(card);
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_parse_and_print_as_scripts_write_them() {
        for s in ["wQ", "bP", "joust:wild-move", "joust:save-king"] {
            assert_eq!(DcCard::parse(s).unwrap().to_string(), s);
        }
        assert!(
            DcCard::parse("rQ")
                .unwrap_err()
                .to_string()
                .contains("no ChessDek card")
        );
        assert!(
            DcCard::parse("joust:fly")
                .unwrap_err()
                .to_string()
                .contains("unknown Joust")
        );
        assert!(DcCard::parse("wQQ").is_err());
    }

    #[test]
    fn the_pile_counts_cards_and_a_reshuffle_brings_back_the_discards() {
        let mut deck = DrawPile::new(&standard_counts(), JoustMode::Recycle);
        assert_eq!(deck.pile_len(), 39);
        let wk = DcCard::Piece(Card::new(Colour::White, Piece::King));
        assert!(deck.take(wk));
        assert!(!deck.take(wk), "one White King card");
        deck.dispose(0, wk, JoustMode::Recycle);
        let wild = DcCard::Joust(Joust::WildMove);
        assert!(deck.take(wild));
        deck.dispose(1, wild, JoustMode::Once);
        assert_eq!(deck.set_aside(), &[wild]);
        deck.reshuffle();
        assert_eq!(deck.decks_used(), 2);
        assert_eq!(deck.in_pile(wk), 1);
        assert_eq!(deck.in_pile(wild), 0, "set aside for good");
    }
}
