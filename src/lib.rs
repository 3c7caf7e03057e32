//! arbiter: a referee for chess card games played on a real table.
//!
//! Inputs turn a device's signal into [`observation::Observation`]s; the
//! [`referee::Referee`] reconciles them with a game's rules ([`games`]) and
//! emits [`event::Event`]s for the outputs. Rules and referee never touch a
//! device or a screen.

pub mod deck;
pub mod event;
pub mod games;
pub mod headless;
pub mod input;
pub mod journal;
pub mod observation;
pub mod referee;
pub mod replay;
pub mod script;
pub mod table;
pub mod tui;
pub mod vision;
