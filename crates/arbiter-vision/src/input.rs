//! The camera inputs as the command line names them: `frames:DIR` (a
//! recording, one image per frame in name order), `camera:N` (a webcam,
//! in builds with the `camera` feature) and `camera:http://…` (a network
//! camera's MJPEG stream, in every build), each recognised and settled
//! into observations on its own thread.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::calibration::Calibration;
use crate::frames::{self, DirSource, FrameError, FrameSource, FramesConfig, SettleConfig};
use crate::network::NetworkCamera;
pub use crate::network::{BadUrl, CameraUrl};
use crate::recognise::{Faces, Recogniser};
use crate::templates::DeckModel;
use crate::watch::Watcher;
use arbiter_core::live::Live;

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
    /// [`crate::watch`]): to measure what that saves.
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
/// Why a camera input could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error(transparent)]
    Deck(#[from] crate::templates::ParseError),
    #[error(transparent)]
    Calibration(#[from] crate::calibration::CalibrationError),
    /// The frames or the camera (named in the message).
    #[error(transparent)]
    Source(#[from] FrameError),
    #[error(
        "--input camera:{0}: this build has no camera support; build it with \
         `cargo build --release --features camera` (needs libclang-dev), or replay \
         a recording with --input frames:DIR"
    )]
    NoCameraSupport(u32),
}

pub fn recogniser(
    deck: Option<&Path>,
    calibration: Option<&Path>,
) -> Result<Recogniser, OpenError> {
    let deck = match deck {
        Some(p) => Faces::Learned(Box::new(DeckModel::load(p)?)),
        None => Faces::Printed,
    };
    let calibration = calibration.map(Calibration::load).transpose()?;
    Ok(Recogniser::new(deck, calibration))
}

/// A camera input: a recording of frames, or a webcam.
#[derive(Clone, Debug, PartialEq)]
pub enum CameraInput {
    /// `frames:DIR`: one image per frame, in name order.
    Frames(PathBuf),
    /// `camera:N`: a webcam by number.
    Webcam(u32),
    /// `camera:http://HOST:PORT/PATH`: a network camera's MJPEG stream (a
    /// phone's camera app, an IP camera).
    Network(CameraUrl),
}

impl std::fmt::Display for CameraInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CameraInput::Frames(dir) => write!(f, "frames:{}", dir.display()),
            CameraInput::Webcam(n) => write!(f, "camera:{n}"),
            CameraInput::Network(url) => write!(f, "camera:{url}"),
        }
    }
}

/// Opens a camera input.
pub fn open(input: &CameraInput, cfg: &VisionConfig) -> Result<Live, OpenError> {
    let source: Box<dyn FrameSource> = match input {
        CameraInput::Frames(dir) => Box::new(DirSource::open(dir, cfg.fps)?),
        CameraInput::Webcam(index) => camera(*index)?,
        CameraInput::Network(url) => Box::new(NetworkCamera::open(url)?),
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
fn camera(index: u32) -> Result<Box<dyn FrameSource>, OpenError> {
    let cam = crate::camera::Webcam::open(index, (1280, 720), 30).map_err(FrameError::from)?;
    Ok(Box::new(cam))
}

#[cfg(not(feature = "camera"))]
fn camera(index: u32) -> Result<Box<dyn FrameSource>, OpenError> {
    Err(OpenError::NoCameraSupport(index))
}
