//! `arbiter replay`: a table script through the referee, headless.

use std::io;
use std::path::Path;
use std::time::Duration;

use anyhow::{Result, bail};
use arbiter::headless::{HeadlessError, Start, run_script};
use arbiter::script::Script;

/// The bundled demo game, replayed when no script is given.
pub const DEMO: &str = include_str!("../../../../fixtures/scenarios/enprise/demo.toml");
pub const DEMO_NAME: &str = "fixtures/scenarios/enprise/demo.toml (bundled)";

pub fn run(script: Option<&Path>, json: bool, pgn: bool) -> Result<()> {
    let script = match script {
        Some(path) => Script::load(path)?,
        None => demo(),
    };
    if pgn {
        print!("{}", arbiter::replay::record(&script)?);
        return Ok(());
    }
    headless(|out| {
        run_script(
            &script,
            Vec::new(),
            out,
            json,
            Start::New { journal: None },
            None,
        )
    })
}

/// The bundled demo, parsed (a test parses it too).
pub fn demo() -> Script {
    Script::parse(DEMO_NAME, DEMO).expect("the bundled demo parses (tested)")
}

/// `--step-delay SECS`, checked.
pub fn step_delay(secs: Option<f64>) -> Result<Option<Duration>> {
    match secs {
        Some(s) if !(s.is_finite() && s > 0.0 && s < 3600.0) => {
            bail!("--step-delay {s}: give seconds between 0 and 3600")
        }
        Some(s) => Ok(Some(Duration::from_secs_f64(s))),
        None => Ok(None),
    }
}

/// A headless loop on standard output.
pub fn headless(
    f: impl FnOnce(&mut io::BufWriter<io::StdoutLock<'static>>) -> Result<(), HeadlessError>,
) -> Result<()> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    Ok(f(&mut out)?)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_bundled_demo_parses() {
        let demo = super::demo();
        assert!(!demo.steps.is_empty());
    }
}
