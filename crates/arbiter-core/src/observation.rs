//! What every input produces: a settled picture of the table, a non-table
//! input (a drawn card, a call, a die roll), or word that the table is busy.

use crate::table::Table;

#[derive(Clone, Debug, PartialEq)]
pub enum Observation {
    /// A settled table. Cells the input could not read hold `Token::Unreadable`.
    Table(Table),
    /// Hands over the table, or motion: shown, never judged.
    Busy,
    /// DoubleCross: the card just drawn (`wQ`, `joust:wild-move`).
    Draw(String),
    /// A spoken call (`check`, `save-king`, ...) and who made it.
    Call { call: String, by: Option<String> },
    /// Enochian divination: the die just rolled.
    Roll(u8),
}

impl Observation {
    pub fn kind(&self) -> &'static str {
        match self {
            Observation::Table(_) => "table",
            Observation::Busy => "busy",
            Observation::Draw(_) => "draw",
            Observation::Call { .. } => "call",
            Observation::Roll(_) => "roll",
        }
    }
}
