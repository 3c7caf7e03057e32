//! The camera inputs as the command line names them: `frames:DIR` (a
//! recording, one image per frame in name order) and `camera:N` (a webcam,
//! in builds with the `camera` feature), each recognised and settled into
//! observations on its own thread.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, anyhow};

use crate::input::frames::{self, DirSource, FrameSource, FramesConfig, SettleConfig};
use crate::input::live::Live;
use crate::vision::calibration::Calibration;
use crate::vision::recognise::{Deck, Recogniser};
use crate::vision::templates::DeckModel;
use crate::vision::watch::Watcher;

/// How to read a camera input.
#[derive(Clone, Debug)]
pub struct VisionConfig {
    /// A deck learned with `arbiter deck learn`; the bundled deck if none.
    pub deck: Option<PathBuf>,
    /// A calibration written by `arbiter calibrate`.
    pub calibration: Option<PathBuf>,
    pub settle: Duration,
    /// Frames per second of a recording.
    pub fps: f32,
    /// Replay a recording at its own pace rather than as fast as it reads.
    pub realtime: bool,
    /// Read every changed frame whole, as a photo, rather than only the
    /// cards that changed since the table lay still (see
    /// [`crate::vision::watch`]): to measure what that saves.
    pub whole_frames: bool,
}

impl Default for VisionConfig {
    fn default() -> Self {
        VisionConfig {
            deck: None,
            calibration: None,
            settle: SettleConfig::default().settle,
            fps: 10.0,
            realtime: false,
            whole_frames: false,
        }
    }
}

/// The deck and calibration named, loaded; errors name the file.
pub fn recogniser(deck: Option<&Path>, calibration: Option<&Path>) -> anyhow::Result<Recogniser> {
    let deck = match deck {
        Some(p) => Deck::Learned(Box::new(DeckModel::load(p)?)),
        None => Deck::Bundled,
    };
    let calibration = calibration.map(Calibration::load).transpose()?;
    Ok(Recogniser::new(deck, calibration))
}

/// Whether `input` names a camera input (`frames:` or `camera:`).
pub fn is_vision(input: &str) -> bool {
    matches!(input.split_once(':'), Some(("frames" | "camera", _)))
}

/// Opens a camera input.
pub fn open(input: &str, cfg: &VisionConfig) -> anyhow::Result<Live> {
    let source: Box<dyn FrameSource> = match input.split_once(':') {
        Some(("frames", dir)) if !dir.is_empty() => {
            Box::new(DirSource::open(Path::new(dir), cfg.fps).map_err(|e| anyhow!("{e}"))?)
        }
        Some(("camera", n)) => {
            let index: u32 = n.parse().with_context(|| {
                format!("--input {input}: name the camera by number, such as camera:0")
            })?;
            camera(index)?
        }
        _ => anyhow::bail!("--input {input}: write frames:DIR or camera:N"),
    };
    let recogniser = recogniser(cfg.deck.as_deref(), cfg.calibration.as_deref())?;
    let settle = SettleConfig {
        settle: cfg.settle,
        ..SettleConfig::default()
    };
    let mut watcher = if cfg.whole_frames {
        Watcher::whole(recogniser)
    } else {
        Watcher::new(recogniser)
    };
    let read: Box<dyn FnMut(&image::RgbImage) -> _ + Send> = Box::new(move |img| watcher.read(img));
    Ok(frames::spawn(
        source,
        read,
        FramesConfig {
            settle,
            realtime: cfg.realtime,
            stall_after: None,
        },
    ))
}

#[cfg(feature = "camera")]
fn camera(index: u32) -> anyhow::Result<Box<dyn FrameSource>> {
    let cam = crate::input::camera::CameraSource::open(index, (1280, 720), 30)
        .map_err(|e| anyhow!("{e}"))?;
    Ok(Box::new(cam))
}

#[cfg(not(feature = "camera"))]
fn camera(index: u32) -> anyhow::Result<Box<dyn FrameSource>> {
    anyhow::bail!(
        "--input camera:{index}: this build has no camera support; build it with \
         `cargo build --release --features camera` (needs libclang-dev), or replay \
         a recording with --input frames:DIR"
    )
}
