//! arbiter: a referee for chess card games played on a real table.
//!
//! Inputs turn a device's signal into [`observation::Observation`]s; the
//! [`referee::Referee`] reconciles them with a game's rules ([`games`]) and
//! emits [`event::Event`]s for the outputs. Rules and referee never touch a
//! device or a screen.

pub mod headless;
pub mod input;
pub mod speak;
pub mod tui;

// The layers' crates, under the paths the rest of the code knows:
// `arbiter::games`, `arbiter::table`, `arbiter::vision::cards`, ...
pub use arbiter_core::{
    event, games, journal, observation, referee, replay, script, session, setup, shown, spoken,
    table,
};
pub use arbiter_vision as vision;

/// The physical deck: the mat's tag registry and learning it, and the
/// printable deck the camera reads.
pub mod deck {
    pub use arbiter_mat::{register, tags};
    pub use arbiter_vision::print;
}
