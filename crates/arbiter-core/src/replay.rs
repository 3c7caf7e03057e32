//! Replaying a table script through the referee: the headless core that
//! `arbiter replay`, `arbiter watch --input script:` and the tests share.

use crate::event::Event;
use crate::referee::AnyReferee;
use crate::script::{Script, ScriptError};

/// A referee for the script's game and setup.
pub fn referee_for(script: &Script) -> Result<Box<dyn AnyReferee>, ScriptError> {
    script.referee()
}

/// Every event of the script, in order: `game_started`, then each step's.
pub fn replay(script: &Script) -> Result<Vec<Event>, ScriptError> {
    let mut referee = referee_for(script)?;
    let mut events = referee.start();
    for (i, obs) in script.observations().enumerate() {
        events.extend(referee.observe(i, obs));
    }
    // Readings still open when the script ends are settled at its last step.
    events.extend(referee.finish(script.steps.len().saturating_sub(1)));
    Ok(events)
}

/// The game record of a replayed script, in the game's notation (PGN for
/// DoubleCross).
pub fn record(script: &Script) -> Result<String, ScriptError> {
    let mut referee = referee_for(script)?;
    referee.start();
    for (i, obs) in script.observations().enumerate() {
        referee.observe(i, obs);
    }
    referee.finish(script.steps.len().saturating_sub(1));
    referee.record().ok_or_else(|| {
        script.error(
            0,
            format!(
                "{} has no standard game record; `arbiter replay` prints its events",
                script.game().name()
            ),
        )
    })
}
