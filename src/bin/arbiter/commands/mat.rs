//! `arbiter mat register` and `arbiter mat simulate`.

use std::io;
use std::time::Duration;

use anyhow::{Context, Result};
use arbiter::deck::tags::Registry;
use arbiter::input::mat::{self, MatConfig};

use crate::args::MatCommand;

pub fn run(command: MatCommand) -> Result<()> {
    match command {
        #[cfg(feature = "simulator")]
        MatCommand::Simulate {
            script,
            transients,
            gap_ms,
            link,
            seed,
        } => simulate(&script, &transients, gap_ms, link, seed),
        MatCommand::Register {
            port,
            deck,
            colours,
            settle_ms,
        } => {
            let colours = super::setup::colours(&colours, "--colours")?;
            let deck = deck
                .or_else(Registry::user_path)
                .context("no configuration folder: name the file with --deck FILE")?;
            let mut cfg = MatConfig::new(port, Registry::new());
            cfg.settle = Duration::from_millis(settle_ms);
            let mut link = mat::MatLink::open(&cfg)?;
            let registry =
                arbiter::deck::register::register(&mut link, &colours, &mut io::stdout())
                    .map_err(anyhow::Error::msg)?;
            if let Some(dir) = deck.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("{}: cannot create", dir.display()))?;
            }
            registry
                .save(&deck)
                .with_context(|| format!("{}: cannot write", deck.display()))?;
            println!("{} cards registered in {}", registry.len(), deck.display());
            Ok(())
        }
    }
}

/// `arbiter mat simulate`: a table script played as a mat would, on a
/// pseudo-terminal.
#[cfg(feature = "simulator")]
fn simulate(
    script: &std::path::Path,
    transients: &str,
    gap_ms: u64,
    link: Option<std::path::PathBuf>,
    seed: u64,
) -> Result<()> {
    use anyhow::anyhow;
    use arbiter::input::{matplan, matsim};
    use std::io::Write;
    let s = arbiter::script::Script::load(script)?;
    let (plan_t, wire) =
        matsim::parse_transients(transients).map_err(|e| anyhow!("--transients: {e}"))?;
    let plan = matplan::plan(&s, plan_t, seed).map_err(|e| anyhow!("{}: {e}", script.display()))?;
    if plan.beside > 0 {
        // Printed before the port's path, on stderr: a host reads stdout.
        eprintln!(
            "arbiter: {}: the mat lays the boards; its {} draw, call and roll steps are no mat's: \
             give them at the view's keys",
            script.display(),
            plan.beside
        );
    }
    let mut cfg = matsim::SimConfig {
        wire,
        seed,
        gap: Duration::from_millis(gap_ms),
        ..Default::default()
    };
    if let Some(l) = link {
        cfg.link = l;
    }
    // Ctrl-C ends the process before the simulator's own clean-up: remove
    // the link it announced (a host would open a dangling path next time).
    let announced = cfg.link.clone();
    ctrlc::set_handler(move || {
        let _ = std::fs::remove_file(&announced);
        std::process::exit(130);
    })
    .context("cannot catch Ctrl-C")?;
    let report = matsim::run(&plan, &cfg, |path| {
        println!("{}", path.display());
        let _ = io::stdout().flush();
    })
    .map_err(|e| anyhow!("the simulated mat: {e}"))?;
    eprintln!(
        "arbiter: simulated mat done: {} frames ({} corrupted), {} noise bursts, {} scans, {} unplugs",
        report.frames_sent,
        report.frames_corrupted,
        report.noise_bursts,
        report.scans,
        report.unplugs
    );
    Ok(())
}
