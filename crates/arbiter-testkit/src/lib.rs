//! arbiter's test support, in one place for the tests, benchmarks and
//! examples: none of it is compiled into the product.
//!
//! - [`games`]: each game's random legal games and mistake injectors (they
//!   live beside the rules they reach into, behind arbiter-core's
//!   `testkit` feature, and are re-exported here);
//! - [`Played`]: what every random game gives, so one driver writes any of
//!   them as a table script or replays it;
//! - [`soak`]: random games of every game through the referee, mistakes
//!   injected, flags counted;
//! - [`scene`], [`record`], [`fixtures`], [`accuracy`]: the synthetic camera
//!   scenes, the frame recorder, the image fixtures and the accuracy
//!   harness (arbiter-vision's `testkit` feature);
//! - [`plan`], [`sim`]: the mat simulator (arbiter-mat's `simulator`).

pub mod soak;

pub use arbiter_mat::{plan, sim};
pub use arbiter_vision::{accuracy, fixtures, record, scene};

use arbiter_core::event::Event;
use arbiter_core::observation::Observation;
use arbiter_core::script;
use arbiter_core::setup::{GameSetup, SetupError};

/// Each game's random games and mistakes.
pub mod games {
    pub mod enprise {
        pub use arbiter_core::games::enprise::{mistakes, random};
    }
    pub mod twelve {
        pub use arbiter_core::games::twelve::{mistakes, random};
    }
    pub mod doublecross {
        pub use arbiter_core::games::doublecross::{mistakes, random};
    }
    pub mod enochian {
        pub use arbiter_core::games::enochian::{mistakes, random};
    }
}

/// A game played from a setup, as an input would report it: what every
/// game's random generator gives.
pub trait Played {
    /// The setup the game was played from.
    fn setup(&self) -> GameSetup;

    /// Every observation in order.
    fn observations(&self) -> Vec<Observation>;

    /// The game as a table script.
    fn script(&self) -> String {
        script::write(&self.setup(), &self.observations())
    }

    /// The game replayed through a fresh referee: every event, in order.
    fn replay(&self) -> Result<Vec<Event>, SetupError> {
        let mut referee = self.setup().referee()?;
        let observations = self.observations();
        let mut events = referee.start();
        for (i, o) in observations.iter().enumerate() {
            events.extend(referee.observe(i, o));
        }
        events.extend(referee.finish(observations.len()));
        Ok(events)
    }
}

macro_rules! played {
    ($($game:ident),*) => {$(
        impl Played for arbiter_core::games::$game::random::RandomGame {
            fn setup(&self) -> GameSetup {
                self.setup()
            }

            fn observations(&self) -> Vec<Observation> {
                self.observations()
            }
        }
    )*};
}

played!(enprise, twelve, doublecross, enochian);
