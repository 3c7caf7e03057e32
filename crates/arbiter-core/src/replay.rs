//! Replaying a table script through the referee: the headless core that
//! `arbiter replay`, `arbiter watch --input script:` and the tests share.

use crate::event::Event;
use crate::games::doublecross::DoubleCross;
use crate::games::enochian::Enochian;
use crate::games::enprise::EnPrise;
use crate::games::twelve::Twelve;
use crate::referee::{AnyReferee, Referee};
use crate::script::{GameKind, Script, ScriptError};

/// A referee for the script's game and setup.
pub fn referee_for(script: &Script) -> Result<Box<dyn AnyReferee>, ScriptError> {
    match script.game {
        GameKind::EnPrise => Ok(Box::new(Referee::new(EnPrise::from_script(script)?))),
        GameKind::DoubleCross => Ok(Box::new(Referee::new(DoubleCross::from_script(script)?))),
        GameKind::Twelve => Ok(Box::new(Referee::new(Twelve::from_script(script)?))),
        GameKind::Enochian => Ok(Box::new(Referee::new(Enochian::from_script(script)?))),
    }
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
                script.game.name()
            ),
        )
    })
}
