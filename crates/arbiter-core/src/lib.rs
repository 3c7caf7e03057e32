//! arbiter's core: what a referee of chess card games knows without any
//! device or screen.
//!
//! Inputs turn a device's signal into [`observation::Observation`]s; the
//! [`referee::Referee`] reconciles them with a game's rules ([`games`]) and
//! emits [`event::Event`]s; the [`journal`] records both so that a game
//! resumes after a crash. The [`script`] module reads and writes the
//! table-script format every part and test speaks. Nothing here depends on
//! an image, terminal or serial crate: the compiler keeps it so.

pub mod event;
pub mod games;
pub mod journal;
pub mod live;
#[cfg(any(test, feature = "testkit"))]
pub mod message_check;
pub mod observation;
pub mod referee;
pub mod replay;
pub mod script;
pub mod session;
pub mod setup;
pub mod shown;
pub mod spoken;
pub mod table;
pub mod toml_text;
