//! `arbiter watch`: a live input refereed with no screen, events printed
//! as they happen.

use std::io;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use arbiter::headless::{Start, run_live, run_script};
use arbiter::journal::Journal;
use arbiter::script::Script;

use super::device;
use super::replay::{headless, step_delay};
use crate::args::{MatArgs, OutputArgs};
use crate::input_spec::InputSpec;
use arbiter::session::Output;

pub fn run(
    input: &InputSpec,
    json: bool,
    journal: Option<PathBuf>,
    resume: Option<PathBuf>,
    delay: Option<f64>,
    beside: &OutputArgs,
    mat: &MatArgs,
) -> Result<()> {
    let delay = step_delay(delay)?;
    let mut outputs = Vec::new();
    if let Some(page) = super::spectators(&beside.serve)? {
        eprintln!("arbiter: {}", page.said);
        outputs.push(page.output);
    }
    outputs.extend(super::speaker(&beside.speak));
    let path = match input {
        InputSpec::Serial(_) | InputSpec::Camera(_) => {
            return watch_device(input, json, journal, outputs, mat);
        }
        InputSpec::Mock => bail!("--input mock is played with keys: use arbiter play --input mock"),
        InputSpec::Script(path) => path,
    };
    let script = Script::load(path)?;
    let start = match (journal, resume) {
        (_, Some(p)) => {
            let r = Journal::resume(&p)?;
            for w in &r.resumed.warnings {
                eprintln!("arbiter: {w}");
            }
            if r.resumed.finished() {
                return Ok(());
            }
            let from = r.resumed.next_step;
            Start::Resumed {
                referee: r.referee,
                journal: r.journal,
                from,
            }
        }
        (Some(p), None) => Start::New {
            journal: Some(Journal::create(&p, &script.setup_toml())?),
        },
        (None, None) => Start::New { journal: None },
    };
    headless(|out| run_script(&script, outputs, out, json, start, delay))
}

/// A mat or a camera: its game named by `--setup`.
fn watch_device(
    input: &InputSpec,
    json: bool,
    journal: Option<PathBuf>,
    mut outputs: Vec<Box<dyn Output>>,
    mat: &MatArgs,
) -> Result<()> {
    let (setup_path, what) = match (&mat.setup, device::recorded_setup(input)) {
        (Some(p), _) => (p.clone(), "--setup"),
        (None, Some(p)) => (p, "the recording's game"),
        (None, None) => bail!(
            "--input {input}: name the game with --setup FILE{}",
            match input {
                InputSpec::Camera(_) => format!(
                    " (a recording of frames may carry it as DIR/{})",
                    device::RECORDING_GAME
                ),
                _ => String::new(),
            }
        ),
    };
    let setup = Script::load(&setup_path).context(what)?;
    let journal = match journal {
        Some(p) => Some(Journal::create(&p, &setup.setup_toml())?),
        None => None,
    };
    let device = device::open(input, mat)?;
    outputs.extend(device.outputs);
    headless(|out| {
        run_live(
            &setup,
            device.live,
            outputs,
            out,
            &mut io::stderr(),
            json,
            journal,
        )
    })
}
